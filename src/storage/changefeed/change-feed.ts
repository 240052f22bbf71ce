import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';
import { DEFAULT_WATCH_CACHE_SIZE_BYTES } from '../../config/options';
import { Change, LocalCommitListener, ObjectStore, RevisionCompactedError } from '../mvcc/object-store';

/**
 * Something that calls back when a writer committed (LISTEN/NOTIFY), with the revision when
 * it knows it; may miss calls.
 */
export interface WakeupSource {
  subscribe(onWake: (revision?: string) => void): Promise<() => Promise<void>>;
  /**
   * Every committed change wakes the feed (the embedded store: only this process can write to
   * it and its NOTIFY cannot be lost), so the log is never polled.
   */
  readonly complete?: boolean;
  /**
   * Wake-ups that arrive for every commit while their connection holds and that wake the feed
   * once more after reconnecting (PostgreSQL's LISTEN): the log is polled only this often, as a
   * guard, instead of every `pollIntervalMs`.
   */
  readonly guardPollIntervalMs?: number;
  /**
   * Which database server answers now (a PostgreSQL postmaster: its address and start time),
   * read at each poll. Where no listener reconnects after a failover (NOTIFYs cannot arrive
   * behind a pooler in transaction mode), a new answer is how the feed learns its reads may
   * come from another server, whose log may lack commits it delivered.
   */
  serverInstance?(): Promise<string>;
}

/**
 * A follower at the feed's head that is handed the changes as the head passes them: one call
 * per advance, in order, no wait, timer or promise per change (kube's cacher dispatching to
 * its watchers). A thousand watches of one kind then cost one loop per write.
 */
export interface ChangeSubscriber {
  /** The changes right after the last ones it was given (after its revision at first), oldest first. */
  next(changes: readonly Change[]): void;
  /**
   * The feed let go of it: it stopped, fell behind compaction and restarted from a newer
   * revision, or `next` threw (`err`). It is no longer subscribed and reads on by itself.
   */
  end(err?: unknown): void;
}

/** The notifier as the change feed subscribes to it: `subscribe(onWake)`. */
export const CHANGE_WAKEUPS = Symbol('CHANGE_WAKEUPS');

