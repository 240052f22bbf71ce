import { goQuote } from '../../apimachinery/go-text';

/**
 * JSON values as kube's structured-merge-diff handles them: a total order (used to sort set
 * items in field sets), the human form used in conflict messages, and the compact JSON of
 * Go's encoder (sorted object keys, HTML-safe escapes) used inside FieldsV1 keys.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export function isJsonObject(v: unknown): v is Record<string, JsonValue> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go compares strings bytewise (UTF-8), which is code-point order, not UTF-16 unit order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}

/** The rank of a value's type in structured-merge-diff's order: numbers, strings, booleans, lists, maps, null. */
function typeRank(v: JsonValue): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

/** A total order over JSON values (value.Compare): by type, then by content. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return a === b ? 0 : (a as number) < (b as number) ? -1 : 1;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const la = a as JsonValue[];
      const lb = b as JsonValue[];
      for (let i = 0; ; i++) {
        if (i >= la.length) return i >= lb.length ? 0 : -1;
        if (i >= lb.length) return 1;
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
    }
    case 4: {
      // Maps compare as their sorted (key, value) lists.
      const ka = Object.keys(a as object).sort(compareStrings);
      const kb = Object.keys(b as object).sort(compareStrings);
      for (let i = 0; ; i++) {
        if (i >= ka.length) return i >= kb.length ? 0 : -1;
        if (i >= kb.length) return 1;
        const c = compareStrings(ka[i], kb[i]);
        if (c !== 0) return c;
        const d = compareValues((a as Record<string, JsonValue>)[ka[i]], (b as Record<string, JsonValue>)[kb[i]]);
        if (d !== 0) return d;
      }
    }
    default:
      return 0;
  }
}

const GO_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** A string as Go's encoding/json writes it (HTML characters escaped). */
export function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c]);
}

/** Compact JSON as Go's encoder writes it: object keys sorted, HTML characters escaped. */
export function goJson(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return goJsonString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  const keys = Object.keys(v).sort(compareStrings);
  return `{${keys.map((k) => `${goJsonString(k)}:${goJson(v[k])}`).join(',')}}`;
}

/** The human form structured-merge-diff prints values in (value.ToString): strings %q-quoted. */
export function describeValue(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(describeValue).join(',')}]`;
  return `{${Object.keys(v)
    .sort(compareStrings)
    .map((k) => `${k}=${describeValue(v[k])}`)
    .join(',')}}`;
}
