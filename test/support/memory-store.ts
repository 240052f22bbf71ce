import {
  Change,
  KeyExistsError,
  KeyNotFoundError,
  ListOptions,
  ListResult,
  ObjectKey,
  ObjectStore,
  RevisionCompactedError,
  StaleRevisionError,
  StoredObject,
  UidMismatchError,
  WritePreconditions,
} from '../../src/storage/object-store';
import { KubeObject } from '../../src/apimachinery/types';

/** An in-memory ObjectStore with the MVCC semantics, for unit tests of code above the store. */
export class MemoryStore implements ObjectStore {
  private revision = 0n;
  private compacted = 0n;
  readonly log: Change[] = [];
  private current = new Map<string, StoredObject>();

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
    if (atRevision === undefined) return this.current.get(this.id(key)) ?? null;
    if (BigInt(atRevision) < this.compacted) throw new RevisionCompactedError(atRevision, this.compacted.toString());
    const rows = this.log.filter((c) => this.id(c.key) === this.id(key) && BigInt(c.revision) <= BigInt(atRevision));
    const last = rows[rows.length - 1];
    return !last || last.type === 'DELETED' ? null : { key, revision: last.revision, object: last.object };
  }

  async list(resource: string, opts: ListOptions = {}): Promise<ListResult> {
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
    return { items: page, revision: opts.atRevision ?? this.revision.toString(), hasMore, remaining: hasMore ? items.length - limit : undefined };
  }

  private write(type: Change['type'], key: ObjectKey, object: KubeObject, previous?: KubeObject): StoredObject {
    this.revision += 1n;
    const stamped = this.stamp(object, this.revision);
    const bytes = JSON.stringify(stamped).length + (previous ? JSON.stringify(previous).length : 0);
    this.log.push({ type, key, revision: this.revision.toString(), object: stamped, previous, bytes });
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

  async create(key: ObjectKey, object: KubeObject) {
    if (this.current.has(this.id(key))) throw new KeyExistsError(key);
    return this.write('ADDED', key, object);
  }
  async update(key: ObjectKey, object: KubeObject, pre?: WritePreconditions) {
    const cur = this.check(key, pre);
    return this.write('MODIFIED', key, object, cur.object);
  }
  async delete(key: ObjectKey, pre?: WritePreconditions) {
    const cur = this.check(key, pre);
    return this.write('DELETED', key, cur.object, cur.object);
  }
  async changesSince(afterRevision: string, limit: number, maxBytes = Number.MAX_SAFE_INTEGER) {
    if (BigInt(afterRevision) < this.compacted) throw new RevisionCompactedError(afterRevision, this.compacted.toString());
    const page = this.log.filter((c) => BigInt(c.revision) > BigInt(afterRevision)).slice(0, limit);
    let before = 0;
    return page.filter((c) => {
      const fits = before < maxBytes;
      before += JSON.stringify(c.object).length;
      return fits;
    });
  }
  async compact(): Promise<{ removedRows: number; compactedRevision: string }> {
    this.compacted = this.revision;
    return { removedRows: 0, compactedRevision: this.compacted.toString() };
  }
}
