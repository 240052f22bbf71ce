import { isPlainObject } from '../types';

/**
 * Go's text formatting of decoded JSON values, for the error messages kube writes with
 * fmt verbs: `%q` of a string and `%v` of a map[string]interface{} (keys sorted, maps as
 * `map[k:v]`, slices as `[a b]`, nil as `<nil>`).
 */

const SIMPLE_ESCAPES: Record<string, string> = {
  '\u0007': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\u000b': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** `%q` of a string, as Go's strconv.Quote writes it. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const escaped = SIMPLE_ESCAPES[ch];
    if (escaped) out += escaped;
    else if (PRINTABLE.test(ch)) out += ch;
    else {
      const code = ch.codePointAt(0)!;
      if (code < 0x80) out += `\\x${code.toString(16).padStart(2, '0')}`;
      else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
      else out += `\\U${code.toString(16).padStart(8, '0')}`;
    }
  }
  return out + '"';
}

/** `%v` of a float64 or int64 decoded from JSON. */
function goNumber(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 21) {
    const [mantissa, e] = n.toExponential().split('e');
    const sign = e.startsWith('-') ? '-' : '+';
    return `${mantissa}e${sign}${e.replace(/^[-+]/, '').padStart(2, '0')}`;
  }
  return String(n);
}

/** `%v` of a JSON value decoded into interface{}. */
export function goValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${goValue(value[k])}`).join(' ')}]`;
  }
  return String(value);
}

/** The Go kind name of a value in a map[string]interface{} decoded with integers preserved. */
export function goKind(value: unknown): string {
  if (value === null || value === undefined) return 'invalid';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  // Go keeps a JSON integer as int64 only when it fits; anything else is a float64.
  if (typeof value === 'number') return Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63 ? 'int64' : 'float64';
  if (Array.isArray(value)) return 'slice';
  return 'map';
}

/** JSON with keys sorted at every level, compact: how Go's encoding/json writes a map. */
export function sortedJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k])]),
  );
}
