import { openDatabase } from '../../../src/storage/database';
import { DataDirInUseError } from '../../../src/storage/data-dir-lock';
import { MvccStore } from '../../../src/storage/mvcc-store';
import { KeyExistsError, KeyNotFoundError, RevisionCompactedError, StaleRevisionError, UidMismatchError } from '../../../src/storage/object-store';
import { engineName, openTestDatabase, TestDatabase } from '../../support/db';

const key = (name: string, namespace = 'ns') => ({ resource: 'rbac.authorization.platform.io/roles', namespace, name });
const obj = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name, namespace: 'ns', uid: `uid-${name}` }, ...extra });

/** The storage contract, run against the engine of this run (PGlite, or PostgreSQL with DATABASE_URL). */
describe(`MVCC store on ${engineName()}`, () => {
  let t: TestDatabase;
  let store: MvccStore;

  beforeEach(async () => {
    t = await openTestDatabase();
    store = t.store;
  });
  afterEach(async () => {
    await t.destroy();
  });

  it('assigns one strictly increasing revision per write and reads it back as resourceVersion', async () => {
    const a = await store.create(key('a'), obj('a'));
    const b = await store.create(key('b'), obj('b'));
    const a2 = await store.update(key('a'), obj('a', { x: 1 }), { revision: a.revision });
    expect([a, b, a2].map((s) => Number(s.revision))).toEqual([1, 2, 3]);
    expect(await store.currentRevision()).toBe('3');
    const got = await store.get(key('a'));
    expect(got).toMatchObject({ revision: '3', object: { x: 1, metadata: { resourceVersion: '3' } } });
    await expect(store.create(key('a'), obj('a'))).rejects.toBeInstanceOf(KeyExistsError);
    expect(await store.currentRevision()).toBe('3');
  });

  it('20 concurrent read-modify-write updates of one key: distinct revisions or clean conflicts, no lost update', async () => {
    await store.create(key('counter'), obj('counter', { count: 0 }));
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, async () => {
        const current = await store.get(key('counter'));
        const count = (current!.object.count as number) + 1;
        return store.update(key('counter'), obj('counter', { count }), { revision: current!.revision });
      }),
    );
    const ok = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<MvccStore['update']>>> => r.status === 'fulfilled');
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok.length + failed.length).toBe(20);
    for (const f of failed) expect(f.reason).toBeInstanceOf(StaleRevisionError);
    const revisions = ok.map((r) => BigInt(r.value.revision));
    expect(new Set(revisions).size).toBe(revisions.length);
    const final = await store.get(key('counter'));
    // Every successful update built on the previous one: the count equals the number of successes.
    expect(final!.object.count).toBe(ok.length);
    const log = await store.changesSince('0', 100);
    const mine = log.filter((c) => c.key.name === 'counter').map((c) => c.object.count);
    expect(mine).toEqual(Array.from({ length: ok.length + 1 }, (_, i) => i));
  });

  it('checks revision and uid preconditions on update and delete', async () => {
    const a = await store.create(key('p'), obj('p'));
    await store.update(key('p'), obj('p', { v: 2 }), { revision: a.revision });
    await expect(store.update(key('p'), obj('p', { v: 3 }), { revision: a.revision })).rejects.toBeInstanceOf(StaleRevisionError);
    await expect(store.delete(key('p'), { revision: a.revision })).rejects.toBeInstanceOf(StaleRevisionError);
    await expect(store.delete(key('p'), { uid: 'other' })).rejects.toBeInstanceOf(UidMismatchError);
    await expect(store.update(key('missing'), obj('missing'))).rejects.toBeInstanceOf(KeyNotFoundError);
    const deleted = await store.delete(key('p'), { uid: 'uid-p' });
    expect(deleted.object).toMatchObject({ v: 2, metadata: { resourceVersion: deleted.revision } });
    expect(await store.get(key('p'))).toBeNull();
  });

  it('a transaction that fails leaves nothing behind', async () => {
    await store.create(key('keep'), obj('keep'));
    const before = await store.currentRevision();
    await expect(
      t.db.dataSource.transaction(async (m) => {
        await m.query('UPDATE kv_revision SET revision = revision + 1 WHERE id = 1');
        await m.query(`INSERT INTO kv_current (resource, namespace, name, revision, object) VALUES ('x', '', 'ghost', 99, '{}')`);
        await m.query(`INSERT INTO kv_log (revision, resource, namespace, name, op, object) VALUES (99, 'x', '', 'ghost', 1, '{}')`);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.currentRevision()).toBe(before);
    expect(await t.db.dataSource.query(`SELECT * FROM kv_current WHERE name = 'ghost'`)).toEqual([]);
    expect(await t.db.dataSource.query(`SELECT * FROM kv_log WHERE name = 'ghost'`)).toEqual([]);
    // A failed store write (key exists) also leaves the counter where it was.
    await expect(store.create(key('keep'), obj('keep'))).rejects.toBeInstanceOf(KeyExistsError);
    expect(await store.currentRevision()).toBe(before);
  });

  it('lists in key order with paging, remaining counts, and at an older revision', async () => {
    for (const n of ['c', 'a', 'e', 'b', 'd']) await store.create(key(n), obj(n));
    await store.create(key('z', 'other'), obj('z'));
    const first = await store.list(key('').resource, { namespace: 'ns', limit: 2 });
    expect(first.items.map((i) => i.key.name)).toEqual(['a', 'b']);
    expect(first).toMatchObject({ hasMore: true, remaining: 3, revision: '6' });
    const second = await store.list(key('').resource, { namespace: 'ns', limit: 2, after: { namespace: 'ns', name: 'b' } });
    expect(second.items.map((i) => i.key.name)).toEqual(['c', 'd']);
    const all = await store.list(key('').resource);
    expect(all.items.map((i) => `${i.key.namespace}/${i.key.name}`)).toEqual(['ns/a', 'ns/b', 'ns/c', 'ns/d', 'ns/e', 'other/z']);
    expect(all.hasMore).toBe(false);

    const snapshot = await store.currentRevision();
    await store.delete(key('a'));
    await store.update(key('b'), obj('b', { changed: true }));
    await store.create(key('f'), obj('f'));
    const then = await store.list(key('').resource, { namespace: 'ns', atRevision: snapshot });
    expect(then.revision).toBe(snapshot);
    expect(then.items.map((i) => i.key.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(then.items[1].object.changed).toBeUndefined();
    const pagedThen = await store.list(key('').resource, { namespace: 'ns', atRevision: snapshot, limit: 2, after: { namespace: 'ns', name: 'a' } });
    expect(pagedThen).toMatchObject({ hasMore: true, remaining: 2 });
    expect(await store.get(key('a'), snapshot)).not.toBeNull();
    expect(await store.get(key('a'))).toBeNull();
  });

  it('reports changes in revision order with their types and previous state', async () => {
    await store.create(key('w'), obj('w', { v: 1 }));
    await store.update(key('w'), obj('w', { v: 2 }));
    await store.delete(key('w'));
    const changes = await store.changesSince('0', 10);
    expect(changes.map((c) => [c.type, c.revision, c.object.v])).toEqual([
      ['ADDED', '1', 1],
      ['MODIFIED', '2', 2],
      ['DELETED', '3', 2],
    ]);
    expect(changes[1].previous).toMatchObject({ v: 1 });
    expect(await store.changesSince('1', 1)).toHaveLength(1);
  });

  it('compaction drops superseded rows, keeps every newest row, and reports older revisions as compacted', async () => {
    await store.create(key('live'), obj('live', { v: 1 }));
    await store.update(key('live'), obj('live', { v: 2 }));
    await store.create(key('gone'), obj('gone'));
    await store.delete(key('gone'));
    await store.create(key('single'), obj('single'));
    const mark = await store.currentRevision();
    const result = await store.compact(0);
    expect(result.compactedRevision).toBe(mark);
    expect(result.removedRows).toBe(3); // live@1, gone@3 and its tombstone
    expect(await store.compactedRevision()).toBe(mark);
    const rows: Array<{ name: string }> = await t.db.dataSource.query('SELECT name FROM kv_log ORDER BY revision');
    expect(rows.map((r) => r.name)).toEqual(['live', 'single']);
    // The newest state is intact and exact at the compaction mark.
    const current = await store.list(key('').resource, { namespace: 'ns', atRevision: mark });
    expect(current.items.map((i) => [i.key.name, i.object.v])).toEqual([
      ['live', 2],
      ['single', undefined],
    ]);
    await expect(store.list(key('').resource, { atRevision: '1' })).rejects.toBeInstanceOf(RevisionCompactedError);
    await expect(store.changesSince('1', 10)).rejects.toBeInstanceOf(RevisionCompactedError);
    await expect(store.get(key('live'), '2')).rejects.toBeInstanceOf(RevisionCompactedError);
    // Rows inside the window are kept.
    await store.update(key('live'), obj('live', { v: 3 }));
    expect((await store.compact(60_000)).removedRows).toBe(0);
  });

  it('keeps data across a restart', async () => {
    await store.create(key('durable'), obj('durable', { v: 7 }));
    await t.close();
    const reopened = await openDatabase(t.settings);
    try {
      const again = new MvccStore(reopened.dataSource);
      expect((await again.get(key('durable')))?.object.v).toBe(7);
      expect(await again.currentRevision()).toBe('1');
      expect((await again.create(key('next'), obj('next'))).revision).toBe('2');
    } finally {
      await reopened.close();
    }
  });

  it('wakes a listener after a committed write', async () => {
    const woken = new Promise<void>((resolve) => {
      void t.db.wakeups.subscribe(() => resolve()).then((unsubscribe) => {
        void store.create(key('notify'), obj('notify'));
        return woken.then(unsubscribe);
      });
    });
    await expect(Promise.race([woken, new Promise((_, reject) => setTimeout(() => reject(new Error('no notification')), 5000))])).resolves.toBeUndefined();
  });

  if (!process.env.DATABASE_URL) {
    it('refuses a second server on the same embedded data directory', async () => {
      await expect(openDatabase(t.settings)).rejects.toBeInstanceOf(DataDirInUseError);
      await expect(openDatabase(t.settings)).rejects.toThrow(`data directory ${t.settings.dataDir} is in use by another server (pid ${process.pid})`);
    });
  }
});
