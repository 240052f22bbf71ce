import { Logger } from '@nestjs/common';
import { DEFAULT_WATCH_CACHE_SIZE_BYTES } from '../config/options';
import { Change, ObjectStore, RevisionCompactedError } from './object-store';

/** Something that calls back when another writer committed (LISTEN/NOTIFY); may miss calls. */
export interface WakeupSource {
  subscribe(onWake: () => void): Promise<() => Promise<void>>;
  /**
   * Every committed change wakes the feed (the embedded store: only this process can write to
   * it and its NOTIFY cannot be lost), so the log is never polled.
   */
  readonly complete?: boolean;
}

/** The notifier as the change feed subscribes to it: `subscribe(onWake)`. */
export const CHANGE_WAKEUPS = Symbol('CHANGE_WAKEUPS');

export interface ChangeFeedOptions {
  /** How often the log is polled even without a wake-up, so a missed NOTIFY costs at most this. */
  pollIntervalMs: number;
  /** How many recent changes are kept in memory for watchers to replay from... */
  windowSize: number;
  /** ...and how many bytes of them (each change's object and previous state as JSON). */
  windowBytes: number;
  /** Rows read from the log per query... */
  batchSize: number;
  /** ...and bytes of objects (a large object still comes alone). */
  batchBytes: number;
}

const DEFAULTS: ChangeFeedOptions = {
  pollIntervalMs: 500,
  windowSize: 20000,
  windowBytes: DEFAULT_WATCH_CACHE_SIZE_BYTES,
  batchSize: 1000,
  batchBytes: 8 * 1024 * 1024,
};

/**
 * This process's view of the shared change log: tails it from the last revision seen,
 * woken by NOTIFY and (unless the wake-ups are complete) by a poll, and keeps a window of recent changes that watchers
 * replay from. Every replica runs one, so all see the same changes in the same order.
 */
export class ChangeFeed {
  private readonly logger = new Logger('ChangeFeed');
  private readonly options: ChangeFeedOptions;
  private window: Change[] = [];
  private windowBytes = 0;
  private head = 0n;
  private readonly waiters = new Set<() => void>();
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;
  private stopped = false;
  private started = false;
  /** False from a failed read of the log until the next one succeeds (a store outage). */
  private following = true;
  /** The informer-sync check's name for the feed. */
  readonly name = 'change-feed';

