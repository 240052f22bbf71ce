import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { errors } from '../../apimachinery/errors';
import { ResourceRegistry } from '../../registry/resources/registry';
import { buildOpenApi3Document, OpenApi3Document } from './openapi-v3-document';

/**
 * OpenAPI v3 documents generated from the registry: the root index and one document per
 * group version, with each operation tagged by x-kubernetes-group-version-kind and
 * x-kubernetes-action as kube publishes them (kubectl reads these). Each document is built
 * once per registry state: kinds are only ever added, so their number is the state.
 */
@Injectable()
export class OpenApiService {
  private readonly built = new Map<string, { kinds: number; document: OpenApi3Document; hash: string }>();

  constructor(private readonly registry: ResourceRegistry) {}

  root() {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const gv of this.groupVersions()) {
      const key = gv.group ? `apis/${gv.group}/${gv.version}` : `api/${gv.version}`;
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${this.hash(gv.group, gv.version)}` };
    }
    return { paths };
  }

  document(group: string, version: string): OpenApi3Document {
    return this.published(group, version).document;
  }

  private groupVersions(): Array<{ group: string; version: string }> {
    const seen = new Map<string, { group: string; version: string }>();
    for (const { type } of this.registry.served()) seen.set(`${type.group}/${type.version}`, { group: type.group, version: type.version });
    return [...seen.values()];
  }

  private hash(group: string, version: string): string {
    return this.published(group, version).hash;
  }

  private published(group: string, version: string) {
    const types = this.registry.resourcesOf(group, version).map((e) => e.type);
    if (!types.length) throw errors.pathNotFound();
    const key = `${group}/${version}`;
    let entry = this.built.get(key);
    if (entry?.kinds !== types.length) {
      const document = buildOpenApi3Document(types, types.flatMap((type) => this.registry.subresourcesOf(type)));
      const hash = createHash('sha512').update(JSON.stringify(document)).digest('hex').slice(0, 64).toUpperCase();
      entry = { kinds: types.length, document, hash };
      this.built.set(key, entry);
    }
    return entry;
  }
}
