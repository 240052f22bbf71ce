import * as protobuf from 'protobufjs';
import { isPlainObject, setOwn } from '../../../apimachinery/types';
import { parseJsonWithinDepth } from '../../document/nesting';

/**
 * Kube's JSON shape of an object <-> the plain message protobufjs encodes, driven by the
 * .proto definitions: a field's JSON name is its proto name, and a handful of
 * apimachinery types have a JSON form of their own (adapters below).
 *
 * Encoding writes exactly the fields present in the JSON. Decoding follows Go's JSON
 * omitempty: a zero scalar ("" / 0 / false) is dropped unless the field is marked
 * `keep_zero` (a pointer in Go, or a field kube's JSON never omits), so the bytes a
 * Kubernetes client sends (which carry every non-pointer field) decode to the object
 * kube would have stored.
 */

const META = 'platform.io.apimachinery.pkg.apis.meta.v1';
const KEEP_ZERO = '(platform.io.codec.keep_zero)';
const LIST_ALIAS = '(platform.io.codec.list_alias)';
const EMBEDDED = '(platform.io.codec.embedded)';

/** A JSON value that does not fit the message (encoding) or bytes that do not parse (decoding). */
export class WireFormatError extends Error {}

type Json = unknown;
type Message = Record<string, unknown>;

interface Adapter {
  toWire(json: Json, path: string): Message;
  /** undefined = the field is treated as absent (e.g. a zero Time). */
  toJson(message: Message): Json | undefined;
}

function has(message: Message, field: string): boolean {
  return Object.prototype.hasOwnProperty.call(message, field) && message[field] !== undefined && message[field] !== null;
}

function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  // int64 values decode as Long objects (protobufjs uses the long package when present).
  const long = value as protobuf.Long & { toNumber?: () => number };
  return typeof long.toNumber === 'function' ? long.toNumber() : protobuf.util.LongBits.from(long).toNumber();
}

function parseTime(json: Json, path: string): number {
  const ms = typeof json === 'string' ? Date.parse(json) : NaN;
  if (Number.isNaN(ms)) throw new WireFormatError(`${path}: not an RFC 3339 time: ${JSON.stringify(json)}`);
  return ms;
}

