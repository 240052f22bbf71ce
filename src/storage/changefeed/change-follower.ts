import { Logger } from '@nestjs/common';
import { ChangeFeed } from './change-feed';
import { abortableSleep } from '../leader/leader-election';
import { Change, RevisionCompactedError } from '../mvcc/object-store';

export interface ChangeFollowerOptions {
  /** Names the follower in log lines. */
  name: string;
  /** Changes taken from the feed at a time. */
  batchSize?: number;
  /** An idle follower looks at the feed at least this often (the feed wakes it on every change). */
  idleWakeMs?: number;
  /** Pause after a failure, so an unreachable store does not spin. */
  retryMs?: number;
}

/**
 * What a follower does with the feed: `apply` takes each batch in revision order; `resync`
 * runs when the feed can no longer replay from the follower's position (history compacted,
 * kube's 410) and answers the revision the follower continues from.
 */
export interface ChangeSink {
  apply(changes: readonly Change[]): void | Promise<void>;
  resync(): Promise<string>;
}

/** A follower that keeps listing again within this long of its last relist says so at debug level. */
const RELIST_LOG_EVERY_MS = 30_000;

/**
 * Follows the process's change feed from a revision: every change after it reaches the sink
 * once, in order, batch by batch, until stop. It is the watch half of an informer (the list
 * half is the sink's resync); consumers that only need to react to changes use it alone.
 */
