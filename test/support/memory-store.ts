import {
  Change,
  KeyExistsError,
  KeyNotFoundError,
  StoreRangeOptions,
  ListResult,
  ObjectKey,
  ObjectStore,
  RevisionCompactedError,
  StaleRevisionError,
  StoredObject,
  UidMismatchError,
  UnstorableKeyError,
  WritePreconditions,
  WriteContext,
  isStorableKey,
  isStorableKeyPart,
} from '../../src/storage/mvcc/object-store';
import { Clock, systemClock } from '../../src/apimachinery/clock';
import { KubeObject } from '../../src/apimachinery/types';

/**
 * An in-memory ObjectStore with the MVCC semantics, for unit tests of code above the store.
 * test/e2e/storage/contract.e2e-spec.ts runs the same contract on it as on the real engines.
 */
export class MemoryStore implements ObjectStore {
  private revision = 0n;
  private compacted = 0n;
  /** The revision up to which compaction has looked at the log. */
  private swept = 0n;
  readonly log: Change[] = [];
  /** When each log row was written (ms), by revision: compaction keeps a time window. */
  private readonly writtenAt = new Map<string, number>();
  private current = new Map<string, StoredObject>();

  /** `clock`: when rows are written, for compaction's time window (tests move it instead of waiting). */
  constructor(private readonly clock: Clock = systemClock) {}

  private id(k: ObjectKey) {
    return `${k.resource}\u0000${k.namespace}\u0000${k.name}`;
  }

  private stamp(obj: KubeObject, rev: bigint): KubeObject {
    const o = structuredClone(obj);
    o.metadata = { ...o.metadata, resourceVersion: rev.toString() };
    return o;
  }

  async currentRevision() {
    return this.revision.toString();
  }
  async compactedRevision() {
    return this.compacted.toString();
  }

  async get(key: ObjectKey, atRevision?: string) {
    if (!isStorableKey(key)) {
      if (atRevision !== undefined && BigInt(atRevision) < this.compacted) throw new RevisionCompactedError(atRevision, this.compacted.toString());
      return null;
    }
    if (atRevision === undefined) return this.current.get(this.id(key)) ?? null;
    if (BigInt(atRevision) < this.compacted) throw new RevisionCompactedError(atRevision, this.compacted.toString());
    const rows = this.log.filter((c) => this.id(c.key) === this.id(key) && BigInt(c.revision) <= BigInt(atRevision));
    const last = rows[rows.length - 1];
    return !last || last.type === 'DELETED' ? null : { key, revision: last.revision, object: last.object };
  }

  async list(resource: string, opts: StoreRangeOptions = {}): Promise<ListResult> {
    if (opts.namespace !== undefined && !isStorableKeyPart(opts.namespace)) {
      if (opts.atRevision !== undefined && BigInt(opts.atRevision) < this.compacted) throw new RevisionCompactedError(opts.atRevision, this.compacted.toString());
      return { items: [], revision: opts.atRevision ?? this.revision.toString(), hasMore: false };
    }
    let items: StoredObject[];
    if (opts.atRevision === undefined) items = [...this.current.values()].filter((s) => s.key.resource === resource);
    else {
      const at = BigInt(opts.atRevision);
      if (at < this.compacted) throw new RevisionCompactedError(opts.atRevision, this.compacted.toString());
      const latest = new Map<string, Change>();
      for (const c of this.log) if (c.key.resource === resource && BigInt(c.revision) <= at) latest.set(this.id(c.key), c);
      items = [...latest.values()].filter((c) => c.type !== 'DELETED').map((c) => ({ key: c.key, revision: c.revision, object: c.object }));
    }
    items = items
      .filter((s) => opts.namespace === undefined || s.key.namespace === opts.namespace)
      .sort((a, b) => (a.key.namespace + '\u0000' + a.key.name < b.key.namespace + '\u0000' + b.key.name ? -1 : 1));
    if (opts.after) {
      const a = opts.after.namespace + '\u0000' + opts.after.name;
      items = items.filter((s) => s.key.namespace + '\u0000' + s.key.name > a);
    }
    const limit = opts.limit ?? items.length;
    const page = items.slice(0, limit);
    const hasMore = items.length > limit;
    return { items: page, revision: opts.atRevision ?? this.revision.toString(), hasMore, ...(hasMore && opts.countRemaining !== false ? { remaining: items.length - limit } : {}) };
  }