export interface ChangeFeedOptions {
  /** How often the log is polled even without a wake-up, so a missed NOTIFY costs at most this. */
  pollIntervalMs: number;
  /** How many recent changes are kept in memory for watchers to replay from... */
  windowSize: number;
  /** ...and how many bytes of memory they may take (estimated from each change's object and previous state as JSON). */
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
 * What a change held in the window costs in memory, estimated from its size as JSON: decoded
 * objects take 1.5 (RoleBindings) to 3.4 (Roles of many rules) bytes of heap per byte of their
 * JSON, measured. Counted as JSON, a window of 64 MiB held 130 MiB of heap after a fuzz wrote
 * Roles of 30,000 rules, and kept it after they were deleted.
 */
const HEAP_BYTES_PER_JSON_BYTE = 4;

const memoryOf = (change: Change) => change.bytes * HEAP_BYTES_PER_JSON_BYTE;

/**
 * After its connection to the store may have moved (a failed read, the listener connecting
 * again), the feed reads back what it delivered in this long before the check, and at least
 * its last RECHECK_MIN_CHANGES changes. The commits a failover can lose are the old primary's
 * last ones (with synchronous replication, those whose wait for the standby was cut short
 * when its postmaster died: visible there for a moment, never sent): they are the newest the
 * feed delivered from that server, followed at most by what it read from the new one before
 * the listener came back (a second's reconnect delay) or before a read failed.
 */
const RECHECK_WINDOW_MS = 30_000;
const RECHECK_MIN_CHANGES = 100;
/** Deliveries are timed in steps this long (the check reaches back to the start of the oldest step in its window). */
const RECENT_MARK_MS = 100;

/** An object as JSON with its keys sorted: the log's jsonb keeps no key order, so objects compare by content. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** The same content, whatever the order of keys (a stored object read back against the one written). */
export function sameContent(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** The same change: revision, type, key and object. */
function sameChange(a: Change, b: Change): boolean {
  return (
    a.revision === b.revision &&
    a.type === b.type &&
    a.key.resource === b.key.resource &&
    a.key.namespace === b.key.namespace &&
    a.key.name === b.key.name &&
    sameContent(a.object, b.object)
  );
}

/**
 * The store's log no longer holds changes the feed delivered (a failover lost their commits
 * and the new primary numbered other writes the same): whoever followed them lists again.
 */
export class HistoryRewrittenError extends Error {
  constructor(readonly revision: string) {
    super(`the change log no longer holds revision ${revision} as it was delivered (commits lost in a failover)`);
  }
}

/**
 * This process's view of the shared change log, and a window of recent changes that
 * watchers replay from. Every replica runs one, so all see the same changes in the same order.
 *
 * Its own writes come from the store as they commit (no read-back); writes of other
 * replicas are read from the log once a NOTIFY names a revision this process neither has
 * nor is committing, and (unless the wake-ups are complete) by a poll. Revisions are dense
 * (a failed write gives its number back), so the head only moves to the next revision: a
 * local change that commits past a gap waits until the log read fills the gap.
 */
export class ChangeFeed {
  private readonly logger = new Logger('ChangeFeed');
  private readonly options: ChangeFeedOptions;
  private window: Change[] = [];
  /** The window's changes as JSON... */
  private windowBytes = 0;
  /** ...and the memory they are estimated to take, which the window's bound is about. */
  private windowMemory = 0;
  private head = 0n;
  /** Local changes committed past the head, waiting for the revisions before them. */
  private readonly pending = new Map<bigint, Change>();
  /** Revisions local writes hold and have not committed yet (a count: a failed write's number is reused). */
  private readonly inflight = new Map<bigint, number>();
  /** The newest revision a local write committed (the head may not have reached it yet). */
  private lastCommitted = 0n;
  /** In-flight revisions a NOTIFY named: if the local write fails, someone else committed that number. */
  private readonly notifiedInflight = new Set<bigint>();
  private removeCommitListener: (() => void) | null = null;
  private readonly waiters = new Set<() => void>();
  private readonly subscribers = new Set<ChangeSubscriber>();
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;
  private stopped = false;
  private started = false;
  /** False from a failed read of the log until the next one succeeds (a store outage). */
  private following = true;
  /** When the read of the log under way began (performance.now()), null between reads: a read a pooler holds neither fails nor answers. */
  private readingSince: number | null = null;
  /** The connection may have moved to another server: what was delivered lately is checked before anything newer. */
  private recheck = false;
  /** Counts the reasons to check; one that comes during a check calls for another. */
  private suspicions = 0;
  /** When each batch entered the window (its first revision), for the last RECHECK_WINDOW_MS. */
  private recent: Array<{ first: bigint; at: number }> = [];
  /** How many times the log was found rewritten (followers that listed before list again). */
  private rewrites = 0;
  /** When the last checks began (Date.now()), newest last: a list shortly before one may hold lost commits. */
  private recheckStarts: number[] = [];
  /** The server the last poll found answering (see WakeupSource.serverInstance); null before the first. */
  private serverInstance: string | null = null;
  private readingServerInstance = false;
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
    // Listening before the head is read: a write committing meanwhile is either below it or taken.
    this.removeCommitListener = this.store.addCommitListener?.(this.localCommits) ?? null;
    // Before the head: a server change after this read is a change from the one the head came from.
    this.serverInstance = (await this.wakeups?.serverInstance?.().catch(() => null)) ?? null;
    this.head = BigInt(await this.store.currentRevision());
    this.takePending();
    if (this.wakeups) this.unsubscribe = await this.wakeups.subscribe((revision) => this.onWake(revision));
    this.started = true;
    if (this.wakeups?.complete) return;
    this.timer = setInterval(() => void this.poll(), this.wakeups?.guardPollIntervalMs ?? this.options.pollIntervalMs);
    this.timer.unref();
  }

  /** A poll: reads the log, after asking which server answers when the wake-ups can tell (a new one is suspected first). */
  private async poll(): Promise<void> {
    const ask = this.wakeups?.serverInstance;
    if (ask && !this.readingServerInstance) {
      this.readingServerInstance = true;
      try {
        const now = await ask.call(this.wakeups);
        if (this.serverInstance !== null && now !== this.serverInstance && !this.stopped) {
          this.logger.warn(`the store is answered by another server now (${now}, was ${this.serverInstance}): checking the changes delivered lately`);
          this.suspect();
        }
        this.serverInstance = now;
      } catch {
        // No answer: the log read fails too, and a failed read is suspected by itself.
      } finally {
        this.readingServerInstance = false;
      }
    }
    await this.poke();
  }

  isStarted(): boolean {
    return this.started;
  }

  /** Started and reading the log (false while the store does not answer). */
  hasSynced(): boolean {
    return this.started && this.following;
  }

  /**
   * Whether the store answers this feed now: its last read did not fail, and none has been
   * waiting longer than `withinMs` (behind a pooler, a read while there is no primary is held,
   * not refused).
   */
  readsAnswered(withinMs: number): boolean {
    return this.hasSynced() && (this.readingSince === null || performance.now() - this.readingSince <= withinMs);
  }

  /** A read of the log, timed for readsAnswered. */
  private async readLog(after: string): Promise<Change[]> {
    this.readingSince = performance.now();
    try {
      return await this.store.changesSince(after, this.options.batchSize, this.options.batchBytes);
    } finally {
      this.readingSince = null;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.removeCommitListener?.();
    if (this.timer) clearInterval(this.timer);
    if (this.unsubscribe) await this.unsubscribe();
    for (const wake of this.waiters) wake();
    this.waiters.clear();
    this.endSubscribers();
  }

  /** The newest revision this process has read from the log. */
  headRevision(): string {
    return this.head.toString();
  }

  /**
   * The newest revision committed as far as this process knows: its own last commit or the
   * head, whichever is newer. The store's current revision when this process is its only writer.
   */
  committedRevision(): bigint {
    return this.lastCommitted > this.head ? this.lastCommitted : this.head;
  }

  /** The commits of this process's writes, straight from the store. */
  private readonly localCommits: LocalCommitListener = {
    committing: (revision) => {
      const r = BigInt(revision);
      this.inflight.set(r, (this.inflight.get(r) ?? 0) + 1);
    },
    committed: (change) => {
      const revision = BigInt(change.revision);
      if (revision > this.lastCommitted) this.lastCommitted = revision;
      this.settle(revision);
      if (this.stopped) return;
      if (revision <= this.head) {
        // Delivered already from the log: as this write, unless the number went to a write that was lost.
        const delivered = this.window.length && revision >= BigInt(this.window[0].revision) ? this.window[this.indexAfter(revision - 1n)] : undefined;
        if (delivered && delivered.revision === change.revision && !this.sameIdentity(delivered, change)) this.suspect();
        return;
      }
      this.pending.set(BigInt(change.revision), change);
      this.takePending();
    },
    abandoned: (revision) => {
      // Only if a NOTIFY named the number meanwhile did some writer commit it: read the log then.
      if (this.settle(BigInt(revision))) void this.poke();
    },
  };

  /** Ends one local write's hold of `revision`; answers whether a NOTIFY named it meanwhile. */
  private settle(revision: bigint): boolean {
    const holders = (this.inflight.get(revision) ?? 1) - 1;
    if (holders > 0) {
      this.inflight.set(revision, holders);
      return this.notifiedInflight.has(revision);
    }
    this.inflight.delete(revision);
    return this.notifiedInflight.delete(revision);
  }

  /** Same revision, type, key and uid (the cheap look at a local commit; the recheck compares objects). */
  private sameIdentity(a: Change, b: Change): boolean {
    return (
      a.type === b.type &&
      a.key.resource === b.key.resource &&
      a.key.namespace === b.key.namespace &&
      a.key.name === b.key.name &&
      a.object.metadata?.uid === b.object.metadata?.uid
    );
  }

  /** The store may be another server now: check what was delivered lately before reading on. */
  private suspect(): void {
    this.recheck = true;
    this.suspicions++;
    void this.poke();
  }

  /**
   * A NOTIFY: the log is read unless the revision is one this process has or is committing
   * itself. One without a revision comes when the listener connected again, maybe to another
   * server: the recent history is checked first.
   */
  private onWake(revision?: string): void {
    if (!revision) return this.suspect();
    if (/^[0-9]+$/.test(revision)) {
      const r = BigInt(revision);
      if (r <= this.head || this.pending.has(r)) return;
      if (this.inflight.has(r)) {
        this.notifiedInflight.add(r);
        return;
      }
    }
    void this.poke();
  }

  /** Moves the head over the local changes that follow it, and drops those the log already gave. */
  private takePending(): void {
    if (this.pending.size === 0) return;
    // Nothing newer is delivered before the recent history is checked (the pump takes them after).
    if (this.recheck) return void this.poke();
    const taken: Change[] = [];
    for (let next = this.pending.get(this.head + 1n); next; next = this.pending.get(this.head + 1n)) {
      this.pending.delete(this.head + 1n);
      taken.push(next);
      this.head++;
    }
    for (const r of this.pending.keys()) if (r <= this.head) this.pending.delete(r);
    if (taken.length === 0) return;
    this.remember(taken);
    this.publish(taken);
    this.wakeWaiters();
  }

  private wakeWaiters(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  /**
   * A local write returned `revision`: read the log only if the change did not arrive with the
   * commit (a store without commit listeners).
   */
  wrote(revision: string): void {
    if (BigInt(revision) > this.head && !this.pending.has(BigInt(revision))) void this.poke();
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
      if (this.recheck) {
        const asked = this.suspicions;
        this.recheckStarts.push(Date.now());
        if (this.recheckStarts.length > 16) this.recheckStarts.shift();
        // Followers that listed lately look again (see listMayHoldLostCommits).
        this.wakeWaiters();
        const lost = await this.rewrittenRevision();
        if (lost !== null) this.historyRewritten(lost);
        // Suspected again meanwhile (the connection moved once more): check again first.
        if (asked !== this.suspicions) return;
        this.recheck = false;
        this.takePending();
      }
      for (;;) {
        const batch = await this.readLog(this.head.toString());
        if (!this.following) this.logger.log('reading the change log again');
        this.following = true;
        if (batch.length === 0) return;
        // Local commits may have moved the head while the log was read: only what follows it is new.
        const fresh = batch.filter((change) => BigInt(change.revision) > this.head);
        if (fresh.length > 0) {
          this.remember(fresh);
          this.head = BigInt(fresh[fresh.length - 1].revision);
          this.publish(fresh);
          this.wakeWaiters();
        }
        this.takePending();
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
        this.windowMemory = 0;
        this.recent = [];
        // Subscribers at the old head would miss what lies between: they read on by themselves (and find their gap).
        this.endSubscribers();
        this.head = BigInt(await this.store.currentRevision());
        this.takePending();
        // Followers waiting at the old head must look again (and find their gap).
        this.wakeWaiters();
        return;
      }
      if (this.stopped) return;
      // Logged once per outage; the poll retries until the store answers again.
      if (this.following) this.logger.error(`reading the change log failed: ${(err as Error).message}`);
      this.following = false;
      // The next read may reach another server (a failover).
      this.recheck = true;
    }
  }

  /**
   * Reads back the changes delivered lately (see RECHECK_WINDOW_MS) and answers the first
   * revision the log no longer holds as it was delivered, or null when it holds them all.
   * When even the oldest of them differs, the whole window is checked.
   */
  private async rewrittenRevision(): Promise<string | null> {
    const since = Date.now() - RECHECK_WINDOW_MS;
    this.recent = this.recent.filter((mark) => mark.at >= since);
    let from = Math.max(0, this.window.length - RECHECK_MIN_CHANGES);
    if (this.recent.length) from = Math.min(from, this.indexAfter(this.recent[0].first - 1n));
    const lost = await this.firstDifference(this.window.slice(from));
    if (lost === null || from === 0 || lost !== this.window[from]?.revision) return lost;
    return this.firstDifference(this.window.slice(0, from + 1));
  }

  /** The first revision where the log and `delivered` (consecutive changes of the window) differ, if any. */
  private async firstDifference(delivered: readonly Change[]): Promise<string | null> {
    if (delivered.length === 0) return null;
    const last = BigInt(delivered[delivered.length - 1].revision);
    let after = BigInt(delivered[0].revision) - 1n;
    let next = 0;
    while (after < last) {
      const batch = await this.readLog(after.toString());
      for (const stored of batch) {
        if (BigInt(stored.revision) > last) break;
        if (next >= delivered.length) return stored.revision;
        const mine = delivered[next];
        // The log has a change the feed did not deliver, or lacks or changed one it did.
        if (!sameChange(mine, stored)) return BigInt(mine.revision) < BigInt(stored.revision) ? mine.revision : stored.revision;
        next++;
      }
      if (batch.length === 0) break;
      after = BigInt(batch[batch.length - 1].revision);
    }
    return next < delivered.length ? delivered[next].revision : null;
  }

  /**
   * The log lost changes this feed delivered, from `revision` on: every watch ends (410, see
   * onHistoryRewritten), followers list again, and the feed drops them and reads the log on
   * from the revision before (what the new primary holds there is the history now). Runs in
   * the pump, in one step, so nothing newer is delivered before.
   */
  private historyRewritten(revision: string): void {
    this.logger.warn(
      `the change log no longer holds revision ${revision} as this process delivered it (commits lost in a failover): watches end with 410 Gone and informers list again`,
    );
    this.rewrites++;
    this.onHistoryRewritten(new HistoryRewrittenError(revision));
    this.endSubscribers();
    const first = BigInt(revision);
    for (const dropped of this.window.splice(this.indexAfter(first - 1n))) {
      this.windowBytes -= dropped.bytes;
      this.windowMemory -= memoryOf(dropped);
    }
    this.recent = [];
    if (this.head >= first) this.head = first - 1n;
    this.wakeWaiters();
  }

  /** How many times the log was found rewritten; a follower that listed before a rewrite lists again. */
  historyRewrites(): number {
    return this.rewrites;
  }

  /**
   * Whether a list begun at `listedAt` (Date.now()) may hold commits a failover lost: the feed
   * checked its history during it or within RECHECK_WINDOW_MS after (its connection may have
   * moved since). The feed cannot check a list's answer, so its follower lists again.
   */
  listMayHoldLostCommits(listedAt: number): boolean {
    const last = this.recheckStarts[this.recheckStarts.length - 1];
    if (last === undefined || last < listedAt) return false;
    return this.recheckStarts.some((at) => at >= listedAt && at <= listedAt + RECHECK_WINDOW_MS);
  }

  /** Ends what depends on the delivered history, before anything newer is delivered (the service ends its watches). */
  protected onHistoryRewritten(_err: HistoryRewrittenError): void {}

  /**
   * Adds changes to the window and drops the oldest beyond its bounds (count and bytes);
   * the newest change always stays, so watchers at the head are served from memory.
   */
  private remember(batch: Change[]): void {
    if (batch.length) {
      const now = Date.now();
      // One mark per RECENT_MARK_MS (its first revision): a few hundred marks, however many writes.
      const newest = this.recent[this.recent.length - 1];
      if (!newest || newest.at <= now - RECENT_MARK_MS) this.recent.push({ first: BigInt(batch[0].revision), at: now });
      while (this.recent[0].at < now - RECHECK_WINDOW_MS) this.recent.shift();
    }
    for (const change of batch) {
      this.window.push(change);
      this.windowBytes += change.bytes;
      this.windowMemory += memoryOf(change);
    }
    let drop = 0;
    while (
      drop < this.window.length - 1 &&
      (this.window.length - drop > this.options.windowSize || this.windowMemory > this.options.windowBytes)
    ) {
      this.windowBytes -= this.window[drop].bytes;
      this.windowMemory -= memoryOf(this.window[drop]);
      drop++;
    }
    if (drop) this.window.splice(0, drop);
  }

  /** What the window holds now, its size as JSON (a figure for benchmarks and tests). */
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

  /**
   * Hands `subscriber` every change after `revision` as the head passes it, if `revision` is
   * the head (a follower that has caught up); returns null otherwise (it reads changesAfter
   * first). The returned function ends the subscription.
   */
  subscribe(revision: string, subscriber: ChangeSubscriber): (() => void) | null {
    if (this.stopped || revision !== this.head.toString()) return null;
    this.subscribers.add(subscriber);
    return () => {
      this.subscribers.delete(subscriber);
    };
  }

  /** How many followers are subscribed (a figure for tests: ended watches leave none). */
  subscribed(): number {
    return this.subscribers.size;
  }

  private publish(changes: readonly Change[]): void {
    for (const subscriber of this.subscribers) {
      try {
        subscriber.next(changes);
      } catch (err) {
        this.subscribers.delete(subscriber);
        subscriber.end(err);
      }
    }
  }

  private endSubscribers(): void {
    const ended = [...this.subscribers];
    this.subscribers.clear();
    for (const subscriber of ended) subscriber.end();
  }

  /** How many callers wait for a newer revision (a figure for tests: aborted waits leave none). */
  waiting(): number {
    return this.waiters.size;
  }

  /** Waits until this process has seen `revision` (for "not older than" reads). */
  async waitForRevision(revision: string, timeoutMs: number): Promise<boolean> {
    const target = BigInt(revision);
    const deadline = Date.now() + timeoutMs;
    if (this.head < target) await this.poke();
    while (this.head < target) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await this.waitForNewer((target - 1n).toString(), Math.min(left, this.options.pollIntervalMs));
      if (this.head < target) await this.poke();
    }
    return true;
  }
}
