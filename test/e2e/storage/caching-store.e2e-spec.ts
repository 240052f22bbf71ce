import { KubeObject } from '../../../src/apimachinery/types';
import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { Informer } from '../../../src/storage/informer/informer';
import { CachingStore } from '../../../src/storage/cacher/caching-store';
import { SnapshotRetention } from '../../../src/storage/cacher/resource-snapshots';
import { ListResult, ObjectKey, ObjectStore } from '../../../src/storage/mvcc/object-store';
import { openTestDatabase, TestDatabase } from '../../support/db';

const RESOURCE = 'rbac.authorization.platform.io/rolebindings';
const keyOf = (name: string, namespace = 'ns'): ObjectKey => ({ resource: RESOURCE, namespace, name });
const objectOf = (name: string, extra: Record<string, unknown> = {}, namespace = 'ns'): KubeObject => ({
  metadata: { name, namespace, uid: `uid-${name}` },
  ...extra,
});
const names = (list: ListResult) => list.items.map((i) => `${i.key.namespace}/${i.key.name}`);

/** One replica's read path: its own change feed and informers over the shared store, and its caching store. */
interface Replica {
  caching: CachingStore;
  /** How many lists reached the store (not the cache). */
  storeLists(): number;
  stop(): Promise<void>;
}

function replicaOf(store: ObjectStore, retention?: SnapshotRetention): Replica {
  // No wake-ups: this replica learns of the other's writes only when a read asks for a newer revision.
  const feed = new ChangeFeed(store, null, { pollIntervalMs: 60_000 });
  let lists = 0;
  const counted: ObjectStore = Object.assign(Object.create(store) as ObjectStore, {
    list: (...args: Parameters<ObjectStore['list']>) => {
      lists++;
      return store.list(...args);
    },
  });
  const informers = new Map<string, Informer>();
  const started = feed.start();
  const caching = new CachingStore({
    store: counted,
    informerFor: (resource) => {
      let informer = informers.get(resource);
      // The informer lists the store itself: its lists are not counted as reads.
      if (!informer) informers.set(resource, (informer = new Informer(resource, store, feed)));
      return informer;
    },
    currentRevision: async () => BigInt(await store.currentRevision()),
    retention,
  });
  return {
    caching,
    storeLists: () => lists,
    stop: async () => {
      await started;
      await Promise.all([...informers.values()].map((informer) => informer.stop()));
      await feed.stop();
    },
  };
}

