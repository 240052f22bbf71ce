import { Logger } from '@nestjs/common';
import { KubeObject } from '../../apimachinery/types';
import { ChangeFeed, sameContent } from '../changefeed/change-feed';
import { ChangeFollower } from '../changefeed/change-follower';
import { shareRepeatedValues } from './shared-values';
import { Change, ObjectStore } from '../mvcc/object-store';

/**
 * Callbacks of an informer, as client-go's ResourceEventHandler. Objects are the cache's
 * own: handlers must not change them. Updates carry the state before and after; a delete
 * carries the last state known.
 */
export interface InformerEventHandler<T extends KubeObject = KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(old: T, obj: T): void;
  onDelete?(obj: T): void;
}

/**
 * Hears how the cache changes, in order (a read cache keeps its snapshots by it): each batch of
 * the feed applied (every change of the batch, of any resource: the last one's revision is the
 * revision the cache now reflects), and each list that replaced the cache, with its revision.
 */
export interface InformerChangeListener {
  applied(changes: readonly Change[]): void;
  relisted(revision: string): void;
}

/** The values an object is indexed under (client-go's IndexFunc). */
export type IndexFunc<T extends KubeObject = KubeObject> = (obj: T) => string[];

/** The index every informer has: objects by namespace ('' for cluster-scoped ones). */
export const NAMESPACE_INDEX = 'namespace';

export interface InformerOptions {
  /**
   * Items read per page of a list (default 10,000). Each page is one statement with a plan and
   * a pass over the log: a start with 110,000 RoleBindings on the embedded store took 7.9 s of
   * CPU in pages of 500 and 6.9 s in pages of 10,000; one statement took 6.7 s but left the
   * engine 180 MiB larger for good (its result is held whole in WASM memory, which never shrinks).
   */
  pageSize?: number;
  /** Changes taken from the feed at a time. */
  batchSize?: number;
  /** An idle informer looks at the feed at least this often. */
  idleWakeMs?: number;
  /** Pause after a failed read. */
  retryMs?: number;
}

/** The cache key of an object: `namespace/name`, or `name` when cluster-scoped (client-go's MetaNamespaceKeyFunc). */
export function cacheKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * One resource of the store kept in memory like a client-go shared informer: listed once
 * in pages at one revision, then kept current from the change feed after that revision,
 * listed again when the feed can no longer replay (410: history compacted), with the
 * differences delivered as adds, updates and deletes. Handlers added after the first list
 * get an add for each cached object, so late consumers see the same stream.
 */
export class Informer<T extends KubeObject = KubeObject> {
  private readonly logger: Logger;
  private readonly pageSize: number;
  private readonly follower: ChangeFollower;
  private items = new Map<string, T>();
  private readonly handlers = new Set<InformerEventHandler<T>>();
  private readonly changeListeners = new Set<InformerChangeListener>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** index name -> indexed value -> cache keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  /** The revision the cached objects reflect, set with them (the follower's cursor follows a step later). */
  private reflected = 0n;
  private starting: Promise<void> | null = null;
  private synced = false;
  private markSynced: () => void = () => undefined;
  /** Resolves once the first list is in the cache and delivered. */
  readonly whenSynced: Promise<void> = new Promise((resolve) => (this.markSynced = resolve));

  constructor(
    readonly resource: string,
    private readonly store: ObjectStore,
    feed: ChangeFeed,
    options: InformerOptions = {},
  ) {
    this.logger = new Logger(`Informer(${resource})`);
    this.pageSize = options.pageSize ?? 10_000;
    this.follower = new ChangeFollower(
      feed,
      { apply: (changes) => this.applyChanges(changes), resync: () => this.relist() },
      { name: `Informer(${resource})`, batchSize: options.batchSize, idleWakeMs: options.idleWakeMs, retryMs: options.retryMs },
    );
    this.addIndexers({ [NAMESPACE_INDEX]: (obj) => [obj.metadata?.namespace ?? ''] });
  }

  /**
   * Lists and starts following (once); resolves when synced. A failed first list rejects
   * and leaves the informer unstarted, so the next call tries again.
   */
  start(): Promise<void> {
    if (this.follower.stopped) return Promise.reject(new Error(`informer for ${this.resource} is stopped`));
    const listedAt = Date.now();
    this.starting ??= this.relist().then(
      (revision) => this.follower.start(revision, listedAt),
      (err) => {
        this.starting = null;
        throw err;
      },
    );
    return this.starting;
  }

  /** Some consumer started it (its first list may still be running). */
  isStarted(): boolean {
    return this.starting !== null;
  }

  /** The first list is in and delivered (client-go's HasSynced). */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Every change of the resource up to this revision is in the cache ('0' before the first list). */
  revision(): string {
    return this.follower.revision();
  }

  /**
   * Every change up to this revision is in the cached objects: revision(), or newer while the
   * follower has not yet moved its cursor past a batch the cache already holds.
   */
  reflectedRevision(): bigint {
    // The cache may hold writes a failover lost until it has listed again.
    if (this.follower.outdated()) return 0n;
    const cursor = this.follower.appliedRevision();
    return cursor > this.reflected ? cursor : this.reflected;
  }

  /** revision() as a number. */
  appliedRevision(): bigint {
    return this.follower.appliedRevision();
  }

  /** Applies now what the feed has read and the cache has not yet. */
  catchUp(): Promise<void> {
    return this.follower.catchUp();
  }

