import { KubeObject } from '../../../src/apimachinery/types';
import {
  KeyExistsError,
  KeyNotFoundError,
  ListResult,
  ObjectKey,
  ObjectStore,
  RevisionCompactedError,
  StaleRevisionError,
  StoredObject,
  StoreRangeOptions,
  UidMismatchError,
  UnstorableKeyError,
} from '../../../src/storage/mvcc/object-store';
import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { Informer } from '../../../src/storage/informer/informer';
import { CachingStore } from '../../../src/storage/cacher/caching-store';
import { openTestDatabase, TestDatabase } from '../../support/db';
import { MemoryStore } from '../../support/memory-store';
import { describeWithPostgres } from '../../support/postgres';
import { TestClock } from '../../support/test-clock';

let resources = 0;
/** A resource no other test writes, so tests can share one store. */
const freshResource = () => `test.platform.io/things${++resources}`;

const keyOf = (resource: string, name: string, namespace = 'ns'): ObjectKey => ({ resource, namespace, name });
const objectOf = (name: string, extra: Record<string, unknown> = {}, namespace = 'ns'): KubeObject => ({
  metadata: { name, namespace, uid: `uid-${name}` },
  ...extra,
});
const names = (list: ListResult) => list.items.map((i) => `${i.key.namespace}/${i.key.name}`);
const HOUR_MS = 3_600_000;

interface StoreUnderTest {
  store: ObjectStore;
  close(): Promise<void>;
  /**
   * Moves the store's clock forward: what it holds so far becomes `ms` older (compaction keeps
   * a window measured in time, which the tests move through instead of waiting).
   */
  age(ms: number): Promise<void>;
}

/** The SQL store's clock is the database's (a row's created_at): its history ages by moving those back. */
async function ageLog(t: TestDatabase, ms: number): Promise<void> {
  await t.db.dataSource.query(`UPDATE kv_log SET created_at = created_at - $1::bigint * interval '1 millisecond'`, [ms]);
}

/** The in-memory fake, on a clock of the test's. */
function memoryStore(): StoreUnderTest {
  const clock = new TestClock();
  return { store: new MemoryStore(clock), close: async () => undefined, age: async (ms) => clock.advance(ms) };
}

/**
 * The ObjectStore contract, the same on every implementation: the MVCC store on PGlite and on
 * PostgreSQL, and the in-memory fake the unit tests use (so the fake cannot drift). Each
 * `open()` gives a fresh, empty store. Engine internals (transactions, notifications, restarts,
 * migrations) are tested in store.e2e-spec.ts.
 */
