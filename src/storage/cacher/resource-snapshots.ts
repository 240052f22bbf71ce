import { KubeObject } from '../../apimachinery/types';
import { cacheKey, Informer } from '../informer/informer';
import { Change, ListResult, StoredObject, StoreRangeOptions } from '../mvcc/object-store';

/** One object of a snapshot, in key order. The object is the informer's own (never changed). */
interface Entry {
  namespace: string;
  name: string;
  object: KubeObject;
}

/**
 * The state of a resource over a range of revisions: every revision from `from` (the newest
 * change it holds) up to, not including, `until` (the next change; null while none came).
 */
interface Snapshot {
  from: bigint;
  until: bigint | null;
  /** When it stopped being the newest (Date.now(), for retention), else null. */
  supersededAt: number | null;
  entries: readonly Entry[];
  /** Stored bytes of the versions changed or deleted since it was made: what it may keep alive that the cache no longer holds. */
  pinnedBytes: number;
}

/** Snapshots kept for paging and Exact reads (kube keeps its cache's snapshots as long as its window). */
export interface SnapshotRetention {
  /** At most this many older snapshots besides the newest. */
  count: number;
  /** An older snapshot is dropped this long after it stopped being the newest. */
  ageMs: number;
  /**
   * An older snapshot is dropped once the versions changed or deleted since it was made add up
   * to this many stored bytes: it keeps them alive (a parsed object takes 3–5 times its text).
   */
  pinnedBytes: number;
}

export const DEFAULT_SNAPSHOT_RETENTION: SnapshotRetention = { count: 16, ageMs: 75_000, pinnedBytes: 8 * 1024 * 1024 };

