import { Schema, StructSchema } from '../../runtime/schema/schema';
import { META_PACKAGE } from './openapi-names';
import { SwaggerSchema } from './swagger-types';

/**
 * Which document the definitions are for: Swagger 2.0 (`/openapi/v2`, `#/definitions/`) or
 * OpenAPI 3.0 (`/openapi/v3`, `#/components/schemas/`), which kube words a little differently.
 */
export type OpenApiDialect = 'v2' | 'v3';

/** kube's name of the IntOrString type, with our domain. */
const INT_OR_STRING = 'io.platform.apimachinery.pkg.util.intstr.IntOrString';

const REF_PREFIX: Record<OpenApiDialect, string> = { v2: '#/definitions/', v3: '#/components/schemas/' };

/**
 * Schema definitions built from the kinds' structural schemas, shaped as kube's generator
 * shapes them: every Go type with a name (a struct schema with a `typeName`) becomes a
 * definition of its own, referenced with `$ref`, so kubectl's client-side validation names
 * it (`unknown field "x" in io.platform.api.rbac.v1.PolicyRule`) and `kubectl explain`
 * prints its type name. Unnamed structs stay inline. Every property carries its field's
 * description (next to a Swagger 2.0 `$ref`, around an OpenAPI 3 one with `allOf`, as
 * kube publishes them).
 *
 * A named struct lives in the package of the definition that first uses it, except the
 * apimachinery meta/v1 types, which live in META_PACKAGE wherever they are used.
 */
export class SwaggerDefinitions {
  readonly definitions: Record<string, SwaggerSchema> = {};
  /** The schema each name was made from: a name is one type. */
  private readonly sources = new Map<string, StructSchema>();
  private readonly metaTypes: Set<StructSchema>;

  constructor(
    metaTypes: Iterable<StructSchema>,
    readonly dialect: OpenApiDialect = 'v2',
  ) {
    this.metaTypes = new Set(metaTypes);
  }

  /** A reference to the definition of this name. */
  ref(name: string): SwaggerSchema {
    return { $ref: `${REF_PREFIX[this.dialect]}${name}` };
  }

  /** Adds a definition under a name of the caller's choosing (kinds, list kinds) and refers to it. */
  define(name: string, schema: StructSchema, pkg: string, extensions: Partial<SwaggerSchema> = {}): SwaggerSchema {
    this.sources.set(name, schema);
    this.definitions[name] = { ...this.struct(schema, pkg), ...extensions };
    return this.ref(name);
  }

  /** Adds a definition written directly in Swagger (a type with no structural schema). */
  defineRaw(name: string, schema: SwaggerSchema): SwaggerSchema {
    this.definitions[name] = schema;
    return this.ref(name);
  }

  /** The Swagger form of a schema used inside package `pkg`, defining the named types it uses. */
  schemaOf(schema: Schema, pkg: string): SwaggerSchema {
    const out = this.convert(schema, pkg);
    if (schema.description && !out.$ref) out.description = schema.description;
    return out;
  }

  /** A struct field: its schema with the field's own description, which says more than its type's. */
  property(schema: Schema, pkg: string, description: string | undefined): SwaggerSchema {
    const out = this.schemaOf(schema, pkg);
    if (!description) return out;
    // OpenAPI 3.0 ignores the siblings of a $ref; kube wraps the reference in allOf.
    if (out.$ref && this.dialect === 'v3') return { allOf: [out], description };
    return { ...out, description };
  }

  private convert(schema: Schema, pkg: string): SwaggerSchema {
    switch (schema.kind) {
      case 'scalar':
        if (schema.format === 'int-or-string') {
          // Swagger 2.0 has no "string or integer"; kube publishes IntOrString this way there.
          if (this.dialect === 'v2') return { type: 'string', format: 'int-or-string' };
          // OpenAPI 3 names the type, as kube does (kubectl explain prints <IntOrString>).
          if (!this.definitions[INT_OR_STRING]) {
            this.defineRaw(INT_OR_STRING, {
              description: 'IntOrString is a type that can hold an int32 or a string. When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.',
              format: 'int-or-string',
              'x-kubernetes-int-or-string': true,
            });
          }
          return this.ref(INT_OR_STRING);
        }
        return { type: schema.type, ...(schema.format ? { format: schema.format } : {}) };
      case 'any':
        // Swagger 2.0: no type, any value is valid (kubectl's parser reads it as an arbitrary value).
        return this.dialect === 'v2' ? {} : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      case 'map':
        return {
          type: 'object',
          additionalProperties: this.schemaOf(schema.values, pkg),
          ...(schema.mapType === 'atomic' ? { 'x-kubernetes-map-type': 'atomic' } : {}),
        };
      case 'list':
        return {
          type: 'array',
          items: this.schemaOf(schema.items, pkg),
          'x-kubernetes-list-type': schema.listType,
          ...(schema.mapKeys ? { 'x-kubernetes-list-map-keys': schema.mapKeys } : {}),
          ...(schema.patchStrategy ? { 'x-kubernetes-patch-strategy': schema.patchStrategy } : {}),
          ...(schema.patchMergeKey ? { 'x-kubernetes-patch-merge-key': schema.patchMergeKey } : {}),
        };
      case 'struct':
        return schema.typeName ? this.named(schema, schema.typeName, pkg) : this.struct(schema, pkg);
    }
  }

  /** A reference to the definition of a named struct, adding the definition on first use. */
  private named(schema: StructSchema, typeName: string, pkg: string): SwaggerSchema {
    const home = this.metaTypes.has(schema) ? META_PACKAGE : pkg;
    const name = `${home}.${typeName.slice(typeName.lastIndexOf('.') + 1)}`;
    const source = this.sources.get(name);
    if (source === undefined) {
      this.define(name, schema, home);
      return this.ref(name);
    }
    if (source === schema) return this.ref(name);
    // Two different schemas claim one name: share it when they publish the same fields,
    // otherwise this one stays inline rather than describe the other's fields.
    const inline = this.struct(schema, home);
    return JSON.stringify(inline) === JSON.stringify(this.definitions[name]) ? this.ref(name) : inline;
  }

  private struct(schema: StructSchema, pkg: string): SwaggerSchema {
    return {
      ...(schema.description ? { description: schema.description } : {}),
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(schema.fields).map(([field, s]) => [field, this.property(s, pkg, schema.fieldDescriptions?.[field])]),
      ),
      ...(schema.required?.length ? { required: [...schema.required] } : {}),
      ...(schema.mapType === 'atomic' ? { 'x-kubernetes-map-type': 'atomic' } : {}),
    };
  }
}