  private write(type: Change['type'], key: ObjectKey, object: KubeObject, previous?: KubeObject, ctx?: WriteContext): StoredObject {
    this.revision += 1n;
    const stamped = this.stamp(object, this.revision);
    const bytes = JSON.stringify(stamped).length + (previous ? JSON.stringify(previous).length : 0);
    this.log.push({ type, key, revision: this.revision.toString(), object: stamped, ...(previous ? { previous } : {}), bytes, ...(ctx?.author ? { author: ctx.author } : {}) });
    this.writtenAt.set(this.revision.toString(), this.clock.now());
    const stored = { key, revision: this.revision.toString(), object: stamped };
    if (type === 'DELETED') this.current.delete(this.id(key));
    else this.current.set(this.id(key), stored);
    return stored;
  }

  private check(key: ObjectKey, pre?: WritePreconditions): StoredObject {
    const cur = this.current.get(this.id(key));
    if (!cur) throw new KeyNotFoundError(key);
    if (pre?.revision && pre.revision !== cur.revision) throw new StaleRevisionError(key, pre.revision, cur.revision);
    if (pre?.uid && pre.uid !== cur.object.metadata.uid) throw new UidMismatchError(key, pre.uid, String(cur.object.metadata.uid));
    return cur;
  }

  async create(key: ObjectKey, object: KubeObject, ctx?: WriteContext) {
    if (!isStorableKey(key)) throw new UnstorableKeyError(key);
    if (this.current.has(this.id(key))) throw new KeyExistsError(key);
    return this.write('ADDED', key, object, undefined, ctx);
  }
  async update(key: ObjectKey, object: KubeObject, pre?: WritePreconditions, ctx?: WriteContext) {
    const cur = this.check(key, pre);
    return this.write('MODIFIED', key, object, cur.object, ctx);
  }
  async delete(key: ObjectKey, pre?: WritePreconditions, ctx?: WriteContext) {
    const cur = this.check(key, pre);
    return this.write('DELETED', key, cur.object, cur.object, ctx);
  }
  async changesSince(afterRevision: string, limit: number, maxBytes = Number.MAX_SAFE_INTEGER) {
    if (BigInt(afterRevision) < this.compacted) throw new RevisionCompactedError(afterRevision, this.compacted.toString());
    const page = this.log.filter((c) => BigInt(c.revision) > BigInt(afterRevision)).slice(0, limit);
    let before = 0;
    return page.filter((c) => {
      const fits = before < maxBytes;
      before += Buffer.byteLength(JSON.stringify(c.object));
      return fits;
    });
  }

  /**
   * As the real store: drops the rows older than the window that a later row of their key
   * superseded, and tombstones; the compacted revision becomes the lowest one still answered
   * exactly. Without an argument (a test affordance, not the store's contract) everything up
   * to the current revision counts as compacted, as after etcd's compaction at the head.
   */
  async compact(olderThanMs?: number): Promise<{ removedRows: number; compactedRevision: string }> {
    if (olderThanMs === undefined) {
      const { removedRows } = await this.compact(0);
      this.compacted = this.revision;
      return { removedRows, compactedRevision: this.compacted.toString() };
    }
    const cutoff = this.clock.now() - Math.max(0, Math.floor(olderThanMs));
    const inWindow = this.log.find((c) => (this.writtenAt.get(c.revision) ?? 0) > cutoff);
    const horizon = inWindow ? BigInt(inWindow.revision) - 1n : this.revision;
    if (this.swept >= horizon) return { removedRows: 0, compactedRevision: this.compacted.toString() };
    const touched = new Set(this.log.filter((c) => BigInt(c.revision) > this.swept && BigInt(c.revision) <= horizon).map((c) => this.id(c.key)));
    const doomed = new Map<string, bigint>(); // revision -> the revision exact reads start from
    const lastOfKey = new Map<string, Change>();
    for (const c of this.log) {
      if (BigInt(c.revision) > horizon || !touched.has(this.id(c.key))) continue;
      const prior = lastOfKey.get(this.id(c.key));
      if (prior && prior.type !== 'DELETED') doomed.set(prior.revision, BigInt(c.revision));
      if (c.type === 'DELETED') doomed.set(c.revision, BigInt(c.revision));
      lastOfKey.set(this.id(c.key), c);
    }
    for (let i = this.log.length - 1; i >= 0; i--) {
      if (doomed.has(this.log[i].revision)) {
        this.writtenAt.delete(this.log[i].revision);
        this.log.splice(i, 1);
      }
    }
    for (const exactFrom of doomed.values()) if (exactFrom > this.compacted) this.compacted = exactFrom;
    this.swept = horizon;
    return { removedRows: doomed.size, compactedRevision: this.compacted.toString() };
  }
}
