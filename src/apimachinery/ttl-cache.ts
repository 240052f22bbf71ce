import { Clock, systemClock } from './clock';

/**
 * Values kept for a time to live each, at most `capacity` of them, as kube's LRUExpireCache:
 * the least recently used entry goes first when full. An entry is gone from the instant it
 * expires; a time to live of zero or less stores nothing (caching off). Time comes from the
 * injected clock, so tests move it instead of waiting.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly capacity: number,
    private readonly clock: Clock = systemClock,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.clock.now()) return undefined;
    // Re-inserting moves the entry to the most recently used end.
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores for `ttlMs`; a TTL of zero or less stores nothing. */
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expiresAt: this.clock.now() + ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
