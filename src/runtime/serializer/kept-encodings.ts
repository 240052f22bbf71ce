/**
 * JSON text kept with values that are never changed once made (cached objects' list items,
 * who-can grants shared by answers): an answer that holds them again writes the kept text
 * instead of encoding them again. Keyed weakly, so the text lives exactly as long as its value.
 */
const texts = new WeakMap<object, string | null>();

/** Marks `value` as never changed again: its JSON is made once, the first time it is written. */
export function keepEncoding<T extends object>(value: T): T {
  if (!texts.has(value)) texts.set(value, null);
  return value;
}

/** JSON.stringify(value), from the kept text when `value` was marked by keepEncoding. */
export function jsonOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  const kept = texts.get(value);
  if (kept === undefined) return JSON.stringify(value) ?? 'null';
  if (kept !== null) return kept;
  const text = JSON.stringify(value);
  texts.set(value, text);
  return text;
}
