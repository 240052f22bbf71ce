import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { ChangeFeed } from '../../storage/change-feed';
import { ChangeFeedService } from '../../storage/change-feed.service';
import { KubeObject } from '../../apimachinery/types';
import { Change, OBJECT_STORE, ObjectStore, RevisionCompactedError } from '../../storage/object-store';
import { isRbacResource, PolicyIndex, RBAC_RESOURCES, RbacResource } from './policy-index';

/** Changes applied per read of the feed. */
const FEED_BATCH = 1000;
/**
 * How long one wait for new changes lasts before the loop looks again (the feed may reset
 * without waking its waiters when it falls behind compaction).
 */
const WAIT_MS = 1000;
/** Pause after a failed read, so a database outage does not spin. */
const RETRY_MS = 1000;

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
  });

/**
 * The RBAC policy index of this process, kept current like a kube informer: a list of the
 * four RBAC resources, then every change from the shared change feed (which tails the
 * MVCC log, so writes made through other replicas arrive within the feed's poll interval).
 * A relist replaces everything when the feed can no longer replay from where the index is.
 *
 * Readers (the RBAC authorizer, escalation checks, the aggregation controller) call
 * `ready()` first: it starts the informer on first use and resolves once the initial
 * list is in, so nothing answers from an empty index.
 */
@Injectable()
export class RbacIndex extends PolicyIndex implements BeforeApplicationShutdown {
  private readonly log = new Logger('RbacIndex');
  private started: Promise<void> | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  /** Ends the loop's current wait at once (shutdown). */
  private interrupt: (() => void) | null = null;
  /** Per resource, the revision its last list reflects: older changes are already in. */
  private listedAt = new Map<RbacResource, bigint>();
  /** The feed position: every change up to it has been applied. */
  private cursor = 0n;
  private readonly revisionWaiters = new Set<() => void>();

  constructor(
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    // The process's feed; typed as the plain ChangeFeed so tests can hand in their own.
    @Inject(ChangeFeedService) private readonly feed: ChangeFeed,
  ) {
    super();
  }

  /** Resolves once the index holds the initial list (starting the informer if needed). */
  ready(): Promise<void> {
    this.started ??= this.relist().then(
      () => {
        this.loop = this.follow();
      },
      (err) => {
        this.started = null; // the next reader tries again
        throw err;
      },
    );
    return this.started;
  }

  /** Some reader started the informer (the initial list is being or was read). */
  isStarted(): boolean {
    return this.started !== null;
  }

  /** The initial list is in and the index follows the change feed. */
  hasSynced(): boolean {
    return this.loop !== null && !this.stopped;
  }

  /** The revision up to which every RBAC change is in the index. */
  syncedRevision(): string {
    return this.cursor.toString();
  }

  /** Waits until the index has applied every change up to `revision` (false on timeout). */
  async waitForRevision(revision: string, timeoutMs: number): Promise<boolean> {
    await this.ready();
    const target = BigInt(revision);
    const deadline = Date.now() + timeoutMs;
    void this.feed.poke();
    while (this.cursor < target) {
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

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.interrupt?.();
    for (const wake of [...this.revisionWaiters]) wake();
    await this.started?.catch(() => undefined);
    await this.loop;
  }

  /**
   * Lists the four resources and swaps them in. Each list is one statement (one snapshot);
   * they may be at different revisions, which `listedAt` accounts for when changes follow.
   */
  private async relist(): Promise<void> {
    const lists: Array<{ resource: RbacResource; items: KubeObject[] }> = [];
    const listedAt = new Map<RbacResource, bigint>();
    for (const resource of RBAC_RESOURCES) {
      const list = await this.store.list(resource);
      lists.push({ resource, items: list.items.map((item) => item.object) });
      listedAt.set(resource, BigInt(list.revision));
    }
    this.replaceAll(lists);
    this.listedAt = listedAt;
    this.cursor = [...listedAt.values()].reduce((min, r) => (r < min ? r : min));
    this.wakeRevisionWaiters();
  }

  /** Applies the feed's changes as they come, until shutdown. */
  private async follow(): Promise<void> {
    while (!this.stopped) {
      try {
        const changes = await this.feed.changesAfter(this.cursor.toString(), FEED_BATCH);
        if (changes.length > 0) {
          for (const change of changes) this.apply(change);
          this.cursor = BigInt(changes[changes.length - 1].revision);
          this.wakeRevisionWaiters();
          continue;
        }
        const started = Date.now();
        const newer = await this.interruptible(this.feed.waitForNewer(this.cursor.toString(), WAIT_MS), false);
        // A stopped feed answers at once: do not spin on it.
        if (!newer && !this.stopped && Date.now() - started < WAIT_MS / 2) await this.interruptible(sleep(RETRY_MS), undefined);
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof RevisionCompactedError) {
          this.log.warn('the RBAC index fell behind the change history; listing again');
          await this.relist().catch((e) => this.log.error(`relisting RBAC objects failed: ${(e as Error).message}`));
        } else {
          this.log.error(`following RBAC changes failed: ${(err as Error).message}`);
        }
        await this.interruptible(sleep(RETRY_MS), undefined);
      }
    }
  }

  /** Waits for `wait`, or answers `onInterrupt` as soon as shutdown begins. */
  private interruptible<T>(wait: Promise<T>, onInterrupt: T): Promise<T> {
    if (this.stopped) return Promise.resolve(onInterrupt);
    return new Promise<T>((resolve) => {
      this.interrupt = () => resolve(onInterrupt);
      wait.then(resolve, () => resolve(onInterrupt));
    }).finally(() => (this.interrupt = null));
  }

  private apply(change: Change): void {
    const { resource, namespace, name } = change.key;
    if (!isRbacResource(resource)) return;
    // The list of this resource already reflects changes up to its revision.
    if (BigInt(change.revision) <= (this.listedAt.get(resource) ?? 0n)) return;
    if (change.type === 'DELETED') this.remove(resource, namespace, name, change.object);
    else this.upsert(resource, change.object);
  }

  private wakeRevisionWaiters(): void {
    for (const wake of [...this.revisionWaiters]) wake();
  }
}