/** `2024-01-02T03:04:05` (no zone): the ISO form without its milliseconds. */
function secondsText(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

function parseJsonBytes(raw: unknown, what: string): Json | undefined {
  const bytes = raw as Uint8Array | undefined;
  if (!bytes || bytes.length === 0) return undefined;
  try {
    return parseJsonWithinDepth(Buffer.from(bytes).toString('utf8')) as Json;
  } catch (err) {
    throw new WireFormatError(`${what}: ${(err as Error).message}`);
  }
}

const ADAPTERS: Record<string, Adapter> = {
  // metav1.Time: RFC 3339 at second precision; kube writes no nanos.
  [`${META}.Time`]: {
    toWire: (json, path) => ({ seconds: Math.floor(parseTime(json, path) / 1000) }),
    toJson: (m) => (has(m, 'seconds') || has(m, 'nanos') ? `${secondsText(has(m, 'seconds') ? toNumber(m.seconds) : 0)}Z` : undefined),
  },
  // metav1.MicroTime: RFC 3339 with microseconds.
  [`${META}.MicroTime`]: {
    toWire: (json, path) => {
      const text = String(json);
      const ms = parseTime(json, path);
      const fraction = /\.(\d+)/.exec(text)?.[1] ?? '';
      return { seconds: Math.floor(ms / 1000), nanos: Number(fraction.padEnd(9, '0').slice(0, 9)) };
    },
    toJson: (m) => {
      if (!has(m, 'seconds') && !has(m, 'nanos')) return undefined;
      const micros = String(Math.floor((has(m, 'nanos') ? toNumber(m.nanos) : 0) / 1000)).padStart(6, '0');
      return `${secondsText(has(m, 'seconds') ? toNumber(m.seconds) : 0)}.${micros}Z`;
    },
  },
  // metav1.FieldsV1: the managed-fields JSON as raw bytes.
  [`${META}.FieldsV1`]: {
    toWire: (json) => ({ Raw: Buffer.from(JSON.stringify(json)) }),
    toJson: (m) => parseJsonBytes(m.Raw, 'fieldsV1'),
  },
  // runtime.RawExtension: an embedded JSON document.
  ['platform.io.apimachinery.pkg.runtime.RawExtension']: {
    toWire: (json) => ({ raw: Buffer.from(JSON.stringify(json)) }),
    toJson: (m) => parseJsonBytes(m.raw, 'raw extension'),
  },
  // intstr.IntOrString: a JSON number or string.
  ['platform.io.apimachinery.pkg.util.intstr.IntOrString']: {
    toWire: (json, path) => {
      if (typeof json === 'number' && Number.isInteger(json)) return { type: 0, intVal: json };
      if (typeof json === 'string') return { type: 1, strVal: json };
      throw new WireFormatError(`${path}: expected an integer or a string`);
    },
    toJson: (m) => (has(m, 'type') && toNumber(m.type) === 1 ? (m.strVal ?? '') : has(m, 'intVal') ? toNumber(m.intVal) : 0),
  },
  // resource.Quantity: its canonical string.
  ['platform.io.apimachinery.pkg.api.resource.Quantity']: {
    toWire: (json, path) => {
      if (typeof json === 'string' || typeof json === 'number') return { string: String(json) };
      throw new WireFormatError(`${path}: expected a quantity string`);
    },
    toJson: (m) => (m.string as string | undefined) ?? '',
  },
};

const INTEGER_TYPES = new Set(['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32', 'int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/** How one field maps; computed once per message type (see planOf). */
interface FieldPlan {
  name: string;
  shape: 'single' | 'repeated' | 'map';
  /** The value's message type, or undefined for scalars. */
  message?: protobuf.Type;
  /** The scalar type name (string, int64, bytes, ...). */
  scalar: string;
  integer: boolean;
  keepZero: boolean;
  /** A Go embedded struct: its message's fields are read from and written to the parent's JSON object. */
  embedded: boolean;
}

interface MessagePlan {
  adapter?: Adapter;
  listAlias: boolean;
  fields: FieldPlan[];
}

const plans = new WeakMap<protobuf.Type, MessagePlan>();

/** The mapping of a message type, read from its definition once (lists of a thousand items reuse it). */
function planOf(type: protobuf.Type): MessagePlan {
  let plan = plans.get(type);
  if (!plan) {
    plan = {
      adapter: ADAPTERS[type.fullName.replace(/^\./, '')],
      listAlias: type.getOption(LIST_ALIAS) === true,
      fields: type.fieldsArray.map((field) => ({
        name: field.name,
        shape: field.map ? 'map' : field.repeated ? 'repeated' : 'single',
        message: field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined,
        scalar: field.type,
        integer: INTEGER_TYPES.has(field.type),
        keepZero: field.getOption(KEEP_ZERO) === true,
        embedded: field.getOption(EMBEDDED) === true && field.resolvedType instanceof protobuf.Type,
      })),
    };
    plans.set(type, plan);
  }
  return plan;
}

function scalarToWire(field: FieldPlan, value: Json, path: string): unknown {
  const kind = field.scalar;
  const fail = (): never => {
    throw new WireFormatError(`${path}: expected ${kind}, got ${JSON.stringify(value)}`);
  };
  if (kind === 'string') return typeof value === 'string' ? value : fail();
  if (kind === 'bool') return typeof value === 'boolean' ? value : fail();
  if (kind === 'bytes') {
    if (typeof value === 'string') return Buffer.from(value, 'base64');
    return value instanceof Uint8Array ? value : fail();
  }
  if (field.integer) return typeof value === 'number' && Number.isInteger(value) ? value : fail();
  return typeof value === 'number' ? value : fail(); // double, float
}

function scalarToJson(field: FieldPlan, value: unknown): Json {
  if (field.scalar === 'bytes') return Buffer.from(value as Uint8Array).toString('base64');
  if (field.integer) return toNumber(value);
  return value;
}

function isZero(value: Json): boolean {
  return value === '' || value === 0 || value === false;
}

function valueToWire(field: FieldPlan, value: Json, path: string): unknown {
  return field.message ? toWire(field.message, value, path) : scalarToWire(field, value, path);
}

/** A JSON object as the plain message protobufjs encodes for `type`. */
export function toWire(type: protobuf.Type, json: Json, path = ''): Message {
  const plan = planOf(type);
  if (plan.adapter) return plan.adapter.toWire(json, path || '<root>');
  if (plan.listAlias) {
    if (!Array.isArray(json)) throw new WireFormatError(`${path}: expected a list`);
    return { items: json.map((v, i) => scalarToWire(plan.fields[0], v, `${path}[${i}]`)) };
  }
  if (!isPlainObject(json)) throw new WireFormatError(`${path || '<root>'}: expected an object`);
  const out: Message = {};
  for (const field of plan.fields) {
    if (field.embedded) {
      const inner = toWire(field.message as protobuf.Type, json, path);
      if (Object.keys(inner).length) out[field.name] = inner;
      continue;
    }
    const value = json[field.name];
    if (value === undefined || value === null) continue;
    const at = path ? `${path}.${field.name}` : field.name;
    if (field.shape === 'map') {
      if (!isPlainObject(value)) throw new WireFormatError(`${at}: expected a map`);
      const map: Message = {};
      for (const key of Object.keys(value)) setOwn(map, key, valueToWire(field, value[key], `${at}[${key}]`));
      out[field.name] = map;
    } else if (field.shape === 'repeated') {
      if (!Array.isArray(value)) throw new WireFormatError(`${at}: expected a list`);
      out[field.name] = value.map((v, i) => valueToWire(field, v, `${at}[${i}]`));
    } else {
      out[field.name] = valueToWire(field, value, at);
    }
  }
  return out;
}

function valueToJson(field: FieldPlan, value: unknown): Json {
  return field.message ? fromWire(field.message, value as Message) : scalarToJson(field, value);
}

/** A decoded message as kube's JSON shape (see the module comment for omitted zeros). */
export function fromWire(type: protobuf.Type, message: Message): Json {
  const plan = planOf(type);
  if (plan.adapter) return plan.adapter.toJson(message);
  if (plan.listAlias) return ((message.items as unknown[] | undefined) ?? []).slice();
  const out: Record<string, Json> = {};
  for (const field of plan.fields) {
    if (!has(message, field.name)) continue;
    const value = message[field.name];
    if (field.embedded) {
      Object.assign(out, fromWire(field.message as protobuf.Type, value as Message));
      continue;
    }
    if (field.shape === 'map') {
      const keys = Object.keys(value as object);
      if (!keys.length) continue;
      const map: Record<string, Json> = {};
      for (const key of keys) setOwn(map, key, valueToJson(field, (value as Record<string, unknown>)[key]));
      out[field.name] = map;
    } else if (field.shape === 'repeated') {
      const items = value as unknown[];
      if (items.length) out[field.name] = items.map((v) => valueToJson(field, v));
    } else {
      const json = valueToJson(field, value);
      if (json === undefined) continue;
      if (!field.message && isZero(json) && !field.keepZero) continue;
      out[field.name] = json;
    }
  }
  return out;
}

/** Encodes a JSON object with a message type (no envelope). */
export function encodeMessage(type: protobuf.Type, json: Json): Uint8Array {
  return type.encode(toWire(type, json)).finish();
}

/** Decodes a message's bytes (no envelope) into kube's JSON shape. */
export function decodeMessage(type: protobuf.Type, bytes: Uint8Array): Json {
  let message: protobuf.Message;
  try {
    message = type.decode(bytes);
  } catch (err) {
    throw new WireFormatError((err as Error).message);
  }
  return fromWire(type, message as unknown as Message);
}
