import { childSchema, ListSchema, MapSchema, ScalarSchema, Schema, StructSchema } from './schema';
import { isPlainObject, setOwn } from '../../apimachinery/types';
import { DocNode, docToValue, docTypeName, strictFieldError, valueToDoc } from '../document/document';
import { strictDecodingMessage } from './field-validation';
import { goKind } from '../../apimachinery/go-text';

/**
 * Decoding a document into a kind by its schema: what kube's decoder does when it reads
 * JSON into the kind's Go struct. It is the one place JSON types are checked: a value of
 * the wrong type is a decode error worded as Go words it, fields the schema does not
 * declare are dropped (and, in strict mode, reported as unknown), repeated keys are
 * reported as duplicates. Validators then read plain, well-typed values.
 *
 * Two dialects word type errors: `json` as encoding/json does for request bodies and JSON
 * or merge patches (`json: cannot unmarshal string into Go struct field Role.rules of type
 * []v1.PolicyRule`), `unstructured` as kube's map-to-object converter does for strategic
 * merge patches (`cannot restore slice from string`).
 */
export type DecodeDialect = 'json' | 'unstructured';

export interface DecodeOptions {
  /** Report unknown and duplicate fields (kube's strict decoder: fieldValidation Warn or Strict). */
  strict: boolean;
  dialect: DecodeDialect;
  /** The Go type of the root (`v1.Role`), used when the schema names none. */
  rootTypeName: string;
}

export interface DecodeResult {
  /** The decoded value: declared fields only, nulls resolved as Go resolves them. */
  value: Record<string, unknown>;
  /** Unknown and duplicate fields in document order, deduplicated, at most 100 (kube's cap). */
  strictErrors: string[];
  /** The first type error; when set the request fails and strict errors do not matter. */
  typeError?: string;
}

const MAX_STRICT_ERRORS = 100;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Where the decoder is: the Go struct whose field it is in and that field's JSON path. */
interface Context {
  structName: string;
  fieldStack: string[];
  strictPath: string;
}

class TypeMismatch extends Error {}

function upperFirst(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** Go's name of the type a schema decodes into, as reflect.Type.String() prints it. */
export function goTypeName(schema: Schema, fallback = 'v1.Object'): string {
  switch (schema.kind) {
    case 'scalar':
      return scalarGoType(schema);
    case 'struct':
      return schema.typeName ?? fallback;
    case 'map':
      return `map[string]${goTypeName(schema.values, fallback)}`;
    case 'list':
      return `[]${goTypeName(schema.items, fallback)}`;
    default:
      return 'interface {}';
  }
}

function scalarGoType(schema: ScalarSchema): string {
  if (schema.typeName) return schema.typeName;
  if (schema.format === 'byte') return '[]uint8';
  if (schema.format === 'int-or-string') return 'int32';
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
      return schema.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    default:
      return 'bool';
  }
}

/**
 * Types that decode themselves by calling the standard library's JSON decoder (metav1.Time,
 * metav1.Duration, IntOrString): the Go type that decoder was given, whose error kube passes on
 * without a field (the library's error is not the type kube's decoder adds field context to).
 */
function ownDecodingType(schema: ScalarSchema): string | undefined {
  if (schema.format === 'date-time' || schema.format === 'duration') return 'string';
  if (schema.format === 'int-or-string') return 'int32';
  return undefined;
}

function shortName(typeName: string): string {
  const dot = typeName.lastIndexOf('.');
  return dot >= 0 ? typeName.slice(dot + 1) : typeName;
}

/** The plain value of a literal as Go's map-to-object converter sees it. */
function literalKind(node: DocNode): string {
  if (node.kind === 'object') return 'map';
  if (node.kind === 'array') return 'slice';
  if (node.kind === 'null') return 'invalid';
  return goKind(node.value);
}

class SchemaDecoder {
  readonly strictErrors: string[] = [];
  private readonly seenStrict = new Set<string>();
  typeError?: string;

  constructor(private readonly opts: DecodeOptions) {}

  private strict(kind: 'unknown' | 'duplicate', path: string): void {
    if (!this.opts.strict || this.strictErrors.length >= MAX_STRICT_ERRORS) return;
    const message = strictFieldError(kind, path);
    if (this.seenStrict.has(message)) return;
    this.seenStrict.add(message);
    this.strictErrors.push(message);
  }

  /** Records the first type error in the dialect's words and stops decoding. */
  private mismatch(node: DocNode, schema: Schema, ctx: Context, typeName: string): never {
    this.typeError =
      this.opts.dialect === 'json' ? this.jsonMismatch(node, schema, ctx, typeName) : this.unstructuredMismatch(node, schema, typeName);
    throw new TypeMismatch();
  }

