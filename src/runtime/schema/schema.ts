/**
 * Structural schemas of the served kinds: one description per kind that every generic
 * mechanism reads, the way kube's generated OpenAPI (with its x-kubernetes-* markers and
 * Go struct tags) drives its machinery:
 *
 * - field validation finds unknown fields (struct fields not in the schema);
 * - strategic merge patch takes `patchStrategy` / `patchMergeKey`;
 * - server-side apply takes list types (atomic/set/map with keys) and map/struct types
 *   (atomic or granular) to merge and to track field ownership;
 * - OpenAPI documents and protobuf/Table encoders describe the same fields.
 *
 * A kind's schema is a `struct` whose fields include apiVersion, kind and metadata.
 */
export type Schema = ScalarSchema | StructSchema | MapSchema | ListSchema | AnySchema;

export interface SchemaCommon {
  description?: string;
}

export interface ScalarSchema extends SchemaCommon {
  kind: 'scalar';
  type: 'string' | 'integer' | 'number' | 'boolean';
  /** OpenAPI format: `date-time`, `byte`, `int64`, `int32`, `int-or-string`. */
  format?: string;
  /** The Go type kube's decoder names in type errors when it is a named one (`v1.FinalizerName`). */
  typeName?: string;
}

/** A Go struct: a fixed set of named fields. */
export interface StructSchema extends SchemaCommon {
  kind: 'struct';
  fields: Record<string, Schema>;
  /**
   * What each field means (kube's field documentation), kept by the struct because one field
   * schema (ObjectMeta, a probe) is shared by fields that mean different things.
   */
  fieldDescriptions?: Record<string, string>;
  required?: string[];
  /** `x-kubernetes-map-type`: atomic structs are owned and replaced as a whole. Default granular. */
  mapType?: 'atomic' | 'granular';
  /** The Go type kube's decoder names in type errors (`v1.PolicyRule`). */
  typeName?: string;
}

/** A Go map: any keys, one value schema (`additionalProperties`). */
export interface MapSchema extends SchemaCommon {
  kind: 'map';
  values: Schema;
  /** `x-kubernetes-map-type`; default granular (each key owned separately). */
  mapType?: 'atomic' | 'granular';
}

export interface ListSchema extends SchemaCommon {
  kind: 'list';
  items: Schema;
  /** `x-kubernetes-list-type`: atomic (default), set (scalar items), map (items keyed by mapKeys). */
  listType: 'atomic' | 'set' | 'map';
  /** `x-kubernetes-list-map-keys` for listType map. */
  mapKeys?: string[];
  /** Strategic merge: `merge` merges items (by patchMergeKey for objects, as a set for scalars). */
  patchStrategy?: 'merge' | 'replace' | 'merge,retainKeys';
  patchMergeKey?: string;
}

/** Anything goes (runtime.RawExtension, `fieldsV1`): never an unknown field, atomic for apply. */
export interface AnySchema extends SchemaCommon {
  kind: 'any';
}

// ---- builders -------------------------------------------------------------------------

export const string = (format?: string): ScalarSchema => ({ kind: 'scalar', type: 'string', ...(format ? { format } : {}) });
export const integer = (format = 'int32'): ScalarSchema => ({ kind: 'scalar', type: 'integer', format });
export const int64 = (): ScalarSchema => integer('int64');
export const boolean = (): ScalarSchema => ({ kind: 'scalar', type: 'boolean' });
export const dateTime = (): ScalarSchema => string('date-time');
export const any = (): AnySchema => ({ kind: 'any' });

export interface StructOptions {
  required?: string[];
  mapType?: 'atomic' | 'granular';
  typeName?: string;
  /** What the type is (kubectl explain prints it under the field's own description). */
  description?: string;
}

/** A struct field with its documentation, as `struct` takes it. */
export interface DocumentedField {
  schema: Schema;
  description: string;
}

/** A field of a struct declaration: its schema, with its documentation once written. */
export type FieldDeclaration = Schema | DocumentedField;

/** A struct field and what it means. */
export function field(schema: Schema, description: string): DocumentedField {
  return { schema, description };
}

function isDocumented(declaration: FieldDeclaration): declaration is DocumentedField {
  return 'schema' in declaration;
}

export function struct(declarations: Record<string, FieldDeclaration>, opts: StructOptions = {}): StructSchema {
  const fields: Record<string, Schema> = {};
  const fieldDescriptions: Record<string, string> = {};
  for (const [name, declaration] of Object.entries(declarations)) {
    if (isDocumented(declaration)) {
      fields[name] = declaration.schema;
      fieldDescriptions[name] = declaration.description;
    } else {
      fields[name] = declaration;
    }
  }
  const documented = Object.keys(fieldDescriptions).length ? { fieldDescriptions } : {};
  return { kind: 'struct', fields, ...documented, ...opts };
}

export function atomicStruct(fields: Record<string, FieldDeclaration>, opts: Omit<StructOptions, 'mapType'> = {}): StructSchema {
  return struct(fields, { ...opts, mapType: 'atomic' });
}

/** A scalar of a named Go type (`v1.FinalizerName` is a string). */
export function named(schema: ScalarSchema, typeName: string): ScalarSchema {
  return { ...schema, typeName };
}

export function map(values: Schema, mapType: 'atomic' | 'granular' = 'granular'): MapSchema {
  return { kind: 'map', values, mapType };
}

export const stringMap = (): MapSchema => map(string());

/** A list replaced as a whole by apply and by strategic merge (kube's default). */
export function atomicList(items: Schema): ListSchema {
  return { kind: 'list', items, listType: 'atomic' };
}

/** A list of unique scalars; `patchStrategy: merge` makes strategic merge union it too. */
export function setList(items: Schema, opts: { patchStrategy?: ListSchema['patchStrategy'] } = {}): ListSchema {
  return { kind: 'list', items, listType: 'set', ...opts };
}

/** A list of objects keyed by `keys`; strategic merge merges by `patchMergeKey` when given a strategy. */
export function mapList(
  items: StructSchema,
  keys: string[],
  opts: { patchStrategy?: ListSchema['patchStrategy']; patchMergeKey?: string } = {},
): ListSchema {
  return { kind: 'list', items, listType: 'map', mapKeys: keys, ...opts };
}

/** kube's documentation of TypeMeta and of the metadata every object carries. */
export const TYPE_META_DESCRIPTIONS = {
  apiVersion:
    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
  kind: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.',
  metadata: "Standard object's metadata.",
  listMetadata: "Standard list metadata.",
};

/** The whole schema of a kind: TypeMeta and ObjectMeta plus the kind's own fields. */
export function kindSchema(
  metadata: StructSchema,
  fields: Record<string, FieldDeclaration>,
  opts: { typeName?: string; description?: string } = {},
): StructSchema {
  return struct(
    {
      apiVersion: field(string(), TYPE_META_DESCRIPTIONS.apiVersion),
      kind: field(string(), TYPE_META_DESCRIPTIONS.kind),
      metadata: field(metadata, TYPE_META_DESCRIPTIONS.metadata),
      ...fields,
    },
    opts,
  );
}

// ---- readers ----------------------------------------------------------------------------

/** The schema of a struct field or map value; undefined for a field the schema does not know. */
export function childSchema(schema: Schema, key: string): Schema | undefined {
  switch (schema.kind) {
    case 'struct':
      // Own fields only: a body key such as `constructor` is unknown, not Object's.
      return Object.hasOwn(schema.fields, key) ? schema.fields[key] : undefined;
    case 'map':
      return schema.values;
    case 'any':
      return schema;
    default:
      return undefined;
  }
}