  constructor(
    private readonly store: ObjectStore,
    private readonly wakeups: WakeupSource | null,
    options: Partial<ChangeFeedOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  async start(): Promise<void> {
    this.head = BigInt(await this.store.currentRevision());
    if (this.wakeups) this.unsubscribe = await this.wakeups.subscribe(() => this.poke());
    if (this.wakeups?.complete) return;
    this.timer = setInterval(() => this.poke(), this.options.pollIntervalMs);
    this.timer.unref();
    this.started = true;
  }

  isStarted(): boolean {
    return this.started;
  }

  /** Started and reading the log (false while the store does not answer). */
  hasSynced(): boolean {
    return this.started && this.following;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.unsubscribe) await this.unsubscribe();
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /** The newest revision this process has read from the log. */
  headRevision(): string {
    return this.head.toString();
  }

  /** Reads the log now (after a local write, or when a client names a newer revision). */
  poke(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
      if (this.pumpAgain) {
        this.pumpAgain = false;
        void this.poke();
      }
    });
    return this.pumping;
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        const batch = await this.store.changesSince(this.head.toString(), this.options.batchSize, this.options.batchBytes);
        if (!this.following) this.logger.log('reading the change log again');
        this.following = true;
        if (batch.length === 0) return;
        this.remember(batch);
        this.head = BigInt(batch[batch.length - 1].revision);
        const waiters = [...this.waiters];
        this.waiters.clear();
        for (const wake of waiters) wake();
        // A short batch is the end of the log unless the byte budget cut it (sizes are counted
        // in UTF-16 units here and in UTF-8 bytes by the store: at most three bytes a unit).
        const units = batch.reduce((sum, c) => sum + c.bytes, 0);
        if (batch.length < this.options.batchSize && units * 3 < this.options.batchBytes) return;
      }
    } catch (err) {
      if (err instanceof RevisionCompactedError) {
        // This process fell behind the history window: restart from the newest revision.
        this.logger.warn(`change feed fell behind compaction; resetting to the current revision`);
        this.window = [];
        this.windowBytes = 0;
        this.head = BigInt(await this.store.currentRevision());
        // Followers waiting at the old head must look again (and find their gap).
        const waiters = [...this.waiters];
        this.waiters.clear();
        for (const wake of waiters) wake();
        return;
      }
      if (this.stopped) return;
      // Logged once per outage; the poll retries until the store answers again.
      if (this.following) this.logger.error(`reading the change log failed: ${(err as Error).message}`);
      this.following = false;
    }
  }

  /**
   * Adds changes to the window and drops the oldest beyond its bounds (count and bytes);
   * the newest change always stays, so watchers at the head are served from memory.
   */
  private remember(batch: Change[]): void {
    for (const change of batch) {
      this.window.push(change);
      this.windowBytes += change.bytes;
    }
    let drop = 0;
    while (
      drop < this.window.length - 1 &&
      (this.window.length - drop > this.options.windowSize || this.windowBytes > this.options.windowBytes)
    ) {
      this.windowBytes -= this.window[drop].bytes;
      drop++;
    }
    if (drop) this.window.splice(0, drop);
  }

  /** What the window holds now (a figure for benchmarks and tests). */
  windowStats(): { changes: number; bytes: number; oldestRevision: string | null } {
    return { changes: this.window.length, bytes: this.windowBytes, oldestRevision: this.window[0]?.revision ?? null };
  }

  /**
   * Changes after `revision`, oldest first, at most `limit`: from memory when the window
   * covers it, else from the log (a batch bounded in bytes too). Throws
   * RevisionCompactedError when history is gone.
   */
  async changesAfter(revision: string, limit: number): Promise<Change[]> {
    const after = BigInt(revision);
    if (after >= this.head) return [];
    const oldest = this.window.length ? BigInt(this.window[0].revision) : null;
    if (oldest !== null && after >= oldest - 1n) {
      const start = this.indexAfter(after);
      return this.window.slice(start, start + limit);
    }
    const fromLog = await this.store.changesSince(revision, limit, this.options.batchBytes);
    return fromLog.filter((c) => BigInt(c.revision) <= this.head);
  }

  private indexAfter(after: bigint): number {
    let lo = 0;
    let hi = this.window.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (BigInt(this.window[mid].revision) <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Resolves when the head passes `revision`, or after `timeoutMs` or when `signal` aborts
   * (false then); an abort lets go of the waiter at once.
   */
  waitForNewer(revision: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.head > BigInt(revision)) return Promise.resolve(true);
    if (this.stopped || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const settle = (newer: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        signal?.removeEventListener('abort', abort);
        resolve(newer);
      };
      const wake = () => settle(this.head > BigInt(revision));
      const abort = () => settle(false);
      const timer = setTimeout(abort, timeoutMs);
      signal?.addEventListener('abort', abort, { once: true });
      this.waiters.add(wake);
    });
  }

  /** How many callers wait for a newer revision (a figure for tests: aborted waits leave none). */
  waiting(): number {
    return this.waiters.size;
  }

  /** Waits until this process has seen `revision` (for "not older than" reads). */
  async waitForRevision(revision: string, timeoutMs: number): Promise<boolean> {
    const target = BigInt(revision);
    const deadline = Date.now() + timeoutMs;
    await this.poke();
    while (this.head < target) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await this.waitForNewer((target - 1n).toString(), Math.min(left, this.options.pollIntervalMs));
      if (this.head < target) await this.poke();
    }
    return true;
  }
}
