/**
 * kube's LRUExpireCache for webhook answers: at most `capacity` entries, each with its own
 * time to live; the least recently used entry goes first when full. Time comes from `now`
 * so tests can move it.
 */
export class ExpiringLruCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    // Re-inserting moves the entry to the most recently used end.
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores for `ttlMs`; a TTL of zero or less stores nothing (caching off). */
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
