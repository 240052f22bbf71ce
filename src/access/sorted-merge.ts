/**
 * Merging lists that are each sorted already, in the order Array.prototype.sort gives strings
 * by default (UTF-16 code units, as `<` compares them). A who-can answer is the union of a few
 * such lists kept per role and scope: merging them costs a comparison per element, where
 * sorting the union again cost a dozen per element and a Set to deduplicate.
 */

/** The lists' elements in one list sorted by `key`; each list must be sorted by it. `unique`: one element per key (the first list's). */
function mergeTwo<T>(a: readonly T[], b: readonly T[], key: (item: T) => string, unique: boolean): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = key(a[i]);
    const y = key(b[j]);
    if (y < x) out.push(b[j++]);
    else {
      // Equal keys: the first list's item first (and, unique, the only one).
      if (unique && !(x < y)) j++;
      out.push(a[i++]);
    }
  }
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}

function mergeAll<T>(lists: readonly (readonly T[])[], key: (item: T) => string, unique: boolean): T[] {
  let pending = lists.filter((list) => list.length > 0);
  if (pending.length === 0) return [];
  // One list (the common answer: one role bound in one scope) is copied as it is.
  if (pending.length === 1) return pending[0].slice();
  // Pairs at a time, so each element is compared about log2(lists) times.
  while (pending.length > 1) {
    const next: T[][] = [];
    for (let k = 0; k < pending.length; k += 2) next.push(k + 1 < pending.length ? mergeTwo(pending[k], pending[k + 1], key, unique) : pending[k].slice());
    pending = next;
  }
  return pending[0] as T[];
}

const itself = (s: string) => s;

/** The strings of sorted lists of distinct strings, sorted, each once: `[...new Set(lists.flat())].sort()`. */
export function mergeSortedUnique(lists: readonly (readonly string[])[]): string[] {
  return mergeAll(lists, itself, true);
}

/** The items of lists each sorted by `key`, sorted by it; items of equal keys keep the order of their lists. */
export function mergeSortedBy<T>(lists: readonly (readonly T[])[], key: (item: T) => string): T[] {
  return mergeAll(lists, key, false);
}

/** The distinct strings, sorted: a list mergeSortedUnique takes. */
export function sortedUnique(items: Iterable<string>): string[] {
  return [...new Set(items)].sort();
}