  private jsonMismatch(node: DocNode, schema: Schema, ctx: Context, typeName: string): string {
    let value = docTypeName(node);
    // A number that does not fit a numeric field is named with its literal.
    const numeric = schema.kind === 'scalar' && (schema.type === 'integer' || schema.type === 'number' || schema.format === 'int-or-string');
    if (node.kind === 'number' && numeric) value = `number ${node.raw}`;
    // Their own decoding calls the standard library's, whose error has no field to name.
    const own = schema.kind === 'scalar' ? ownDecodingType(schema) : undefined;
    if (own) return `json: cannot unmarshal ${value} into Go value of type ${own}`;
    if (!ctx.fieldStack.length) return `json: cannot unmarshal ${value} into Go value of type ${typeName}`;
    return `json: cannot unmarshal ${value} into Go struct field ${ctx.structName}.${ctx.fieldStack.join('.')} of type ${typeName}`;
  }

  private unstructuredMismatch(node: DocNode, schema: Schema, typeName: string): string {
    const kind = literalKind(node);
    switch (schema.kind) {
      case 'list':
        return `cannot restore slice from ${kind}`;
      case 'map':
        return `cannot restore map from ${kind}`;
      case 'struct':
        return `cannot restore struct from: ${kind}`;
      default:
        break;
    }
    const scalar = schema as ScalarSchema;
    // Types with their own JSON decoding go through JSON.
    const own = ownDecodingType(scalar);
    if (own) return `json: cannot unmarshal ${docTypeName(node)} into Go value of type ${own}`;
    // reflect's kind of the target, and its type name as fmt prints it.
    const targetKind = scalarGoType({ ...scalar, typeName: undefined });
    if (kind === 'int64' && targetKind === 'string') return `cannot convert int64 to ${typeName}`;
    if ((kind === 'float64' || kind === 'int64') && targetKind.startsWith('int')) return `cannot convert ${kind} to ${typeName}`;
    return `unrecognized type: ${targetKind}`;
  }

  decode(node: DocNode, schema: Schema, ctx: Context, existing: unknown, fallbackType: string): unknown {
    switch (schema.kind) {
      case 'any':
        return docToValue(node);
      case 'scalar':
        return this.scalar(node, schema, ctx);
      case 'list':
        return this.list(node, schema, ctx, fallbackType);
      case 'map':
        return this.map(node, schema, ctx, existing, fallbackType);
      default:
        return this.struct(node, schema, ctx, existing, fallbackType);
    }
  }

  private scalar(node: DocNode, schema: ScalarSchema, ctx: Context): unknown {
    const typeName = scalarGoType(schema);
    if (node.kind === 'null') return undefined;
    if (schema.format === 'int-or-string') {
      if (node.kind === 'string') return node.value;
      if (node.kind === 'number' && /^-?\d+$/.test(node.raw)) return node.value;
      return this.mismatch(node, schema, ctx, typeName);
    }
    switch (schema.type) {
      case 'string':
        if (node.kind !== 'string') return this.mismatch(node, schema, ctx, typeName);
        return node.value;
      case 'boolean':
        if (node.kind !== 'bool') return this.mismatch(node, schema, ctx, typeName);
        return node.value;
      case 'number':
        if (node.kind !== 'number') return this.mismatch(node, schema, ctx, typeName);
        return node.value;
      default:
        return this.integer(node, schema, ctx, typeName);
    }
  }

  private integer(node: DocNode, schema: ScalarSchema, ctx: Context, typeName: string): unknown {
    if (node.kind !== 'number') return this.mismatch(node, schema, ctx, typeName);
    // The map converter takes any whole number that fits; encoding/json only an integer literal in range.
    if (this.opts.dialect === 'unstructured') {
      if (unstructuredIntegerError(node.value, schema)) return this.mismatch(node, schema, ctx, typeName);
      return node.value;
    }
    if (!/^-?\d+$/.test(node.raw)) return this.mismatch(node, schema, ctx, typeName);
    const n = BigInt(node.raw);
    const int32 = typeName === 'int32';
    const [min, max] = int32 ? [BigInt(INT32_MIN), BigInt(INT32_MAX)] : [INT64_MIN, INT64_MAX];
    if (n < min || n > max) return this.mismatch(node, schema, ctx, typeName);
    return Number(n);
  }

  private list(node: DocNode, schema: ListSchema, ctx: Context, fallbackType: string): unknown {
    if (node.kind === 'null') return undefined;
    if (node.kind !== 'array') return this.mismatch(node, schema, ctx, goTypeName(schema, fallbackType));
    return node.items.map((item, i) => {
      const at = { ...ctx, strictPath: `${ctx.strictPath}[${i}]` };
      const value = this.decode(item, schema.items, at, undefined, fallbackType);
      return value === undefined ? zeroOf(schema.items) : value;
    });
  }

