import { listMetaSchema } from '../schema/meta';
import { apiVersionOf, ResourceType } from '../resource-type';
import { META_PACKAGE, OPENAPI_INFO, packageOf, schemaName } from './openapi-names';
import { SwaggerDefinitions } from './swagger-definitions';
import { defineMetaTypes, metaTypes } from './swagger-meta';
import { kindPaths } from './swagger-paths';
import { SwaggerDocument, SwaggerPathItem, SwaggerSchema } from './swagger-types';

/**
 * The Swagger 2.0 document of /openapi/v2 for the given kinds: paths with kube's operation
 * shapes and definitions for every kind, list kind and named type they use. Kinds that
 * cannot be listed (the create-only reviews) have no list kind.
 */
export function buildSwaggerDocument(types: ResourceType[]): SwaggerDocument {
  const definitions = new SwaggerDefinitions(metaTypes());
  const meta = defineMetaTypes(definitions);
  const paths: Record<string, SwaggerPathItem> = {};
  for (const type of types) {
    const pkg = packageOf(type.group, type.version);
    const gvk = (kind: string) => [{ group: type.group, kind, version: type.version }];
    const object = definitions.define(schemaName(type), type.schema, pkg, {
      description: type.schema.description ?? `${type.kind} of ${apiVersionOf(type)}`,
      'x-kubernetes-group-version-kind': gvk(type.kind),
    });
    let list: SwaggerSchema | undefined;
    if (type.verbs.includes('list')) {
      list = definitions.defineRaw(`${schemaName(type)}List`, {
        description: `${type.listKind} is a list of ${type.kind} objects`,
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: definitions.schemaOf(listMetaSchema, META_PACKAGE),
          items: { type: 'array', items: object },
        },
        required: ['items'],
        'x-kubernetes-group-version-kind': gvk(type.listKind),
      });
    }
    Object.assign(paths, kindPaths(type, { object, list, meta }));
  }
  return {
    swagger: '2.0',
    info: { ...OPENAPI_INFO },
    paths: sortedByKey(paths),
    definitions: sortedByKey(definitions.definitions),
    securityDefinitions: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header', description: 'Bearer Token authentication' } },
    security: [{ BearerToken: [] }],
  };
}

/** Go's encoding/json writes map keys sorted; kube's documents list paths and definitions so. */
function sortedByKey<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
