import { Schema } from '../schema/schema';

type JsonSchema = Record<string, unknown>;

/**
 * A kind's structural schema as OpenAPI v3, with the x-kubernetes-* markers kube publishes
 * (kubectl explain reads the fields, clients read list/map types and patch strategies).
 */
export function toOpenApiSchema(schema: Schema): JsonSchema {
  const out = convert(schema);
  if (schema.description) out.description = schema.description;
  return out;
}

function convert(schema: Schema): JsonSchema {
  switch (schema.kind) {
    case 'scalar':
      if (schema.format === 'int-or-string') return { 'x-kubernetes-int-or-string': true };
      return { type: schema.type, ...(schema.format ? { format: schema.format } : {}) };
    case 'any':
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    case 'map':
      return {
        type: 'object',
        additionalProperties: toOpenApiSchema(schema.values),
        ...(schema.mapType === 'atomic' ? { 'x-kubernetes-map-type': 'atomic' } : {}),
      };
    case 'list':
      return {
        type: 'array',
        items: toOpenApiSchema(schema.items),
        'x-kubernetes-list-type': schema.listType,
        ...(schema.mapKeys ? { 'x-kubernetes-list-map-keys': schema.mapKeys } : {}),
        ...(schema.patchStrategy ? { 'x-kubernetes-patch-strategy': schema.patchStrategy } : {}),
        ...(schema.patchMergeKey ? { 'x-kubernetes-patch-merge-key': schema.patchMergeKey } : {}),
      };
    case 'struct':
      return {
        type: 'object',
        properties: Object.fromEntries(Object.entries(schema.fields).map(([name, field]) => [name, toOpenApiSchema(field)])),
        ...(schema.required?.length ? { required: schema.required } : {}),
        ...(schema.mapType === 'atomic' ? { 'x-kubernetes-map-type': 'atomic' } : {}),
      };
  }
}