export class ChangeFollower {
  private readonly logger: Logger;
  private readonly batchSize: number;
  private readonly idleWakeMs: number;
  private readonly retryMs: number;
  private cursor = 0n;
  private loop: Promise<void> | null = null;
  /** Feed reads run one at a time: the loop and catch-ups share this chain. */
  private updating: Promise<void> = Promise.resolve();
  private readonly stopping = new AbortController();
  private readonly revisionWaiters = new Set<() => void>();
  /** The feed's count of history rewrites when the sink last listed (or started): a newer count makes it list again. */
  private rewritesSeen: number;
  /** When the sink's last list began (Date.now()); undefined before its first through this follower. */
  private listedAt?: number;
  /** Found outdated until the sink lists again (see outdated). */
  private relistNeeded = false;
  /** When a relist was last logged (Date.now()); 0 before any. */
  private relistLoggedAt = 0;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly sink: ChangeSink,
    options: ChangeFollowerOptions,
  ) {
    this.logger = new Logger(options.name);
    this.batchSize = options.batchSize ?? 500;
    this.idleWakeMs = options.idleWakeMs ?? 5000;
    this.retryMs = options.retryMs ?? 1000;
    this.rewritesSeen = feed.historyRewrites();
  }

  /** Starts following after `revision` (once); `listedAt`: when the sink's list of it began. */
  start(revision: string, listedAt?: number): void {
    this.listedAt = listedAt;
    if (this.loop || this.stopped) return;
    this.cursor = BigInt(revision);
    this.loop = this.follow();
  }

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Every change up to this revision has reached the sink. */
  revision(): string {
    return this.appliedRevision().toString();
  }

  /**
   * revision() as a number, for comparisons made on every decision. 0 from the moment the
   * feed found the history the sink was given rewritten (a failover lost commits) until the
   * sink has listed again: what it holds may be writes the store never kept.
   */
  appliedRevision(): bigint {
    return this.outdated() ? 0n : this.cursor;
  }

  /**
   * The feed found its delivered history rewritten since the sink last listed, or the list
   * itself may hold commits a failover lost (it ran just before the feed's connection moved).
   */
  outdated(): boolean {
    if (this.relistNeeded) return true;
    if (this.rewritesSeen !== this.feed.historyRewrites() || (this.listedAt !== undefined && this.feed.listMayHoldLostCommits(this.listedAt))) {
      this.relistNeeded = true;
    }
    return this.relistNeeded;
  }

  /** Moves the position without replaying (the sink listed afresh at `revision`). */
  resetTo(revision: string): void {
    this.cursor = BigInt(revision);
    this.wakeRevisionWaiters();
  }

  /**
   * Applies what the feed has already read and the sink has not, now: a reader right after
   * a write this process has seen sees that write.
   */
  catchUp(): Promise<void> {
    if (!this.loop || (!this.outdated() && BigInt(this.feed.headRevision()) <= this.cursor)) return this.updating;
    return this.serialized(() => this.drain());
  }

  /** Waits until every change up to `revision` reached the sink; false on timeout or stop. */
  async waitForRevision(revision: string, timeoutMs: number): Promise<boolean> {
    const target = BigInt(revision);
    const deadline = Date.now() + timeoutMs;
    // The feed reads the log only when it is behind too (it has every local write already).
    if (BigInt(this.feed.headRevision()) < target) void this.feed.poke();
    while (this.appliedRevision() < target) {
      const left = deadline - Date.now();
      if (left <= 0 || this.stopped) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.revisionWaiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(left, 100));
        this.revisionWaiters.add(wake);
      });
    }
    return true;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.wakeRevisionWaiters();
    await this.loop;
  }

  private serialized(work: () => Promise<void>): Promise<void> {
    const next = this.updating.then(work);
    this.updating = next.catch(() => undefined);
    return next;
  }

  private async follow(): Promise<void> {
    const signal = this.stopping.signal;
    while (!this.stopped) {
      try {
        await this.serialized(() => this.drain());
      } catch (err) {
        if (this.stopped) return;
        this.logger.error(`following changes failed: ${(err as Error).message}`);
        await abortableSleep(this.retryMs, signal);
        continue;
      }
      if (this.stopped) return;
      const began = Date.now();
      const newer = await this.feed.waitForNewer(this.cursor.toString(), this.idleWakeMs, signal);
      // A stopped feed answers at once: do not spin on it.
      if (!newer && !this.stopped && !this.outdated() && Date.now() - began < this.idleWakeMs / 2) await abortableSleep(this.retryMs, signal);
    }
  }

  /** Hands the sink every change the feed has after the cursor; resyncs when history is gone. */
  private async drain(): Promise<void> {
    while (!this.stopped) {
      let changes: Change[];
      if (this.outdated()) {
        // Said once per failover: while it lasts, every check of the feed's history lists again.
        const now = Date.now();
        if (now - this.relistLoggedAt > RELIST_LOG_EVERY_MS) this.logger.warn('the change history it was given was rewritten (a failover lost commits); listing again');
        else this.logger.debug('the change history it was given may have been rewritten again; listing again');
        this.relistLoggedAt = now;
        await this.relist();
        continue;
      }
      // Every change up to the head the feed had before this read is in what it answers.
      const head = BigInt(this.feed.headRevision());
      try {
        changes = await this.feed.changesAfter(this.cursor.toString(), this.batchSize);
      } catch (err) {
        if (!(err instanceof RevisionCompactedError)) throw err;
        this.logger.warn('fell behind the change history; listing again');
        await this.relist();
        continue;
      }
      // Read from a history rewritten meanwhile: not applied (the next round lists).
      if (this.outdated()) continue;
      if (changes.length === 0) {
        // Nothing after the cursor up to that head (revisions of failed writes carry no change):
        // the sink is current through it, so a reader waiting for such a revision goes on.
        if (head > this.cursor) {
          this.cursor = head;
          this.wakeRevisionWaiters();
        }
        return;
      }
      await this.sink.apply(changes);
      this.cursor = BigInt(changes[changes.length - 1].revision);
      this.wakeRevisionWaiters();
    }
  }

  /** The sink lists afresh; a rewrite found while it lists makes it list once more. */
  private async relist(): Promise<void> {
    const rewrites = this.feed.historyRewrites();
    const listedAt = Date.now();
    const revision = await this.sink.resync();
    this.rewritesSeen = rewrites;
    this.listedAt = listedAt;
    this.relistNeeded = false;
    this.resetTo(revision);
  }

  private wakeRevisionWaiters(): void {
    for (const wake of [...this.revisionWaiters]) wake();
  }
}
