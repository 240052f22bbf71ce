import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { errors } from '../errors';
import { ResourceRegistry } from '../registry';
import { apiVersionOf, Verb } from '../resource-type';
import { PATCH_MEDIA_TYPES } from '../patch/patch-types';
import { listMetaSchema } from '../schema/meta';
import { OPENAPI_INFO, schemaName } from './openapi-names';
import { toOpenApiSchema } from './openapi-schema';

type Operation = Record<string, unknown>;

const queryParam = (name: string, type = 'string') => ({ name, in: 'query', schema: { type }, uniqueItems: true });
const pathParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' }, uniqueItems: true });

/** Parameters of modifying requests; kubectl looks for fieldValidation to use server-side validation. */
const WRITE_PARAMS = [queryParam('dryRun'), queryParam('fieldManager'), queryParam('fieldValidation')];
const LIST_PARAMS = [
  queryParam('allowWatchBookmarks', 'boolean'),
  queryParam('continue'),
  queryParam('fieldSelector'),
  queryParam('labelSelector'),
  queryParam('limit', 'integer'),
  queryParam('resourceVersion'),
  queryParam('resourceVersionMatch'),
  queryParam('sendInitialEvents', 'boolean'),
  queryParam('timeoutSeconds', 'integer'),
  queryParam('watch', 'boolean'),
];

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

  document(group: string, version: string) {
    const entries = this.registry.resourcesOf(group, version);
    if (!entries.length) throw errors.pathNotFound();
    const paths: Record<string, Record<string, unknown>> = {};
    const schemas: Record<string, unknown> = {};
    for (const { type } of entries) {
      const prefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
      const scope = type.namespaced ? `${prefix}/namespaces/{namespace}/${type.plural}` : `${prefix}/${type.plural}`;
      const scopeParams = type.namespaced ? [pathParam('namespace')] : [];
      const ref = { $ref: `#/components/schemas/${schemaName(type)}` };
      const listRef = { $ref: `#/components/schemas/${schemaName(type)}List` };
      const has = (v: Verb) => type.verbs.includes(v);
      const op = (action: string, verbHint: string, extra: Operation = {}): Operation => ({
        description: `${action} ${type.kind}`,
        operationId: `${verbHint}${type.kind}`,
        'x-kubernetes-action': action,
        'x-kubernetes-group-version-kind': { group, version, kind: type.kind },
        responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } },
        ...extra,
      });
      const collection: Record<string, unknown> = { parameters: [...scopeParams, queryParam('pretty')] };
      if (has('list')) collection.get = op('list', 'list', { parameters: LIST_PARAMS, responses: { '200': { description: 'OK', content: { 'application/json': { schema: listRef } } } } });
      if (has('create')) collection.post = op('post', 'create', { parameters: WRITE_PARAMS, requestBody: { content: { '*/*': { schema: ref } }, required: true } });
      if (has('deletecollection')) collection.delete = op('deletecollection', 'deleteCollection', { parameters: [...LIST_PARAMS, queryParam('dryRun')] });
      paths[scope] = collection;

      const item: Record<string, unknown> = { parameters: [pathParam('name'), ...scopeParams, queryParam('pretty')] };
      if (has('get')) item.get = op('get', 'read');
      if (has('update')) item.put = op('put', 'replace', { parameters: WRITE_PARAMS, requestBody: { content: { '*/*': { schema: ref } }, required: true } });
      if (has('patch')) {
        item.patch = op('patch', 'patch', {
          parameters: [...WRITE_PARAMS, queryParam('force', 'boolean')],
          requestBody: { content: Object.fromEntries(PATCH_MEDIA_TYPES.map((t) => [t, { schema: { type: 'object' } }])), required: true },
        });
      }
      if (has('delete')) item.delete = op('delete', 'delete', { parameters: [queryParam('dryRun'), queryParam('gracePeriodSeconds', 'integer'), queryParam('propagationPolicy')] });
      // A kind without item verbs (the create-only reviews) has no item path.
      if (Object.keys(item).length > 1) paths[`${scope}/{name}`] = item;

      schemas[schemaName(type)] = {
        ...toOpenApiSchema(type.schema),
        description: type.schema.description ?? `${type.kind} of ${apiVersionOf(type)}`,
        'x-kubernetes-group-version-kind': [{ group, version, kind: type.kind }],
      };
      // Kinds that cannot be listed (the create-only reviews) have no list kind.
      if (has('list')) {
        schemas[`${schemaName(type)}List`] = {
          type: 'object',
          description: `${type.listKind} is a list of ${type.kind} objects`,
          properties: {
            apiVersion: { type: 'string' },
            kind: { type: 'string' },
            metadata: toOpenApiSchema(listMetaSchema),
            items: { type: 'array', items: ref },
          },
          required: ['items'],
          'x-kubernetes-group-version-kind': [{ group, version, kind: type.listKind }],
        };
      }
    }
    return {
      openapi: '3.0.0',
      info: { ...OPENAPI_INFO },
      paths,
      components: { schemas },
    };
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
