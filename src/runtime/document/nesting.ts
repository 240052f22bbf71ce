/**
 * How deeply a document from a client may nest objects and arrays. Every decoder of
 * untrusted input (JSON and YAML bodies, patches, JSON inside managedFields keys and
 * annotations, protobuf's raw JSON) refuses a deeper document before any recursive code
 * walks it, and a JSON patch may not build one; so every walker after them (schema
 * decoding, merges, field sets, Go-syntax renderers, the JSON and YAML encoders of
 * responses) meets at most this depth.
 *
 * kube's decoders stop at 10000 levels (Go's encoding/json scanner and go-yaml's scanner),
 * which Go's growing stacks afford. A JavaScript stack does not grow: the YAML library
 * composes and prints documents recursively and runs out of stack between 600 and 900
 * levels. So the limit here is lower, with room to spare; the messages are kube's. The
 * deepest object of any served kind is about 15 levels.
 */
export const MAX_NESTING_DEPTH = 500;

export type Bracket = '{' | '[';

/** Go's scanner error for the bracket that opens one level too many (JSON documents). */
export function jsonDepthError(bracket: Bracket): string {
  return `invalid character '${bracket}' exceeded max depth`;
}

/** go-yaml's scanner error for a flow or block collection one level too deep. */
export const YAML_DEPTH_ERROR = `exceeded max depth of ${MAX_NESTING_DEPTH}`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The bracket at which a JSON text nests deeper than the limit, or undefined. A linear
 * scan that skips strings and does not parse; a text that is not JSON gets its syntax
 * error from the parser it is given to.
 */
export function jsonTextTooDeep(text: string, limit = MAX_NESTING_DEPTH): Bracket | undefined {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return c === 0x7b ? '{' : '[';
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}

/**
 * The bracket of the first object or array (in key order) that lies deeper than the limit
 * in a plain value placed `startDepth` levels down, or undefined. Iterative, so it is safe
 * on values no recursive walker may see.
 */
export function valueTooDeep(value: unknown, limit = MAX_NESTING_DEPTH, startDepth = 0): Bracket | undefined {
  const pending: Array<[unknown, number]> = [[value, startDepth]];
  while (pending.length) {
    const [v, depth] = pending.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    const children = Array.isArray(v) ? v : Object.values(v);
    if (depth + 1 > limit) return Array.isArray(v) ? '[' : '{';
    for (let i = children.length - 1; i >= 0; i--) pending.push([children[i], depth + 1]);
  }
  return undefined;
}

/** JSON.parse for untrusted text: a SyntaxError in Go's words when it nests deeper than the limit. */
export function parseJsonWithinDepth(text: string): unknown {
  const bracket = jsonTextTooDeep(text);
  if (bracket) throw new SyntaxError(jsonDepthError(bracket));
  return JSON.parse(text);
}