describe('the caching store (reads from memory)', () => {
  let t: TestDatabase;
  const replicas: Replica[] = [];
  const replica = async (retention?: SnapshotRetention) => {
    const r = replicaOf(t.store, retention);
    replicas.push(r);
    await r.caching.warm(RESOURCE);
    return r;
  };

  beforeEach(async () => {
    t = await openTestDatabase('pglite');
  });
  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((r) => r.stop()));
    await t.destroy();
  });

  it('shows a write acknowledged at revision R to the next Most Recent list and get of every replica', async () => {
    const [a, b] = [await replica(), await replica()];
    for (let i = 0; i < 5; i++) {
      const written = await a.caching.create(keyOf(`rb-${i}`), objectOf(`rb-${i}`, { v: i }));
      for (const reader of [a, b]) {
        const listed = await reader.caching.list(RESOURCE);
        expect(BigInt(listed.revision)).toBeGreaterThanOrEqual(BigInt(written.revision));
        expect(names(listed)).toContain(`ns/rb-${i}`);
        expect(await reader.caching.get(keyOf(`rb-${i}`))).toMatchObject({ revision: written.revision, object: { v: i } });
      }
    }
    const updated = await b.caching.update(keyOf('rb-0'), objectOf('rb-0', { v: 'new' }));
    expect(await a.caching.get(keyOf('rb-0'))).toMatchObject({ revision: updated.revision, object: { v: 'new' } });
    await a.caching.delete(keyOf('rb-1'));
    expect(names(await b.caching.list(RESOURCE))).toEqual(['ns/rb-0', 'ns/rb-2', 'ns/rb-3', 'ns/rb-4']);
    // Every one of these reads came from memory.
    expect([a.storeLists(), b.storeLists()]).toEqual([0, 0]);
  });

  it('answers an Exact list and every page of a paged list from a snapshot while it holds that revision', async () => {
    const r = await replica();
    for (const n of ['c', 'a', 'e', 'B', 'd']) await r.caching.create(keyOf(n), objectOf(n));
    await r.caching.create(keyOf('z', 'other'), objectOf('z', {}, 'other'));
    const first = await r.caching.list(RESOURCE, { limit: 2 });
    expect(names(first)).toEqual(['ns/B', 'ns/a']);
    expect(first).toMatchObject({ hasMore: true, remaining: 4 });
    // Writes after the first page do not show in the pages of its revision.
    await r.caching.delete(keyOf('c'));
    await r.caching.update(keyOf('d'), objectOf('d', { changed: true }));
    await r.caching.create(keyOf('b'), objectOf('b'));
    const second = await r.caching.list(RESOURCE, { atRevision: first.revision, limit: 3, after: { namespace: 'ns', name: 'a' } });
    expect(names(second)).toEqual(['ns/c', 'ns/d', 'ns/e']);
    expect(second.items[1].object.changed).toBeUndefined();
    expect(second).toMatchObject({ revision: first.revision, hasMore: true, remaining: 1 });
    expect(r.storeLists()).toBe(0);
    // The same answer as the store's.
    expect(second).toEqual(await t.store.list(RESOURCE, { atRevision: first.revision, limit: 3, after: { namespace: 'ns', name: 'a' } }));
    expect(await r.caching.list(RESOURCE, { namespace: 'ns' })).toEqual(await t.store.list(RESOURCE, { namespace: 'ns' }));
  });

  it('answers an Exact list older than the snapshots it keeps from the store, with the same answer', async () => {
    // No older snapshot is kept: any revision before the newest change is outside the cache's window.
    const r = await replica({ count: 0, ageMs: 0, pinnedBytes: 0 });
    for (const n of ['a', 'b', 'c']) await r.caching.create(keyOf(n), objectOf(n));
    const then = await r.caching.list(RESOURCE);
    expect(r.storeLists()).toBe(0);
    await r.caching.update(keyOf('a'), objectOf('a', { changed: true }));
    await r.caching.delete(keyOf('b'));
    await r.caching.list(RESOURCE);

    const exact = await r.caching.list(RESOURCE, { atRevision: then.revision });
    expect(r.storeLists()).toBe(1);
    expect(exact).toEqual(await t.store.list(RESOURCE, { atRevision: then.revision }));
    expect(names(exact)).toEqual(['ns/a', 'ns/b', 'ns/c']);
    expect(exact.items[0].object.changed).toBeUndefined();
    const page = await r.caching.list(RESOURCE, { atRevision: then.revision, limit: 1, after: { namespace: 'ns', name: 'a' } });
    expect(page).toEqual(await t.store.list(RESOURCE, { atRevision: then.revision, limit: 1, after: { namespace: 'ns', name: 'a' } }));
    expect(page).toMatchObject({ hasMore: true, remaining: 1 });
  });
  it('drops an older snapshot once what changed since it was made would keep too much alive, and answers its revision from the store', async () => {
    const r = await replica({ count: 16, ageMs: 75_000, pinnedBytes: 20_000 });
    await r.caching.create(keyOf('a'), objectOf('a'));
    await r.caching.create(keyOf('big'), objectOf('big', { data: 'x'.repeat(30_000) }));
    const then = await r.caching.list(RESOURCE);
    // A small change since: the snapshot of `then` answers it from memory.
    await r.caching.update(keyOf('a'), objectOf('a', { changed: true }));
    await r.caching.list(RESOURCE);
    expect(names(await r.caching.list(RESOURCE, { atRevision: then.revision }))).toEqual(['ns/a', 'ns/big']);
    expect(r.storeLists()).toBe(0);
    // The large object deleted: only that snapshot still held it, so the snapshot goes with it.
    await r.caching.delete(keyOf('big'));
    await r.caching.list(RESOURCE);
    const exact = await r.caching.list(RESOURCE, { atRevision: then.revision });
    expect(r.storeLists()).toBe(1);
    expect(exact).toEqual(await t.store.list(RESOURCE, { atRevision: then.revision }));
    expect(names(exact)).toEqual(['ns/a', 'ns/big']);
  });
});
