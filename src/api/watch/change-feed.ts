import { Logger } from '@nestjs/common';
import { Change, ObjectStore, RevisionCompactedError } from '../../storage/object-store';

/** Something that calls back when another writer committed (LISTEN/NOTIFY); may miss calls. */
export interface WakeupSource {
  subscribe(onWake: () => void): Promise<() => Promise<void>>;
}

export interface ChangeFeedOptions {
  /** How often the log is polled even without a wake-up, so a missed NOTIFY costs at most this. */
  pollIntervalMs: number;
  /** How many recent changes are kept in memory for watchers to replay from. */
  windowSize: number;
  /** Rows read from the log per query. */
  batchSize: number;
}

const DEFAULTS: ChangeFeedOptions = { pollIntervalMs: 500, windowSize: 20000, batchSize: 1000 };

/**
 * This process's view of the shared change log: tails it from the last revision seen,
 * woken by NOTIFY and by a poll, and keeps a window of recent changes that watchers
 * replay from. Every replica runs one, so all see the same changes in the same order.
 */
export class ChangeFeed {
  private readonly logger = new Logger('ChangeFeed');
  private readonly options: ChangeFeedOptions;
  private window: Change[] = [];
  private head = 0n;
  private readonly waiters = new Set<() => void>();
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;
  private stopped = false;

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
    this.timer = setInterval(() => this.poke(), this.options.pollIntervalMs);
    this.timer.unref();
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
        const batch = await this.store.changesSince(this.head.toString(), this.options.batchSize);
        if (batch.length === 0) return;
        this.window.push(...batch);
        if (this.window.length > this.options.windowSize) this.window = this.window.slice(this.window.length - this.options.windowSize);
        this.head = BigInt(batch[batch.length - 1].revision);
        const waiters = [...this.waiters];
        this.waiters.clear();
        for (const wake of waiters) wake();
        if (batch.length < this.options.batchSize) return;
      }
    } catch (err) {
      if (err instanceof RevisionCompactedError) {
        // This process fell behind the history window: restart from the newest revision.
        this.logger.warn(`change feed fell behind compaction; resetting to the current revision`);
        this.window = [];
        this.head = BigInt(await this.store.currentRevision());
        return;
      }
      if (!this.stopped) this.logger.error(`reading the change log failed: ${(err as Error).message}`);
    }
  }

  /**
   * Changes after `revision`, oldest first, at most `limit`: from memory when the window
   * covers it, else from the log. Throws RevisionCompactedError when history is gone.
   */
  async changesAfter(revision: string, limit: number): Promise<Change[]> {
    const after = BigInt(revision);
    if (after >= this.head) return [];
    const oldest = this.window.length ? BigInt(this.window[0].revision) : null;
    if (oldest !== null && after >= oldest - 1n) {
      const start = this.indexAfter(after);
      return this.window.slice(start, start + limit);
    }
    const fromLog = await this.store.changesSince(revision, limit);
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

  /** Resolves when the head passes `revision`, or after `timeoutMs` (false then). */
  waitForNewer(revision: string, timeoutMs: number): Promise<boolean> {
    if (this.head > BigInt(revision)) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(this.head > BigInt(revision));
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(wake);
    });
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
