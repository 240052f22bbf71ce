/**
 * A sort done a step at a time, for work on the event loop that must let other work in: each
 * step sorts or merges at most `step` items (the generator yields after it), and the sorted
 * array is the generator's return value. Bottom-up: runs of `step` items sorted by
 * Array.prototype.sort, then merged pairwise. Stable, as Array.prototype.sort is.
 */
export function* sortInSteps<T>(items: readonly T[], compare: (a: T, b: T) => number, step = 2048): Generator<void, T[], undefined> {
  const n = items.length;
  let from: T[] = new Array<T>(n);
  for (let lo = 0; lo < n; lo += step) {
    const run = items.slice(lo, lo + step).sort(compare);
    for (let k = 0; k < run.length; k++) from[lo + k] = run[k];
    if (lo + step < n) yield;
  }
  let to: T[] = new Array<T>(n);
  let moved = 0;
  for (let width = step; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      for (let k = lo; k < hi; k++) {
        // The left run first on ties: stable.
        to[k] = j >= hi || (i < mid && compare(from[i], from[j]) <= 0) ? from[i++] : from[j++];
        if (++moved % step === 0) yield;
      }
    }
    [from, to] = [to, from];
  }
  return from;
}