  /** Waits until the cache reflects `revision`; false on timeout or stop. */
  waitForRevision(revision: string, timeoutMs: number): Promise<boolean> {
    return this.follower.waitForRevision(revision, timeoutMs);
  }

  async stop(): Promise<void> {
    await this.follower.stop();
    await this.starting?.catch(() => undefined);
  }

  get stopped(): boolean {
    return this.follower.stopped;
  }

  /** Adds a handler; returns its removal. After the first list it first gets an add per cached object. */
  addEventHandler(handler: InformerEventHandler<T>): () => void {
    this.handlers.add(handler);
    if (this.synced && handler.onAdd) for (const obj of this.items.values()) this.call(() => handler.onAdd!(obj));
    return () => this.handlers.delete(handler);
  }

  /** Adds a listener of the cache's changes (see InformerChangeListener); returns its removal. */
  addChangeListener(listener: InformerChangeListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Adds indexes (client-go's AddIndexers); existing objects are indexed at once. */
  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.indexers.has(name)) throw new Error(`indexer ${name} already exists for ${this.resource}`);
      this.indexers.set(name, fn);
      const index = new Map<string, Set<string>>();
      this.indices.set(name, index);
      for (const [key, obj] of this.items) for (const value of fn(obj)) this.indexAdd(index, value, key);
    }
  }

  // ---- reads of the cache ---------------------------------------------------------------

  get(namespace: string, name: string): T | undefined {
    return this.items.get(cacheKey(namespace, name));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  /** Whether an index of this name exists (indexes live as long as the informer; controllers come and go). */
  hasIndex(indexName: string): boolean {
    return this.indexers.has(indexName);
  }

  /** The objects indexed under `value` by the index `indexName` (client-go's ByIndex). */
  byIndex(indexName: string, value: string): T[] {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`no index ${indexName} for ${this.resource}`);
    return [...(index.get(value) ?? [])].map((key) => this.items.get(key)!);
  }

  /** The values the index `indexName` holds objects under. */
  indexValues(indexName: string): string[] {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`no index ${indexName} for ${this.resource}`);
    return [...index.keys()];
  }

  // ---- list and follow ------------------------------------------------------------------

  /**
   * Lists the resource page by page at one revision and replaces the cache with it,
   * delivering what changed against the cache (deletes first, then adds and updates).
   * Answers the revision of the list.
   */
  private async relist(): Promise<string> {
    const listed = new Map<string, T>();
    let revision: string | undefined;
    let after: { namespace: string; name: string } | undefined;
    for (;;) {
      const page = await this.store.list(this.resource, { atRevision: revision, after, limit: this.pageSize, countRemaining: false });
      revision = page.revision;
      for (const item of page.items) listed.set(cacheKey(item.key.namespace, item.key.name), item.object as T);
      if (!page.hasMore || page.items.length === 0) break;
      const last = page.items[page.items.length - 1].key;
      after = { namespace: last.namespace, name: last.name };
    }
    const previous = this.items;
    // After a failover lost commits, a revision may name another write than the one cached: compare contents then.
    const rewritten = this.follower.outdated();
    for (const [key, old] of previous) if (!listed.has(key)) this.remove(key, old);
    for (const [key, obj] of listed) {
      const old = previous.get(key);
      if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion && (!rewritten || sameContent(old, obj))) continue;
      this.put(key, obj, old);
    }
    this.reflected = BigInt(revision);
    for (const listener of this.changeListeners) listener.relisted(revision);
    // Synced in the same step as the delivery, so a handler added from now on gets the replay.
    this.synced = true;
    this.markSynced();
    return revision;
  }

  private applyChanges(changes: readonly Change[]): void {
    for (const change of changes) {
      if (change.key.resource !== this.resource) continue;
      const key = cacheKey(change.key.namespace, change.key.name);
      if (change.type === 'DELETED') {
        if (this.items.has(key)) this.remove(key, change.object as T);
      } else {
        this.put(key, change.object as T, this.items.get(key));
      }
    }
    if (changes.length) {
      const last = BigInt(changes[changes.length - 1].revision);
      if (last > this.reflected) this.reflected = last;
    }
    for (const listener of this.changeListeners) listener.applied(changes);
  }

  private put(key: string, obj: T, old: T | undefined): void {
    shareRepeatedValues(obj);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    this.index(key, obj);
    for (const handler of [...this.handlers]) {
      if (old) {
        if (handler.onUpdate) this.call(() => handler.onUpdate!(old, obj));
      } else if (handler.onAdd) this.call(() => handler.onAdd!(obj));
    }
  }

  private remove(key: string, last: T): void {
    const cached = this.items.get(key);
    if (cached) this.unindex(key, cached);
    this.items.delete(key);
    for (const handler of [...this.handlers]) if (handler.onDelete) this.call(() => handler.onDelete!(last));
  }

  private index(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) for (const value of fn(obj)) this.indexAdd(this.indices.get(name)!, value, key);
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      for (const value of fn(obj)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }

  private indexAdd(index: Map<string, Set<string>>, value: string, key: string): void {
    let keys = index.get(value);
    if (!keys) index.set(value, (keys = new Set()));
    keys.add(key);
  }

  /** A failing handler is reported and does not keep the others from their events. */
  private call(deliver: () => void): void {
    try {
      deliver();
    } catch (err) {
      this.logger.error(`an event handler failed: ${(err as Error).message}`);
    }
  }
}
