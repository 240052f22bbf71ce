import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { KubeObject } from '../../apimachinery/types';
import { Informer } from '../informer/informer';
import {
  Change,
  ListResult,
  LocalCommitListener,
  ObjectKey,
  ObjectStore,
  RevisionCompactedError,
  StoredObject,
  StoreGetOptions,
  StoreRangeOptions,
  WritePreconditions,
  WriteContext,
} from '../mvcc/object-store';
import { DEFAULT_SNAPSHOT_RETENTION, ResourceSnapshots, SnapshotRetention } from './resource-snapshots';

/**
 * How long a read waits for the cache to reach the revision it needs before it reads the
 * store instead (kube's consistent reads from cache fall back to etcd after 3 s likewise).
 */
const CACHE_WAIT_MS = 3000;

/**
 * How long a read of the store's compaction mark answers reads at a revision the cache holds.
 * Every page of a paged list is such a read: a query per page cost a round trip to the engine
 * (about a millisecond of a 7 ms page). A cached snapshot answers exactly whatever the mark,
 * so a token compacted away since is refused (410) at most this late, as kube's cacher does
 * once it notices a compaction.
 */
const COMPACTED_MARK_MS = 250;

export interface CachingStoreDeps {
  /** The store itself: writes, history older than the cache, and reads before a cache is ready. */
  store: ObjectStore;
  /** The informer of a storage resource (the process's shared ones: one copy of each object). */
  informerFor(resource: string): Informer;
  /**
   * A revision covering every write committed before `arrivedAt` (CurrentRevision.since: one
   * read of the counter shared by the reads that arrive together).
   */
  currentRevision(arrivedAt: number): bigint | Promise<bigint>;
  retention?: SnapshotRetention;
}

/**
 * The store as reads see it: kube's Cacher. Gets and lists are answered from the memory of
 * the resource's informer, fed by the change feed: the newest state (no revision) once the
 * cache has reached the store's current revision, a state not older than a revision once it
 * has reached that one (at once for '0'), and a state at an exact revision (Exact, continue
 * tokens) from the cache's snapshots while it holds them, else from the store. Writes, the
 * change log and compaction go to the store. A resource is cached from its first read on; its
 * reads go to the store until the informer's first list is in.
 */
export class CachingStore implements ObjectStore {
  private readonly logger = new Logger('CachingStore');
  private readonly caches = new Map<string, ResourceSnapshots>();
  /**
   * The store's compaction mark as last read (it only grows) and when, and the read under way.
   * Held in an object of its own, so a view made with Object.create shares it.
   */
  private readonly compaction: { mark: { revision: bigint; readAt: number } | null; read: Promise<bigint> | null } = { mark: null, read: null };

  constructor(private readonly deps: CachingStoreDeps) {
    // Only a store that tells its commits does (the feed reads the log of one that does not).
    const store = deps.store;
    if (store.addCommitListener) this.addCommitListener = (listener) => store.addCommitListener!(listener);
  }

  /** The cache of a resource, started on first use; null until its first list is in. */
  cacheOf(resource: string): ResourceSnapshots | null {
    let cache = this.caches.get(resource);
    if (!cache) {
      const informer = this.deps.informerFor(resource);
      cache = new ResourceSnapshots(resource, informer, this.deps.retention ?? DEFAULT_SNAPSHOT_RETENTION);
      this.caches.set(resource, cache);
      if (!informer.isStarted() && !informer.stopped) {
        informer.start().catch((err: Error) => this.logger.warn(`the cache of ${resource} could not list it: ${err.message}`));
      }
    }
    return cache.ready() ? cache : null;
  }

  /** Starts the cache of a resource and resolves once its first list is in (readiness, tests). */
  async warm(resource: string): Promise<void> {
    if (this.cacheOf(resource)) return;
    await this.deps.informerFor(resource).start();
  }

  /** The cache, once it reflects the newest state or at least `notOlderThan`; null: read the store. */
  private async fresh(resource: string, notOlderThan: string | undefined): Promise<ResourceSnapshots | null> {
    const arrivedAt = performance.now();
    const cache = this.cacheOf(resource);
    if (!cache) return null;
    const needed = notOlderThan === undefined ? await this.deps.currentRevision(arrivedAt) : BigInt(notOlderThan);
    return (await cache.reach(needed, CACHE_WAIT_MS)) ? cache : null;
  }