  private map(node: DocNode, schema: MapSchema, ctx: Context, existing: unknown, fallbackType: string): unknown {
    if (node.kind === 'null') return undefined;
    if (node.kind !== 'object') return this.mismatch(node, schema, ctx, goTypeName(schema, fallbackType));
    // Go decodes a repeated map into the map it already filled.
    const out: Record<string, unknown> = isPlainObject(existing) ? existing : {};
    const seen = new Set<string>();
    for (const { key, value } of node.entries) {
      const path = childPath(ctx.strictPath, key);
      if (seen.has(key)) this.strict('duplicate', path);
      seen.add(key);
      const decoded = this.decode(value, schema.values, { ...ctx, strictPath: path }, undefined, fallbackType);
      setOwn(out, key, decoded === undefined ? zeroOf(schema.values) : decoded);
    }
    return out;
  }

  private struct(node: DocNode, schema: StructSchema, ctx: Context, existing: unknown, fallbackType: string): unknown {
    const typeName = schema.typeName ?? fallbackType;
    if (node.kind === 'null') return undefined;
    if (node.kind !== 'object') return this.mismatch(node, schema, ctx, typeName);
    const out: Record<string, unknown> = isPlainObject(existing) ? existing : {};
    const seen = new Set<string>();
    for (const { key, value } of node.entries) {
      const path = childPath(ctx.strictPath, key);
      const field = childSchema(schema, key);
      if (!field) {
        this.strict('unknown', path);
        continue;
      }
      if (seen.has(key)) this.strict('duplicate', path);
      seen.add(key);
      const fieldCtx: Context = { structName: shortName(typeName), fieldStack: [...ctx.fieldStack, key], strictPath: path };
      // A repeated struct or map field is decoded into what its first occurrence filled.
      const decoded = this.decode(value, field, fieldCtx, out[key], `v1.${upperFirst(key)}`);
      if (decoded === undefined) delete out[key];
      else out[key] = decoded;
    }
    return out;
  }

  decodeRoot(node: DocNode, schema: StructSchema): Record<string, unknown> {
    const rootCtx: Context = { structName: '', fieldStack: [], strictPath: '' };
    const typed = { ...schema, typeName: schema.typeName ?? this.opts.rootTypeName };
    const value = this.decode(node, typed, rootCtx, undefined, this.opts.rootTypeName);
    return isPlainObject(value) ? value : {};
  }
}

function childPath(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

/**
 * Why a number decoded from a patch or an apply configuration does not fit an integer field
 * (kube's map converter, which would wrap it silently): a fraction or a value beyond int64
 * is a float64 to Go, a value beyond int32 does not fit an int32. Undefined when it fits.
 */
export function unstructuredIntegerError(value: number, schema: ScalarSchema): string | undefined {
  const typeName = scalarGoType(schema);
  const target = scalarGoType({ ...schema, typeName: undefined });
  const kind = goKind(value);
  if (kind === 'float64') return `cannot convert float64 to ${typeName}`;
  if (target === 'int32' && (value < INT32_MIN || value > INT32_MAX)) return `cannot convert int64 to ${typeName}`;
  return undefined;
}

/** The value Go leaves in a list item or map value given null: the type's zero value. */
export function zeroOf(schema: Schema): unknown {
  switch (schema.kind) {
    case 'scalar':
      if (schema.format === 'int-or-string') return 0;
      return schema.type === 'string' ? '' : schema.type === 'boolean' ? false : 0;
    case 'struct':
      return {};
    default:
      return null;
  }
}

/**
 * The one error kube's strict decoding of a configuration file gives (the authorization and
 * authentication configurations): the first type error, else every unknown and repeated
 * field together; undefined when the document fits the schema.
 */
export function strictDecodingError(document: Record<string, unknown>, schema: StructSchema, rootTypeName: string): string | undefined {
  const result = decodeBySchema(valueToDoc(document), schema, { strict: true, dialect: 'json', rootTypeName });
  if (result.typeError) return result.typeError;
  return result.strictErrors.length ? strictDecodingMessage(result.strictErrors) : undefined;
}

/** Decodes a document into a kind's schema (see the module comment). */
export function decodeBySchema(node: DocNode, schema: StructSchema, opts: DecodeOptions): DecodeResult {
  const decoder = new SchemaDecoder(opts);
  try {
    const value = decoder.decodeRoot(node, schema);
    return { value, strictErrors: decoder.strictErrors };
  } catch (err) {
    if (err instanceof TypeMismatch) return { value: {}, strictErrors: [], typeError: decoder.typeError };
    throw err;
  }
}
