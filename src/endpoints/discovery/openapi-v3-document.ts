import { ResourceType } from '../../runtime/schema/resource-type';
import { OPENAPI_INFO } from './openapi-names';
import { BEARER_TOKEN, describeKinds, SubresourceOf } from './swagger-document';
import { HTTP_METHODS, SwaggerOperation, SwaggerParameter, SwaggerPathItem, SwaggerResponse, SwaggerSchema } from './swagger-types';

/** An OpenAPI 3.0 parameter: the Swagger 2.0 one with its type moved into a schema. */
export interface OpenApi3Parameter {
  in: 'query' | 'path';
  name: string;
  description: string;
  required?: true;
  schema: SwaggerSchema & { uniqueItems?: true };
}

export interface OpenApi3Operation {
  [key: `x-${string}`]: unknown;
  description: string;
  operationId: string;
  tags: string[];
  parameters?: OpenApi3Parameter[];
  requestBody?: { content: Record<string, { schema: SwaggerSchema }>; required: true };
  responses: Record<string, { description: string; content?: Record<string, { schema: SwaggerSchema }> }>;
}

export type OpenApi3PathItem = { [M in (typeof HTTP_METHODS)[number]]?: OpenApi3Operation } & { parameters?: OpenApi3Parameter[] };

export interface OpenApi3Document {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Record<string, OpenApi3PathItem>;
  components: { schemas: Record<string, SwaggerSchema>; securitySchemes: Record<string, typeof BEARER_TOKEN> };
  security: Array<Record<string, string[]>>;
}

/**
 * The OpenAPI 3.0 document of one group version (`/openapi/v3/apis/<group>/<version>`): the
 * same definitions and operations as /openapi/v2, written as kube's v3 documents write them
 * (components, request bodies, parameter schemas, responses per media type). kubectl explain
 * reads the descriptions from here, and kubectl apply/create the operations' parameters.
 */
export function buildOpenApi3Document(types: ResourceType[], subresources: SubresourceOf[] = []): OpenApi3Document {
  const { definitions, paths } = describeKinds(types, 'v3', subresources);
  return {
    openapi: '3.0.0',
    info: { ...OPENAPI_INFO },
    paths: Object.fromEntries(Object.entries(paths).map(([path, item]) => [path, pathItem(item)])),
    components: { schemas: definitions, securitySchemes: { BearerToken: BEARER_TOKEN } },
    security: [{ BearerToken: [] }],
  };
}

function pathItem(item: SwaggerPathItem): OpenApi3PathItem {
  const out: OpenApi3PathItem = {};
  for (const method of HTTP_METHODS) {
    const op = item[method];
    if (op) out[method] = operation(op);
  }
  if (item.parameters) out.parameters = parameters(item.parameters);
  return out;
}

function operation(op: SwaggerOperation): OpenApi3Operation {
  const { consumes, produces, schemes: _schemes, parameters: params = [], responses, ...rest } = op;
  const body = params.find((p) => p.in === 'body');
  const content = (schema: SwaggerSchema, types: string[]) => Object.fromEntries(types.map((t) => [t, { schema }]));
  return {
    ...rest,
    ...(params.some((p) => p.in !== 'body') ? { parameters: parameters(params) } : {}),
    ...(body ? { requestBody: { content: content(body.schema, consumes), required: true } } : {}),
    responses: Object.fromEntries(
      Object.entries(responses).map(([code, r]: [string, SwaggerResponse]) => [
        code,
        { description: r.description, ...(r.schema ? { content: content(r.schema, produces) } : {}) },
      ]),
    ),
  };
}

function parameters(params: SwaggerParameter[]): OpenApi3Parameter[] {
  return params.flatMap((p) =>
    p.in === 'body'
      ? []
      : [{ in: p.in, name: p.name, description: p.description, ...(p.required ? { required: true as const } : {}), schema: { type: p.type, uniqueItems: p.uniqueItems } }],
  );
}
