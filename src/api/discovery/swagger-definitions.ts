import { Schema, StructSchema } from '../schema/schema';
import { META_PACKAGE } from './openapi-names';
import { SwaggerSchema } from './swagger-types';

/**
 * Swagger 2.0 `definitions` built from the kinds' structural schemas, shaped as kube's
 * generator shapes them: every Go type with a name (a struct schema with a `typeName`)
 * becomes a definition of its own, referenced with `$ref: #/definitions/<name>`, so
 * kubectl's client-side validation names it (`unknown field "x" in
 * io.platform.api.rbac.v1.PolicyRule`). Unnamed structs stay inline.
 *
 * A named struct lives in the package of the definition that first uses it, except the
 * apimachinery meta/v1 types, which live in META_PACKAGE wherever they are used.
 */
export class SwaggerDefinitions {
  readonly definitions: Record<string, SwaggerSchema> = {};
  /** The schema each name was made from: a name is one type. */
  private readonly sources = new Map<string, StructSchema>();
  private readonly metaTypes: Set<StructSchema>;

  constructor(metaTypes: Iterable<StructSchema>) {
    this.metaTypes = new Set(metaTypes);
  }

  /** Adds a definition under a name of the caller's choosing (kinds, list kinds) and refers to it. */
  define(name: string, schema: StructSchema, pkg: string, extensions: Partial<SwaggerSchema> = {}): SwaggerSchema {
    this.sources.set(name, schema);
    this.definitions[name] = { ...this.struct(schema, pkg), ...extensions };
    return ref(name);
  }

  /** Adds a definition written directly in Swagger (a type with no structural schema). */
  defineRaw(name: string, schema: SwaggerSchema): SwaggerSchema {
    this.definitions[name] = schema;
    return ref(name);
  }

  /** The Swagger form of a schema used inside package `pkg`, defining the named types it uses. */
  schemaOf(schema: Schema, pkg: string): SwaggerSchema {
    const out = this.convert(schema, pkg);
    if (schema.description && !out.$ref) out.description = schema.description;
    return out;
  }

  private convert(schema: Schema, pkg: string): SwaggerSchema {
    switch (schema.kind) {
      case 'scalar':
        // Swagger 2.0 has no "string or integer"; kube publishes IntOrString this way.
        if (schema.format === 'int-or-string') return { type: 'string', format: 'int-or-string' };
        return { type: schema.type, ...(schema.format ? { format: schema.format } : {}) };
      case 'any':
        // No type: any value is valid (kubectl's parser reads it as an arbitrary value).
        return {};
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
      return ref(name);
    }
    if (source === schema) return ref(name);
    // Two different schemas claim one name: share it when they publish the same fields,
    // otherwise this one stays inline rather than describe the other's fields.
    const inline = this.struct(schema, home);
    return JSON.stringify(inline) === JSON.stringify(this.definitions[name]) ? ref(name) : inline;
  }

  private struct(schema: StructSchema, pkg: string): SwaggerSchema {
    return {
      ...(schema.description ? { description: schema.description } : {}),
      type: 'object',
      properties: Object.fromEntries(Object.entries(schema.fields).map(([field, s]) => [field, this.schemaOf(s, pkg)])),
      ...(schema.required?.length ? { required: [...schema.required] } : {}),
      ...(schema.mapType === 'atomic' ? { 'x-kubernetes-map-type': 'atomic' } : {}),
    };
  }
}

function ref(name: string): SwaggerSchema {
  return { $ref: `#/definitions/${name}` };
}
