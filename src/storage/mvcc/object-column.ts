import { KubeObject } from '../../apimachinery/types';

/**
 * How objects go into the jsonb columns. A JSON string may carry NUL (`\u0000`) or half of
 * a UTF-16 surrogate pair, and kube keeps both (a ConfigMap value with a NUL round-trips),
 * but PostgreSQL's jsonb cannot hold either. An object whose JSON text has such an escape
 * is therefore stored as that text, inside a one-key wrapper, and unwrapped when read;
 * every other object is stored as itself. No kind has a top-level field named like the
 * wrapper's key, so the two cannot be confused.
 */
const WRAPPER_KEY = '$json';

/** `\u0000` and `\ud800`..`\udfff` as JSON.stringify writes them (after an even run of backslashes: not `\\u0000`). */
const ESCAPE_JSONB_REFUSES = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

/** The column text for an object's JSON. */
export function toColumn(json: string): string {
  return ESCAPE_JSONB_REFUSES.test(json) ? JSON.stringify({ [WRAPPER_KEY]: json }) : json;
}

/** The object a column holds, as the driver parsed it. */
export function fromColumn(value: unknown): KubeObject {
  const wrapped = (value as Record<string, unknown>)[WRAPPER_KEY];
  return (typeof wrapped === 'string' ? JSON.parse(wrapped) : value) as KubeObject;
}