  /** The cache, once it has reached `revision`, for a read at that revision; null: read the store. */
  private async atRevision(resource: string, revision: string, notCompacted = false): Promise<ResourceSnapshots | null> {
    const cache = this.cacheOf(resource);
    if (!cache) return null;
    const at = BigInt(revision);
    if (at < cache.oldestRevision()) return null;
    if (!(await cache.reach(at, CACHE_WAIT_MS))) return null;
    // A revision compacted away is gone (410) however much of it the cache still holds, as before.
    if (notCompacted) return cache;
    const compacted = await this.compactedMarkFor(at);
    if (at < compacted) throw new RevisionCompactedError(revision, compacted.toString());
    return cache;
  }

  /** The compaction mark: the one read lately unless it already refuses `at`, else read now. */
  private async compactedMarkFor(at: bigint): Promise<bigint> {
    const { mark } = this.compaction;
    if (mark && (at < mark.revision || performance.now() - mark.readAt < COMPACTED_MARK_MS)) return mark.revision;
    this.compaction.read ??= this.readCompactedMark().finally(() => (this.compaction.read = null));
    return this.compaction.read;
  }

  private async readCompactedMark(): Promise<bigint> {
    const readAt = performance.now();
    const revision = BigInt(await this.deps.store.compactedRevision());
    this.noteCompactedMark(revision, readAt);
    return revision;
  }

  private noteCompactedMark(revision: bigint, readAt: number): void {
    const { mark } = this.compaction;
    if (!mark || revision > mark.revision || (revision === mark.revision && readAt > mark.readAt)) this.compaction.mark = { revision, readAt };
  }

  async get(key: ObjectKey, atRevision?: string, opts?: StoreGetOptions): Promise<StoredObject | null> {
    if (atRevision === undefined) {
      const cache = await this.fresh(key.resource, opts?.notOlderThan);
      return cache ? cache.current(key.namespace, key.name) : this.deps.store.get(key);
    }
    const cache = await this.atRevision(key.resource, atRevision);
    const found = cache?.at(BigInt(atRevision), key.namespace, key.name);
    return found !== undefined ? found : this.deps.store.get(key, atRevision);
  }

  async list(resource: string, opts: StoreRangeOptions = {}): Promise<ListResult> {
    if (opts.atRevision === undefined) {
      const cache = await this.fresh(resource, opts.notOlderThan);
      return cache ? cache.listCurrent(opts) : this.deps.store.list(resource, opts);
    }
    const cache = await this.atRevision(resource, opts.atRevision, opts.notCompacted);
    return cache?.listAt(BigInt(opts.atRevision), opts) ?? this.deps.store.list(resource, opts);
  }

  // ---- everything else is the store's ---------------------------------------------------

  currentRevision(): Promise<string> {
    return this.deps.store.currentRevision();
  }

  compactedRevision(): Promise<string> {
    return this.deps.store.compactedRevision();
  }

  create(key: ObjectKey, object: KubeObject, ctx?: WriteContext): Promise<StoredObject> {
    return this.deps.store.create(key, object, ctx);
  }

  update(key: ObjectKey, object: KubeObject, pre?: WritePreconditions, ctx?: WriteContext): Promise<StoredObject> {
    return this.deps.store.update(key, object, pre, ctx);
  }

  delete(key: ObjectKey, pre?: WritePreconditions, ctx?: WriteContext): Promise<StoredObject> {
    return this.deps.store.delete(key, pre, ctx);
  }

  changesSince(afterRevision: string, limit: number, maxBytes?: number): Promise<Change[]> {
    return this.deps.store.changesSince(afterRevision, limit, maxBytes);
  }

  async compact(olderThanMs: number): Promise<{ removedRows: number; compactedRevision: string }> {
    const readAt = performance.now();
    const result = await this.deps.store.compact(olderThanMs);
    this.noteCompactedMark(BigInt(result.compactedRevision), readAt);
    return result;
  }

  readonly addCommitListener?: (listener: LocalCommitListener) => () => void;
}
