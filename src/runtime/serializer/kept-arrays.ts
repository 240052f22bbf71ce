import { elementParts } from './kept-encodings';

/**
 * Long arrays that are never changed once made, and whose elements are never changed either
 * (a who-can answer's users, groups and grants, shared by the answers to the same question
 * until the policy changes): the pieces of their JSON are made the first time one is written
 * and written again as they are, so a repeated answer encodes nothing and allocates little.
 * Keyed weakly: the pieces live as long as the array.
 */

/** null: marked, not yet written. */
const kept = new WeakMap<readonly unknown[], Buffer[] | null>();

/** Marks `items` (frozen now) as never changed again, nor its elements: its elements' JSON is made once. */
export function keepArrayEncoding<T>(items: T[]): readonly T[] {
  Object.freeze(items);
  if (!kept.has(items)) kept.set(items, null);
  return items;
}

/** elementParts(items), from the kept pieces when `items` was marked by keepArrayEncoding (as UTF-8 bytes). */
export function* arrayParts(items: readonly unknown[]): Generator<string | Buffer, void, undefined> {
  const pieces = kept.get(items);
  if (pieces === undefined) {
    yield* elementParts(items);
    return;
  }
  if (pieces !== null) {
    yield* pieces;
    return;
  }
  const made: Buffer[] = [];
  for (const part of elementParts(items)) {
    const piece = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    made.push(piece);
    yield piece;
  }
  // Only a whole array's pieces are kept (a writer may stop early).
  kept.set(items, made);
}
