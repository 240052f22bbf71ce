/** A key's values kept in an array up to this many; more go into a Set. */
const SMALL = 8;

/**
 * Keys to sets of distinct values, for indexes with a bucket per key where most buckets hold
 * one or a few values (the policy indexes: most subjects are named by one binding). A few
 * values live in an array: a Set with its hash table costs ~250 bytes more, which at tens of
 * thousands of bindings was most of the index's memory. Buckets with many values are Sets,
 * so adding and removing stay O(1) there.
 */
export class MultiMap<K, V> {
  private readonly buckets = new Map<K, V[] | Set<V>>();

  get size(): number {
    return this.buckets.size;
  }

  /** The key's values (iterate only; do not keep), or undefined without any. */
  get(key: K): Iterable<V> | undefined {
    return this.buckets.get(key);
  }

  keys(): IterableIterator<K> {
    return this.buckets.keys();
  }

  add(key: K, value: V): void {
    const bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, [value]);
    else if (!Array.isArray(bucket)) bucket.add(value);
    else if (bucket.includes(value)) return;
    else if (bucket.length < SMALL) bucket.push(value);
    else this.buckets.set(key, new Set([...bucket, value]));
  }

  delete(key: K, value: V): void {
    const bucket = this.buckets.get(key);
    if (!bucket) return;
    if (Array.isArray(bucket)) {
      const at = bucket.indexOf(value);
      if (at >= 0) bucket.splice(at, 1);
      if (bucket.length === 0) this.buckets.delete(key);
    } else {
      bucket.delete(value);
      if (bucket.size === 0) this.buckets.delete(key);
    }
  }
}