/**
 * Compares text as the store orders its keys: bytewise UTF-8 (the "C" collation). UTF-16 code
 * units order the same except surrogates, which encode code points above every other unit.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

function compareKeys(a: { namespace: string; name: string }, b: { namespace: string; name: string }): number {
  return compareUtf8(a.namespace, b.namespace) || compareUtf8(a.name, b.name);
}

function entryOf(object: KubeObject): Entry {
  return { namespace: object.metadata.namespace ?? '', name: object.metadata.name ?? '', object };
}

/** The first index whose entry is at `key` or after it (only after it, with `after`). */
function lowerBound(entries: readonly Entry[], key: { namespace: string; name: string }, after: boolean): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const c = compareKeys(entries[mid], key);
    if (c < 0 || (after && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose namespace is after `namespace`. */
function namespaceEnd(entries: readonly Entry[], namespace: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareUtf8(entries[mid].namespace, namespace) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The read side of one resource's informer: its objects in key order, as snapshots that each
 * answer a range of revisions (kube's watch cache with KEP-4988's snapshots), so a list at the
 * newest revision, an Exact list and every page of a paged list read memory. The objects are
 * the informer's; a snapshot holds only their order, and the next one is built from the
 * previous one and the keys changed since (a merge, not a sort of everything).
 */
export class ResourceSnapshots {
  private snapshots: Snapshot[] = [];
  /** The newest snapshot while no change came after it. */
  private head: Snapshot | null = null;
  /** Keys changed since the head was built; null: build from the whole cache. */
  private changed: Map<string, { namespace: string; name: string }> | null = null;
  /** The newest change to the resource in the cache (when unknown, a revision after it). */
  private lastChange = 0n;
  private listed = false;
  private pruneTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly resource: string,
    private readonly informer: Informer,
    private readonly retention: SnapshotRetention = DEFAULT_SNAPSHOT_RETENTION,
    private readonly now: () => number = Date.now,
  ) {
    // Made after the informer's first list (another consumer started it): what the cache
    // holds is known to answer its current revision only.
    if (informer.hasSynced()) {
      this.listed = true;
      this.lastChange = informer.reflectedRevision();
    }
    informer.addChangeListener({
      applied: (changes) => this.applied(changes),
      relisted: (revision) => this.relisted(revision),
    });
  }

  /** The cache has its first list in. */
  ready(): boolean {
    return this.listed && this.informer.hasSynced();
  }

  /** Every change up to this revision is in the cache. */
  revision(): bigint {
    return this.informer.reflectedRevision();
  }

  /** The oldest revision a snapshot held answers. */
  oldestRevision(): bigint {
    return this.snapshots.length ? this.snapshots[0].from : this.lastChange;
  }

  /** Waits until the cache reflects `revision`; false after `timeoutMs`. */
  async reach(revision: bigint, timeoutMs: number): Promise<boolean> {
    if (this.revision() >= revision) return true;
    await this.informer.catchUp();
    if (this.revision() >= revision) return true;
    return this.informer.waitForRevision(revision.toString(), timeoutMs);
  }

  /** The object under a key at the newest revision the cache has. */
  current(namespace: string, name: string): StoredObject | null {
    const object = this.informer.get(namespace, name);
    return object ? this.stored(namespace, name, object) : null;
  }

  /** The object under a key at `revision`; undefined when no snapshot held answers it. */
  at(revision: bigint, namespace: string, name: string): StoredObject | null | undefined {
    const snapshot = this.snapshotAt(revision);
    if (!snapshot) return undefined;
    const i = lowerBound(snapshot.entries, { namespace, name }, false);
    const entry = snapshot.entries[i];
    return entry && entry.namespace === namespace && entry.name === name ? this.stored(namespace, name, entry.object) : null;
  }

  /** A list at the newest revision the cache has. */
  listCurrent(opts: StoreRangeOptions): ListResult {
    const revision = this.revision();
    return this.page(this.newest(), revision.toString(), opts);
  }

  /** A list at `revision`; undefined when no snapshot held answers it. */
  listAt(revision: bigint, opts: StoreRangeOptions): ListResult | undefined {
    const snapshot = this.snapshotAt(revision);
    return snapshot ? this.page(snapshot, revision.toString(), opts) : undefined;
  }

  private page(snapshot: Snapshot, revision: string, opts: StoreRangeOptions): ListResult {
    const { entries } = snapshot;
    let start = 0;
    let end = entries.length;
    if (opts.namespace !== undefined) {
      start = lowerBound(entries, { namespace: opts.namespace, name: '' }, false);
      end = namespaceEnd(entries, opts.namespace);
    }
    if (opts.after) start = Math.max(start, lowerBound(entries, opts.after, true));
    if (start > end) start = end;
    const limit = opts.limit !== undefined ? Math.max(0, Math.floor(opts.limit)) : undefined;
    const stop = limit !== undefined ? Math.min(end, start + limit) : end;
    const items = new Array<StoredObject>(stop - start);
    for (let i = start; i < stop; i++) {
      const entry = entries[i];
      items[i - start] = this.stored(entry.namespace, entry.name, entry.object);
    }
    const hasMore = stop < end;
    return { items, revision, hasMore, ...(hasMore && opts.countRemaining !== false ? { remaining: end - stop } : {}) };
  }

  private stored(namespace: string, name: string, object: KubeObject): StoredObject {
    return { key: { resource: this.resource, namespace, name }, revision: object.metadata.resourceVersion ?? '', object };
  }

  /** The snapshot answering `revision` (which the cache has reached), built now when it is the newest state. */
  private snapshotAt(revision: bigint): Snapshot | undefined {
    if (revision > this.revision()) return undefined;
    if (revision >= this.lastChange) return this.newest();
    this.prune();
    for (let i = this.snapshots.length - 1; i >= 0; i--) {
      const s = this.snapshots[i];
      if (s.from <= revision && (s.until === null || revision < s.until)) return s;
    }
    return undefined;
  }

  /** The snapshot of the cache as it is now. */
  private newest(): Snapshot {
    if (this.head) return this.head;
    let entries: Entry[];
    const previous = this.snapshots.length ? this.snapshots[this.snapshots.length - 1] : null;
    if (!this.changed || !previous) {
      entries = this.informer.list().map(entryOf);
      entries.sort(compareKeys);
    } else {
      entries = this.merged(previous.entries, this.changed);
    }
    this.changed = new Map();
    const snapshot: Snapshot = { from: this.lastChange, until: null, supersededAt: null, entries, pinnedBytes: 0 };
    this.snapshots.push(snapshot);
    this.head = snapshot;
    this.prune();
    return snapshot;
  }

  /** The previous order without the changed keys, merged with their current objects. */
  private merged(previous: readonly Entry[], changed: Map<string, { namespace: string; name: string }>): Entry[] {
    const fresh: Entry[] = [];
    for (const { namespace, name } of changed.values()) {
      const object = this.informer.get(namespace, name);
      if (object) fresh.push({ namespace, name, object });
    }
    fresh.sort(compareKeys);
    const out: Entry[] = [];
    let j = 0;
    for (const entry of previous) {
      if (changed.has(cacheKey(entry.namespace, entry.name))) continue;
      while (j < fresh.length && compareKeys(fresh[j], entry) < 0) out.push(fresh[j++]);
      out.push(entry);
    }
    while (j < fresh.length) out.push(fresh[j++]);
    return out;
  }

  private applied(changes: readonly Change[]): void {
    if (changes.length === 0) return;
    for (const change of changes) {
      if (change.key.resource !== this.resource) continue;
      const revision = BigInt(change.revision);
      if (this.head) {
        this.head.until = revision;
        this.head.supersededAt = this.now();
        this.head = null;
      }
      this.lastChange = revision;
      this.changed?.set(cacheKey(change.key.namespace, change.key.name), { namespace: change.key.namespace, name: change.key.name });
      if (change.type !== 'ADDED') for (const snapshot of this.snapshots) snapshot.pinnedBytes += change.bytes;
    }
    if (this.snapshots.length) this.prune();
  }

  /** A list replaced the cache: what the old snapshots answer is no longer known to hold. */
  private relisted(revision: string): void {
    this.snapshots = [];
    this.head = null;
    this.changed = null;
    this.lastChange = BigInt(revision);
    this.listed = true;
  }

  private prune(): void {
    const cutoff = this.now() - this.retention.ageMs;
    const older = this.snapshots.filter((s) => s !== this.head);
    let drop = Math.max(0, older.length - this.retention.count);
    // Oldest first: a snapshot pins at least what every newer one does.
    this.snapshots = this.snapshots.filter((s) => {
      if (s === this.head) return true;
      if (drop > 0) {
        drop--;
        return false;
      }
      if (s.pinnedBytes > this.retention.pinnedBytes) return false;
      return s.supersededAt === null || s.supersededAt >= cutoff;
    });
    this.pruneLater();
  }

  /** An idle server drops its old snapshots too: a prune when the oldest one's age runs out. */
  private pruneLater(): void {
    if (this.pruneTimer) return;
    const oldest = this.snapshots.find((s) => s !== this.head && s.supersededAt !== null);
    if (!oldest) return;
    const dueIn = Math.max(0, oldest.supersededAt! + this.retention.ageMs - this.now()) + 1;
    this.pruneTimer = setTimeout(() => {
      this.pruneTimer = null;
      this.prune();
    }, dueIn);
    this.pruneTimer.unref();
  }
}