function storeContract(open: () => Promise<StoreUnderTest>): void {
  let shared: StoreUnderTest;
  let store: ObjectStore;

  beforeAll(async () => {
    shared = await open();
    store = shared.store;
  });
  afterAll(async () => {
    await shared?.close();
  });

  it('gives each write the next revision and reads it back as resourceVersion', async () => {
    const r = freshResource();
    const start = BigInt(await store.currentRevision());
    const a = await store.create(keyOf(r, 'a'), objectOf('a', { spec: { x: 0 } }));
    const b = await store.create(keyOf(r, 'b'), objectOf('b'));
    const a2 = await store.update(keyOf(r, 'a'), { ...objectOf('a', { spec: { x: 1 } }), metadata: { ...objectOf('a').metadata, resourceVersion: '999' } });
    expect([a, b, a2].map((s) => BigInt(s.revision) - start)).toEqual([1n, 2n, 3n]);
    expect(await store.currentRevision()).toBe(a2.revision);
    expect(a2.object.metadata.resourceVersion).toBe(a2.revision);
    const got = await store.get(keyOf(r, 'a'));
    expect(got).toEqual({ key: keyOf(r, 'a'), revision: a2.revision, object: { metadata: { name: 'a', namespace: 'ns', uid: 'uid-a', resourceVersion: a2.revision }, spec: { x: 1 } } });
    expect(await store.get(keyOf(r, 'a'), a.revision)).toMatchObject({ revision: a.revision, object: { spec: { x: 0 }, metadata: { resourceVersion: a.revision } } });
    expect(await store.get(keyOf(r, 'b'), a.revision)).toBeNull();
    expect(await store.get(keyOf(r, 'missing'))).toBeNull();
  });

  it('20 concurrent read-modify-write updates of one key lose nothing', async () => {
    const key = keyOf(freshResource(), 'counter');
    await store.create(key, objectOf('counter', { count: 0 }));
    let conflicts = 0;
    // All first reads happen before any write, so the first round must conflict.
    const firstReads = await Promise.all(Array.from({ length: 20 }, () => store.get(key)));
    const increment = async (first: StoredObject | null): Promise<StoredObject> => {
      for (let read = first; ; read = await store.get(key)) {
        try {
          return await store.update(key, objectOf('counter', { count: (read!.object.count as number) + 1 }), { revision: read!.revision });
        } catch (err) {
          if (!(err instanceof StaleRevisionError)) throw err;
          conflicts++;
        }
      }
    };
    const written = await Promise.all(firstReads.map(increment));

    expect(conflicts).toBeGreaterThanOrEqual(19);
    const byRevision = [...written].sort((x, y) => (BigInt(x.revision) < BigInt(y.revision) ? -1 : 1));
    expect(new Set(written.map((w) => w.revision)).size).toBe(20);
    // Revision order is the order the increments applied in: each built on the one before.
    expect(byRevision.map((w) => w.object.count)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await store.get(key))!.object.count).toBe(20);
  });

  it('checks revision and uid preconditions; refuses duplicate creates and missing keys', async () => {
    const r = freshResource();
    const key = keyOf(r, 'p');
    const created = await store.create(key, objectOf('p'));
    await expect(store.create(key, objectOf('p'))).rejects.toBeInstanceOf(KeyExistsError);
    const updated = await store.update(key, objectOf('p', { v: 2 }), { revision: created.revision, uid: 'uid-p' });

    const stale = store.update(key, objectOf('p', { v: 3 }), { revision: created.revision });
    await expect(stale).rejects.toBeInstanceOf(StaleRevisionError);
    await expect(stale).rejects.toMatchObject({ expected: created.revision, actual: updated.revision });
    await expect(store.delete(key, { revision: created.revision })).rejects.toBeInstanceOf(StaleRevisionError);
    await expect(store.update(key, objectOf('p', { v: 3 }), { uid: 'someone-else' })).rejects.toBeInstanceOf(UidMismatchError);
    await expect(store.delete(key, { uid: 'someone-else' })).rejects.toBeInstanceOf(UidMismatchError);
    await expect(store.update(keyOf(r, 'missing'), objectOf('missing'))).rejects.toBeInstanceOf(KeyNotFoundError);
    await expect(store.delete(keyOf(r, 'missing'))).rejects.toBeInstanceOf(KeyNotFoundError);
    expect(await store.currentRevision()).toBe(updated.revision);

    const deleted = await store.delete(key, { revision: updated.revision, uid: 'uid-p' });
    expect(BigInt(deleted.revision)).toBe(BigInt(updated.revision) + 1n);
    expect(deleted.object).toMatchObject({ v: 2, metadata: { resourceVersion: deleted.revision } });
    expect(await store.get(key)).toBeNull();
    expect(await store.get(key, updated.revision)).toMatchObject({ object: { v: 2 } });
    expect(await store.get(key, deleted.revision)).toBeNull();
    // A deleted key can be created again.
    expect((await store.create(key, objectOf('p', { v: 'again' }))).object.v).toBe('again');
  });

  it('lists in bytewise key order with after/limit/remaining paging, also at an older revision', async () => {
    const r = freshResource();
    for (const n of ['c', 'a', 'e', 'B', 'd']) await store.create(keyOf(r, n), objectOf(n));
    await store.create(keyOf(r, 'z', 'other'), objectOf('z', {}, 'other'));
    await store.create(keyOf(r, 'y', 'kube-system'), objectOf('y', {}, 'kube-system'));
    const snapshot = await store.currentRevision();

    const all = await store.list(r);
    expect(names(all)).toEqual(['kube-system/y', 'ns/B', 'ns/a', 'ns/c', 'ns/d', 'ns/e', 'other/z']);
    expect(all).toMatchObject({ hasMore: false, revision: snapshot });
    expect(all.remaining).toBeUndefined();
    expect(all.items[1]).toMatchObject({ key: keyOf(r, 'B'), object: { metadata: { name: 'B', resourceVersion: all.items[1].revision } } });

    const first = await store.list(r, { namespace: 'ns', limit: 2 });
    expect(names(first)).toEqual(['ns/B', 'ns/a']);
    expect(first).toMatchObject({ hasMore: true, remaining: 3, revision: snapshot });
    const second = await store.list(r, { namespace: 'ns', limit: 2, after: { namespace: 'ns', name: 'a' } });
    expect(names(second)).toEqual(['ns/c', 'ns/d']);
    expect(second).toMatchObject({ hasMore: true, remaining: 1 });
    const last = await store.list(r, { namespace: 'ns', limit: 2, after: { namespace: 'ns', name: 'd' } });
    expect(names(last)).toEqual(['ns/e']);
    expect(last.hasMore).toBe(false);
    expect(await store.list(r, { namespace: 'ns', limit: 5 })).toMatchObject({ hasMore: false });
    expect(await store.list(r, { limit: 0 })).toMatchObject({ items: [], hasMore: true, remaining: 7 });
    // A reader that walks every page need not have the rest counted on each.
    const uncounted = await store.list(r, { namespace: 'ns', limit: 2, countRemaining: false });
    expect(names(uncounted)).toEqual(['ns/B', 'ns/a']);
    expect(uncounted.hasMore).toBe(true);
    expect(uncounted.remaining).toBeUndefined();
    expect(await store.list(freshResource())).toEqual({ items: [], revision: snapshot, hasMore: false });

    // Paging across namespaces visits every item once.
    const walked: string[] = [];
    for (let after: { namespace: string; name: string } | undefined, page: ListResult | undefined; !page || page.hasMore; ) {
      page = await store.list(r, { limit: 3, after });
      walked.push(...names(page));
      const tail = page.items[page.items.length - 1].key;
      after = { namespace: tail.namespace, name: tail.name };
    }
    expect(walked).toEqual(names(all));

    await store.delete(keyOf(r, 'a'));
    await store.update(keyOf(r, 'B'), objectOf('B', { changed: true }));
    await store.create(keyOf(r, 'f'), objectOf('f'));
    expect(names(await store.list(r, { namespace: 'ns' }))).toEqual(['ns/B', 'ns/c', 'ns/d', 'ns/e', 'ns/f']);

    const then = await store.list(r, { namespace: 'ns', atRevision: snapshot });
    expect(then.revision).toBe(snapshot);
    expect(names(then)).toEqual(['ns/B', 'ns/a', 'ns/c', 'ns/d', 'ns/e']);
    expect(then.items[0].object.changed).toBeUndefined();
    expect(then.items.every((i) => BigInt(i.revision) <= BigInt(snapshot))).toBe(true);
    const pagedThen = await store.list(r, { namespace: 'ns', atRevision: snapshot, limit: 2, after: { namespace: 'ns', name: 'B' } });
    expect(names(pagedThen)).toEqual(['ns/a', 'ns/c']);
    expect(pagedThen).toMatchObject({ hasMore: true, remaining: 2, revision: snapshot });
  });

  it('reports changes oldest first with their types and previous state', async () => {
    const r = freshResource();
    const start = await store.currentRevision();
    await store.create(keyOf(r, 'w'), objectOf('w', { v: 1 }));
    await store.update(keyOf(r, 'w'), objectOf('w', { v: 2 }));
    await store.create(keyOf(r, 'other'), objectOf('other'));
    await store.delete(keyOf(r, 'w'));
    const changes = await store.changesSince(start, 100);
    const base = BigInt(start);
    expect(changes.map((c) => [c.type, BigInt(c.revision) - base, c.key.name, c.object.v, c.object.metadata.resourceVersion === c.revision])).toEqual([
      ['ADDED', 1n, 'w', 1, true],
      ['MODIFIED', 2n, 'w', 2, true],
      ['ADDED', 3n, 'other', undefined, true],
      ['DELETED', 4n, 'w', 2, true],
    ]);
    expect(changes[0].previous).toBeUndefined();
    expect(changes[1].previous).toMatchObject({ v: 1, metadata: { resourceVersion: changes[0].revision } });
    expect(changes[3].previous).toMatchObject({ v: 2 });
    expect((await store.changesSince(start, 2)).map((c) => c.revision)).toEqual([changes[0].revision, changes[1].revision]);
    expect((await store.changesSince(changes[1].revision, 100)).map((c) => c.type)).toEqual(['ADDED', 'DELETED']);
    expect(await store.changesSince(await store.currentRevision(), 100)).toEqual([]);
  });

  it('keeps the author a write names with its change, and none when it names none', async () => {
    const r = freshResource();
    const start = await store.currentRevision();
    const alice = { author: { username: 'alice', groups: ['devs'] } };
    await store.create(keyOf(r, 'a'), objectOf('a', { v: 1 }), alice);
    await store.update(keyOf(r, 'a'), objectOf('a', { v: 2 }), undefined, { author: { username: 'bob' } });
    await store.create(keyOf(r, 'b'), objectOf('b'));
    await store.delete(keyOf(r, 'a'), undefined, { author: { username: 'system:controller:x' } });
    const changes = await store.changesSince(start, 100);
    expect(changes.map((c) => c.author)).toEqual([{ username: 'alice', groups: ['devs'] }, { username: 'bob' }, undefined, { username: 'system:controller:x' }]);
  });

  it('bounds a batch of changes by the bytes of their objects, the first always, and tells each change its size', async () => {
    const r = freshResource();
    const start = await store.currentRevision();
    const pad = (n: number) => ({ pad: 'x'.repeat(n) });
    await store.create(keyOf(r, 'a'), objectOf('a', pad(3000)));
    await store.create(keyOf(r, 'b'), objectOf('b', pad(3000)));
    await store.update(keyOf(r, 'a'), objectOf('a', pad(10)));
    await store.create(keyOf(r, 'c'), objectOf('c', pad(10)));
    const all = await store.changesSince(start, 100);
    expect(all.map((c) => c.key.name)).toEqual(['a', 'b', 'a', 'c']);
    // An object's size is its JSON text; an update's adds its previous state.
    const within = (low: number, high: number) => (n: number) => n > low && n < high;
    const [a, b, a2, c] = all.map((change) => change.bytes);
    expect([within(3000, 3300)(a), within(3000, 3300)(b), within(3000 + 10, 3500)(a2), within(10, 300)(c)]).toEqual([true, true, true, true]);
    expect(a2).toBeGreaterThan(a);
    expect((await store.changesSince(start, 100, 1)).map((c) => c.key.name)).toEqual(['a']);
    expect((await store.changesSince(start, 100, 3100)).map((c) => c.key.name)).toEqual(['a', 'b']);
    expect((await store.changesSince(start, 100, 6500)).map((c) => c.key.name)).toEqual(['a', 'b', 'a', 'c']);
    expect((await store.changesSince(start, 3, 6500)).map((c) => c.key.name)).toEqual(['a', 'b', 'a']);
  });

  it('compaction drops superseded rows and tombstones, keeps every newest row, and stays exact from its mark on', async () => {
    const t = await open();
    try {
      const s = t.store;
      const r = freshResource();
      await s.create(keyOf(r, 'live'), objectOf('live', { v: 1 })); // 1
      await s.update(keyOf(r, 'live'), objectOf('live', { v: 2 })); // 2
      await s.create(keyOf(r, 'gone'), objectOf('gone')); // 3
      await s.delete(keyOf(r, 'gone')); // 4
      await s.create(keyOf(r, 'single'), objectOf('single')); // 5
      expect(await s.currentRevision()).toBe('5');

      const result = await s.compact(0);
      // live@1 (superseded at 2), gone@3 and its tombstone@4: reads from 4 on stay exact.
      expect(result).toEqual({ removedRows: 3, compactedRevision: '4' });
      expect(await s.compactedRevision()).toBe('4');
      expect(names(await s.list(r, { atRevision: '4' }))).toEqual(['ns/live']);
      expect((await s.list(r, { atRevision: '5' })).items.map((i) => [i.key.name, i.object.v])).toEqual([
        ['live', 2],
        ['single', undefined],
      ]);
      expect((await s.changesSince('4', 10)).map((c) => c.revision)).toEqual(['5']);
      await expect(s.list(r, { atRevision: '3' })).rejects.toBeInstanceOf(RevisionCompactedError);
      await expect(s.get(keyOf(r, 'live'), '1')).rejects.toBeInstanceOf(RevisionCompactedError);
      await expect(s.changesSince('3', 10)).rejects.toBeInstanceOf(RevisionCompactedError);
      // Nothing new to sweep: nothing removed, the mark stays.
      expect(await s.compact(0)).toEqual({ removedRows: 0, compactedRevision: '4' });

      // With a window, history inside it is kept and every list at a revision in it is exact.
      const view = async (atRevision: string) => (await s.list(r, { atRevision })).items.map((i) => `${i.key.name}=${JSON.stringify(i.object.v)}`);
      const seen = new Map<string, string[]>();
      const remember = async () => {
        const rev = await s.currentRevision();
        seen.set(rev, await view(rev));
      };
      for (let i = 0; i < 3; i++) {
        await s.update(keyOf(r, 'live'), objectOf('live', { v: 10 + i })); // 6, 7, 8
        await remember();
      }
      await s.delete(keyOf(r, 'single')); // 9
      await remember();
      const oldEnd = await s.currentRevision();
      // An hour passes.
      await t.age(HOUR_MS);
      for (let i = 0; i < 3; i++) {
        await s.update(keyOf(r, 'live'), objectOf('live', { v: 20 + i }));
        await s.create(keyOf(r, `new${i}`), objectOf(`new${i}`));
        await remember();
      }
      // A window of half an hour: older than it are live@2, 6, 7 (superseded), single@5 and its tombstone@9.
      expect(await s.compact(HOUR_MS / 2)).toEqual({ removedRows: 5, compactedRevision: oldEnd });
      for (const [rev, expected] of seen) {
        if (BigInt(rev) >= BigInt(oldEnd)) expect(await view(rev)).toEqual(expected);
        else await expect(view(rev)).rejects.toBeInstanceOf(RevisionCompactedError);
      }
      // Rows inside the window are kept.
      expect((await s.changesSince(oldEnd, 100)).length).toBe(6);
      expect((await s.compact(60_000)).removedRows).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('refuses to create a key holding NUL and finds none', async () => {
    const r = freshResource();
    const bad = keyOf(r, 'a\u0000b');
    await expect(store.create(bad, objectOf('a\u0000b'))).rejects.toBeInstanceOf(UnstorableKeyError);
    // Such a key cannot exist, so there is nothing to update or delete.
    await expect(store.update(bad, objectOf('a\u0000b'))).rejects.toBeInstanceOf(KeyNotFoundError);
    await expect(store.delete(bad)).rejects.toBeInstanceOf(KeyNotFoundError);
    expect(await store.get(bad)).toBeNull();
    const revision = await store.currentRevision();
    expect(await store.list(r, { namespace: 'n\u0000s' })).toEqual({ items: [], revision, hasMore: false });
  });
}

describe('store contract on embedded PGlite', () => {
  storeContract(async () => {
    const t = await openTestDatabase('pglite');
    return { store: t.store, close: () => t.destroy(), age: (ms) => ageLog(t, ms) };
  });
});

describeWithPostgres('store contract on PostgreSQL', (url) => {
  storeContract(async () => {
    const t = await openTestDatabase('postgres', url);
    return { store: t.store, close: () => t.destroy(), age: (ms) => ageLog(t, ms) };
  });
});

describe('store contract on the in-memory fake of the unit tests', () => {
  storeContract(async () => memoryStore());
});

/**
 * The store as the API reads it: gets and lists from the caching store's memory (each
 * resource's cache is made ready before its first read, so every read below is the cache's,
 * or the store's where the cache falls back), writes through to the store.
 */
function cachedStore(t: TestDatabase): StoreUnderTest {
  const feed = new ChangeFeed(t.store, null);
  const informers = new Map<string, Informer>();
  const informerFor = (resource: string) => {
    let informer = informers.get(resource);
    if (!informer) informers.set(resource, (informer = new Informer(resource, t.store, feed)));
    return informer;
  };
  const started = feed.start();
  const caching = new CachingStore({
    store: t.store,
    informerFor,
    // Read from the store every time (as with PostgreSQL), not the sole writer's shortcut.
    currentRevision: async () => BigInt(await t.store.currentRevision()),
  });
  const warm = async (resource: string) => {
    await started;
    await caching.warm(resource);
  };
  const store: ObjectStore = Object.assign(Object.create(caching) as CachingStore, {
    get: async (key: ObjectKey, atRevision?: string) => {
      await warm(key.resource);
      return caching.get(key, atRevision);
    },
    list: async (resource: string, opts?: StoreRangeOptions) => {
      await warm(resource);
      return caching.list(resource, opts);
    },
  });
  return {
    store,
    close: async () => {
      await Promise.all([...informers.values()].map((informer) => informer.stop()));
      await feed.stop();
      await t.destroy();
    },
    age: (ms) => ageLog(t, ms),
  };
}

describe('store contract through the caching store on embedded PGlite', () => {
  storeContract(async () => cachedStore(await openTestDatabase('pglite')));
});

describeWithPostgres('store contract through the caching store on PostgreSQL', (url) => {
  storeContract(async () => cachedStore(await openTestDatabase('postgres', url)));
});
