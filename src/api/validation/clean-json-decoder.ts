import { Schema, StructSchema } from '../schema/schema';
import { isPlainObject } from '../types';
import { zeroOf } from './schema-decoder';

/**
 * The fast path of body decoding. Nearly every request body is clean JSON: no repeated
 * keys, no unknown fields, every value of its field's type. For such a body the native
 * JSON.parse and one walk over the schema give exactly what the document decoder
 * (json-document + schema-decoder) gives, without building a document tree. Anything else
 * (a syntax error, a repeated key, an unknown field, a type error, a number literal with
 * a fraction or exponent, which Go's decoder judges by its text) returns undefined and
 * the caller takes the document decoder, which words every finding as kube does.
 */
export function decodeCleanJson(text: string, schema: StructSchema): Record<string, unknown> | undefined {
  const keys = countKeysIfIntegral(text);
  if (keys < 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed)) return undefined;
  const walk = new CleanWalk();
  const value = walk.value(parsed, schema);
  // JSON.parse keeps one of repeated keys: fewer keys than the text has means repeats.
  if (value === DECLINE || walk.keys !== keys || !isPlainObject(value)) return undefined;
  return value;
}

const DECLINE = Symbol('decline');
type Walked = unknown | typeof DECLINE;

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

class CleanWalk {
  keys = 0;

  value(value: unknown, schema: Schema): Walked {
    switch (schema.kind) {
      case 'any':
        this.keys += countValueKeys(value);
        return value;
      case 'scalar':
        if (value === null) return undefined;
        if (schema.format === 'int-or-string') return typeof value === 'string' || Number.isInteger(value) ? value : DECLINE;
        switch (schema.type) {
          case 'string':
            return typeof value === 'string' ? value : DECLINE;
          case 'boolean':
            return typeof value === 'boolean' ? value : DECLINE;
          case 'number':
            return typeof value === 'number' ? value : DECLINE;
          default:
            if (!Number.isSafeInteger(value)) return DECLINE;
            if ((schema.format === 'int32' || schema.typeName === 'int32') && ((value as number) < INT32_MIN || (value as number) > INT32_MAX)) return DECLINE;
            return value;
        }
      case 'list': {
        if (value === null) return undefined;
        if (!Array.isArray(value)) return DECLINE;
        const out = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          const item = this.value(value[i], schema.items);
          if (item === DECLINE) return DECLINE;
          out[i] = item === undefined ? zeroOf(schema.items) : item;
        }
        return out;
      }
      case 'map': {
        if (value === null) return undefined;
        if (!isPlainObject(value)) return DECLINE;
        const out: Record<string, unknown> = {};
        for (const key of Object.keys(value)) {
          if (key === '__proto__') return DECLINE;
          this.keys++;
          const item = this.value(value[key], schema.values);
          if (item === DECLINE) return DECLINE;
          out[key] = item === undefined ? zeroOf(schema.values) : item;
        }
        return out;
      }
      default: {
        if (value === null) return undefined;
        if (!isPlainObject(value)) return DECLINE;
        const out: Record<string, unknown> = {};
        for (const key of Object.keys(value)) {
          if (!Object.hasOwn(schema.fields, key)) return DECLINE;
          this.keys++;
          const field = this.value(value[key], schema.fields[key]);
          if (field === DECLINE) return DECLINE;
          if (field !== undefined) out[key] = field;
        }
        return out;
      }
    }
  }
}

function countValueKeys(value: unknown): number {
  if (Array.isArray(value)) {
    let n = 0;
    for (const item of value) n += countValueKeys(item);
    return n;
  }
  if (!isPlainObject(value)) return 0;
  let n = 0;
  for (const key of Object.keys(value)) n += 1 + countValueKeys(value[key]);
  return n;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * The number of object keys written in a JSON text (a string followed by a colon), or -1
 * when a number literal has a fraction, an exponent or more digits than a double keeps
 * exactly: those go to the document decoder, which judges literals by their text.
 */
export function countKeysIfIntegral(text: string): number {
  let keys = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i++;
      while (i < n) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i += 2;
        else if (s === QUOTE) break;
        else i++;
      }
      i++;
      let j = i;
      while (j < n && isSpace(text.charCodeAt(j))) j++;
      if (j < n && text.charCodeAt(j) === COLON) keys++;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      while (i < n && isNumberChar(text.charCodeAt(i))) {
        const d = text.charCodeAt(i);
        if (d === 0x2e || d === 0x65 || d === 0x45) return -1;
        i++;
      }
      if (i - start > 15) return -1;
      continue;
    }
    i++;
  }
  return keys;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}
