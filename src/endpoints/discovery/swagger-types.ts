/**
 * The parts of a Swagger 2.0 document the server publishes at /openapi/v2, typed as kube's
 * generator emits them. Keys starting with `x-` are vendor extensions.
 */

export type VendorExtensions = { [key: `x-${string}`]: unknown };

export interface SwaggerSchema extends VendorExtensions {
  $ref?: string;
  /** OpenAPI 3: one reference with a description of its own. */
  allOf?: SwaggerSchema[];
  description?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  properties?: Record<string, SwaggerSchema>;
  additionalProperties?: SwaggerSchema;
  items?: SwaggerSchema;
  required?: string[];
}

export interface BodyParameter {
  in: 'body';
  name: 'body';
  required: true;
  schema: SwaggerSchema;
}

export interface NonBodyParameter {
  in: 'query' | 'path';
  name: string;
  description: string;
  type: 'string' | 'integer' | 'boolean';
  uniqueItems: true;
  required?: true;
}

export type SwaggerParameter = BodyParameter | NonBodyParameter;

export interface SwaggerResponse {
  description: string;
  schema?: SwaggerSchema;
}

export interface SwaggerOperation extends VendorExtensions {
  description: string;
  operationId: string;
  tags: string[];
  schemes: string[];
  consumes: string[];
  produces: string[];
  parameters?: SwaggerParameter[];
  responses: Record<string, SwaggerResponse>;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type SwaggerPathItem = { [M in HttpMethod]?: SwaggerOperation } & { parameters?: SwaggerParameter[] };

export interface ApiKeySecurityScheme {
  type: 'apiKey';
  name: string;
  in: 'header';
  description: string;
}

export interface SwaggerDocument {
  swagger: '2.0';
  info: { title: string; version: string };
  paths: Record<string, SwaggerPathItem>;
  definitions: Record<string, SwaggerSchema>;
  securityDefinitions: Record<string, ApiKeySecurityScheme>;
  security: Array<Record<string, string[]>>;
}
