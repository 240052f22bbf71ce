import * as YAML from 'yaml';
import { protoRoot } from '../../runtime/serializer/protobuf/proto-root';
import {
  HTTP_METHODS,
  SwaggerDocument,
  SwaggerOperation,
  SwaggerParameter,
  SwaggerPathItem,
  SwaggerResponse,
  SwaggerSchema,
} from './swagger-types';

/** gnostic's message of a whole Swagger 2.0 document (proto/gnostic/openapiv2/). */
export const GNOSTIC_DOCUMENT = 'openapi.v2.Document';

type Message = Record<string, unknown>;

/**
 * A Swagger document as gnostic's openapi_v2.Document protobuf, the encoding kubectl asks
 * /openapi/v2 for. Maps become ordered lists of named pairs, and every `x-` vendor
 * extension a NamedAny holding its value as YAML text, which kubectl parses back (it reads
 * x-kubernetes-group-version-kind from there).
 */
export function encodeGnosticDocument(doc: SwaggerDocument): Buffer {
  const type = protoRoot().lookupType(GNOSTIC_DOCUMENT);
  return Buffer.from(type.encode(type.fromObject(gnosticDocument(doc))).finish());
}

export function gnosticDocument(doc: SwaggerDocument): Message {
  return {
    swagger: doc.swagger,
    info: { title: doc.info.title, version: doc.info.version },
    paths: { path: Object.entries(doc.paths).map(([name, item]) => ({ name, value: pathItem(item) })) },
    definitions: { additional_properties: namedSchemas(doc.definitions) },
    security: doc.security.map((requirement) => ({
      additional_properties: Object.entries(requirement).map(([name, scopes]) => ({ name, value: { value: scopes } })),
    })),
    security_definitions: {
      additional_properties: Object.entries(doc.securityDefinitions).map(([name, scheme]) => ({ name, value: { api_key_security: { ...scheme } } })),
    },
  };
}

function pathItem(item: SwaggerPathItem): Message {
  const out: Message = {};
  for (const method of HTTP_METHODS) {
    const op = item[method];
    if (op) out[method] = operation(op);
  }
  if (item.parameters) out.parameters = item.parameters.map(parameter);
  return out;
}

function operation(op: SwaggerOperation): Message {
  return {
    tags: op.tags,
    description: op.description,
    operation_id: op.operationId,
    produces: op.produces,
    consumes: op.consumes,
    parameters: (op.parameters ?? []).map(parameter),
    responses: { response_code: Object.entries(op.responses).map(([code, r]) => ({ name: code, value: { response: response(r) } })) },
    schemes: op.schemes,
    vendor_extension: vendorExtensions(op),
  };
}

function response(r: SwaggerResponse): Message {
  return { description: r.description, ...(r.schema ? { schema: { schema: schema(r.schema) } } : {}) };
}

function parameter(p: SwaggerParameter): Message {
  if (p.in === 'body') return { parameter: { body_parameter: { name: p.name, in: p.in, required: p.required, schema: schema(p.schema) } } };
  const sub = { required: p.required ?? false, in: p.in, description: p.description, name: p.name, type: p.type, unique_items: p.uniqueItems };
  const variant = p.in === 'path' ? 'path_parameter_sub_schema' : 'query_parameter_sub_schema';
  return { parameter: { non_body_parameter: { [variant]: sub } } };
}

function namedSchemas(record: Record<string, SwaggerSchema>): Message[] {
  return Object.entries(record).map(([name, value]) => ({ name, value: schema(value) }));
}

/** The keys of a Swagger schema and where gnostic's Schema message keeps each. */
const SCHEMA_FIELDS: { [K in keyof SwaggerSchema & string]-?: (value: NonNullable<SwaggerSchema[K]>) => [string, unknown] } = {
  $ref: (v) => ['_ref', v],
  description: (v) => ['description', v],
  type: (v) => ['type', { value: [v] }],
  format: (v) => ['format', v],
  properties: (v) => ['properties', { additional_properties: namedSchemas(v) }],
  additionalProperties: (v) => ['additional_properties', { schema: schema(v) }],
  items: (v) => ['items', { schema: [schema(v)] }],
  required: (v) => ['required', v],
  allOf: (v) => ['all_of', v.map(schema)],
};

function schema(s: SwaggerSchema): Message {
  const out: Message = { vendor_extension: vendorExtensions(s) };
  for (const [key, value] of Object.entries(s)) {
    if (key.startsWith('x-') || value === undefined) continue;
    const field = SCHEMA_FIELDS[key as keyof typeof SCHEMA_FIELDS] as ((v: unknown) => [string, unknown]) | undefined;
    // Every key the document builder emits has a place here; a new one must be added.
    if (!field) throw new Error(`no gnostic field for schema key ${key}`);
    const [name, converted] = field(value);
    out[name] = converted;
  }
  return out;
}

/** `x-` keys as NamedAny, their values as YAML 1.1 text (what kubectl's YAML decoder reads). */
function vendorExtensions(source: object): Message[] {
  return Object.entries(source)
    .filter(([key]) => key.startsWith('x-'))
    .map(([name, value]) => ({ name, value: { yaml: YAML.stringify(value, { version: '1.1' }) } }));
}
