import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { errors } from '../errors';
import { ResourceRegistry } from '../registry';
import { buildOpenApi3Document, OpenApi3Document } from './openapi-v3-document';

/**
 * OpenAPI v3 documents generated from the registry: the root index and one document per
 * group version, with each operation tagged by x-kubernetes-group-version-kind and
 * x-kubernetes-action as kube publishes them (kubectl reads these).
 */
@Injectable()
export class OpenApiService {
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
    const types = this.registry.resourcesOf(group, version).map((e) => e.type);
    if (!types.length) throw errors.pathNotFound();
    return buildOpenApi3Document(types);
  }

  private groupVersions(): Array<{ group: string; version: string }> {
    const seen = new Map<string, { group: string; version: string }>();
    for (const { type } of this.registry.all()) seen.set(`${type.group}/${type.version}`, { group: type.group, version: type.version });
    return [...seen.values()];
  }

  private hash(group: string, version: string): string {
    return createHash('sha512').update(JSON.stringify(this.document(group, version))).digest('hex').slice(0, 64).toUpperCase();
  }
}
