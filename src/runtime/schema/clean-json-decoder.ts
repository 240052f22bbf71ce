import { ScalarSchema, Schema, StructSchema } from './schema';
import { isPlainObject } from '../../apimachinery/types';
import { MAX_NESTING_DEPTH } from '../document/nesting';
import { zeroOf } from './schema-decoder';

/**
 * The fast path of body decoding. Nearly every request body is clean JSON: no repeated
 * keys, no unknown fields, every value of its field's type. For such a body the native
 * JSON.parse and one walk over the schema give exactly what the document decoder
 * (json-document + schema-decoder) gives, without building a document tree. Anything else
 * (a syntax error, a repeated key, an unknown field, a type error, a number literal with
 * a fraction or exponent, which Go's decoder judges by its text, a surrogate escape, a
 * nesting too deep) returns undefined and the caller takes the document decoder, which
 * words every finding as kube does. The scan that counts keys runs first, so JSON.parse
 * and the walk below never see a document nested deeper than MAX_NESTING_DEPTH.
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
  // JSON.parse keeps one of repeated keys: fewer keys than the text has means repeats.
  if (walk.check(parsed, schema) !== Checked.Ok || walk.keys !== keys) return undefined;
  return parsed;
}

/** What checking a value found: it fits, it is null (its parent decides), or it does not fit. */
const enum Checked {
  Ok,
  Null,
  Decline,
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * Checks a freshly parsed value against the schema and settles nulls in place as the
 * document decoder does (a null struct field is dropped, a null list item or map value
 * becomes the zero value), so a clean body is used as parsed, without a copy.
 */
class CleanWalk {
  keys = 0;

  check(value: unknown, schema: Schema): Checked {
    if (value === null) return schema.kind === 'any' ? Checked.Ok : Checked.Null;
    switch (schema.kind) {
      case 'any':
        this.keys += countValueKeys(value);
        return Checked.Ok;
      case 'scalar':
        return scalarFits(value, schema) ? Checked.Ok : Checked.Decline;
      case 'list': {
        if (!Array.isArray(value)) return Checked.Decline;
        for (let i = 0; i < value.length; i++) {
          const item = this.check(value[i], schema.items);
          if (item === Checked.Decline) return Checked.Decline;
          if (item === Checked.Null) value[i] = zeroOf(schema.items);
        }
        return Checked.Ok;
      }
      case 'map': {
        if (!isPlainObject(value)) return Checked.Decline;
        for (const key of Object.keys(value)) {
          if (key === '__proto__') return Checked.Decline;
          this.keys++;
          const item = this.check(value[key], schema.values);
          if (item === Checked.Decline) return Checked.Decline;
          if (item === Checked.Null) value[key] = zeroOf(schema.values);
        }
        return Checked.Ok;
      }
      default: {
        if (!isPlainObject(value)) return Checked.Decline;
        for (const key of Object.keys(value)) {
          if (!Object.hasOwn(schema.fields, key)) return Checked.Decline;
          this.keys++;
          const field = this.check(value[key], schema.fields[key]);
          if (field === Checked.Decline) return Checked.Decline;
          if (field === Checked.Null) delete value[key];
        }
        return Checked.Ok;
      }
    }
  }
}

function scalarFits(value: unknown, schema: ScalarSchema): boolean {
  if (schema.format === 'int-or-string') return typeof value === 'string' || Number.isInteger(value);
  switch (schema.type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
      return typeof value === 'number';
    default:
      if (!Number.isSafeInteger(value)) return false;
      return !((schema.format === 'int32' || schema.typeName === 'int32') && ((value as number) < INT32_MIN || (value as number) > INT32_MAX));
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
const LOWER_U = 0x75;

/** Whether the text at `i` is a `\\u` escape of a UTF-16 surrogate (`\\uD800` to `\\uDFFF`). */
function isSurrogateEscape(text: string, i: number): boolean {
  if (text.charCodeAt(i + 1) !== LOWER_U || (text[i + 2] !== 'd' && text[i + 2] !== 'D')) return false;
  return /[89a-fA-F]/.test(text[i + 3] ?? '');
}

/**
 * The number of object keys written in a JSON text (a string followed by a colon), or -1
 * when the text needs the document decoder's judgement: a number literal with a fraction,
 * an exponent or more digits than a double keeps exactly (judged by its text), a
 * surrogate escape (Go replaces a lone one; JSON.parse keeps it), or nesting beyond
 * MAX_NESTING_DEPTH (refused with Go's words).
 */
export function countKeysIfIntegral(text: string): number {
  let keys = 0;
  let depth = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i++;
      while (i < n) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) {
          if (isSurrogateEscape(text, i)) return -1;
          i += 2;
        } else if (s === QUOTE) break;
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
    if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_NESTING_DEPTH) return -1;
    } else if (c === 0x7d || c === 0x5d) depth--;
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
