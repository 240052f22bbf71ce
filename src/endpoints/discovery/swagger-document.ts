import { listMetaSchema } from '../../runtime/schema/meta';
import { TYPE_META_DESCRIPTIONS } from '../../runtime/schema/schema';
import { apiVersionOf, ResourceType } from '../../runtime/schema/resource-type';
import { META_PACKAGE, OPENAPI_INFO, packageOf, schemaName } from './openapi-names';
import { OpenApiDialect, SwaggerDefinitions } from './swagger-definitions';
import { defineMetaTypes, metaTypes } from './swagger-meta';
import { kindPaths } from './swagger-paths';
import { SwaggerDocument, SwaggerPathItem, SwaggerSchema } from './swagger-types';

/** The definitions and paths of some kinds, in one dialect. */
export interface KindsDescription {
  definitions: Record<string, SwaggerSchema>;
  paths: Record<string, SwaggerPathItem>;
}

/**
 * Definitions for every kind, list kind and named type the given kinds use, and their paths
 * with kube's operation shapes. Kinds that cannot be listed (the create-only reviews) have
 * no list kind.
 */
export function describeKinds(types: ResourceType[], dialect: OpenApiDialect, subresources: SubresourceOf[] = []): KindsDescription {
  const definitions = new SwaggerDefinitions(metaTypes(), dialect);
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
      const string = (description: string): SwaggerSchema => ({ type: 'string', description });
      list = definitions.defineRaw(`${schemaName(type)}List`, {
        description: `${type.listKind} is a list of ${type.kind} objects`,
        type: 'object',
        properties: {
          apiVersion: string(TYPE_META_DESCRIPTIONS.apiVersion),
          kind: string(TYPE_META_DESCRIPTIONS.kind),
          metadata: definitions.property(listMetaSchema, META_PACKAGE, TYPE_META_DESCRIPTIONS.listMetadata),
          items: { type: 'array', items: object, description: `List of ${type.plural}.` },
        },
        required: ['items'],
        'x-kubernetes-group-version-kind': gvk(type.listKind),
      });
    }
    const subs = subresources
      .filter((sub) => sub.parent === type)
      .map((sub) => ({
        name: sub.subresource,
        type: sub.type,
        object: definitions.define(schemaName(sub.type), sub.type.schema, packageOf(sub.type.group, sub.type.version), {
          description: sub.type.schema.description ?? `${sub.type.kind} of ${apiVersionOf(sub.type)}`,
          'x-kubernetes-group-version-kind': [{ group: sub.type.group, kind: sub.type.kind, version: sub.type.version }],
        }),
      }));
    Object.assign(paths, kindPaths(type, { object, list, meta }, dialect, subs));
  }
  return { definitions: sortedByKey(definitions.definitions), paths: sortedByKey(paths) };
}

/** A subresource of one of the kinds described (the registry's RegisteredSubresource, without its storage). */
export interface SubresourceOf {
  parent: ResourceType;
  subresource: string;
  type: ResourceType;
}

/** The Swagger 2.0 document of /openapi/v2 for the given kinds. */
export function buildSwaggerDocument(types: ResourceType[], subresources: SubresourceOf[] = []): SwaggerDocument {
  const { definitions, paths } = describeKinds(types, 'v2', subresources);
  return {
    swagger: '2.0',
    info: { ...OPENAPI_INFO },
    paths,
    definitions,
    securityDefinitions: { BearerToken: BEARER_TOKEN },
    security: [{ BearerToken: [] }],
  };
}

/** Both documents authenticate the way kube's say: a bearer token in the authorization header. */
export const BEARER_TOKEN = { type: 'apiKey', name: 'authorization', in: 'header', description: 'Bearer Token authentication' } as const;

/** Go's encoding/json writes map keys sorted; kube's documents list paths and definitions so. */
export function sortedByKey<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
