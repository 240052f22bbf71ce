import { KubeObject } from '../../../src/apimachinery/types';
import { DataDirInUseError } from '../../../src/storage/engine/data-dir-lock';
import { openDatabase } from '../../../src/storage/engine/database';
import { MvccStore } from '../../../src/storage/mvcc/mvcc-store';
import { ALL_MIGRATIONS } from '../../../migrations';
import { KeyExistsError, ObjectKey, StoredObject } from '../../../src/storage/mvcc/object-store';
import { eventually } from '../../support/eventually';
import { dropTestSchema, engineName, newTestSchema, openTestDatabase, TestDatabase, TestEngine, testEngines } from '../../support/db';

let resources = 0;
/** A resource no other test writes, so tests can share one database. */
const freshResource = () => `test.platform.io/things${++resources}`;

const keyOf = (resource: string, name: string, namespace = 'ns'): ObjectKey => ({ resource, namespace, name });
const objectOf = (name: string, extra: Record<string, unknown> = {}, namespace = 'ns'): KubeObject => ({
  metadata: { name, namespace, uid: `uid-${name}` },
  ...extra,
});

/**
 * The engines' internals on every engine of this run (PGlite always, PostgreSQL with
 * DATABASE_URL): transactions, notifications, restarts, migrations. The ObjectStore contract
 * itself, shared with the in-memory fake, is in contract.e2e-spec.ts.
 */
describe.each(testEngines())('MVCC store on %s', (engine) => {
  let shared: TestDatabase;
  let store: MvccStore;

  beforeAll(async () => {
    shared = await openTestDatabase(engine);
    store = shared.store;
  });
  afterAll(async () => {
    await shared?.destroy();
  });

  /** A test of one engine's own behaviour: on the other it is reported skipped, with the reason in its name. */
  function onlyOn(wanted: TestEngine, why: string, name: string, fn: () => Promise<void>): void {
    if (engine === wanted) it(name, fn);
    else it.skip(`${name} (skipped on ${engineName(engine)}: ${why})`, fn);
  }

  it(`runs on ${engineName(engine)}`, () => {
    expect(shared.db.engine).toBe(engine);
  });

  it('hands on the object the writer read as the previous state when the revision precondition holds, and checks it as before', async () => {
    const r = freshResource();
    const key = keyOf(r, 'big');
    const created = await store.create(key, objectOf('big', { rules: Array.from({ length: 50 }, (_, i) => ({ verbs: ['get'], resources: [`r${i}`] })) }));
    const seen: Array<{ type: string; previous?: KubeObject; bytes: number }> = [];
    const stop = store.addCommitListener({ committing: () => undefined, abandoned: () => undefined, committed: (c) => void seen.push(c) });
    try {
      const updated = await store.update(key, objectOf('big', { rules: [] }), { revision: created.revision, previous: created.object });
      // The writer's copy, not a parse of the stored text; its size still counted.
      expect(seen[0].previous).toBe(created.object);
      expect(seen[0].bytes).toBeGreaterThan(JSON.stringify(created.object).length);
      // A stale revision is refused whatever copy comes with it.
      await expect(store.update(key, objectOf('big'), { revision: created.revision, previous: created.object })).rejects.toThrow(/revision mismatch/);
      // Without a revision the copy proves nothing: the stored state is read.
      await store.update(key, objectOf('big', { v: 3 }), { previous: created.object });
      expect(seen[1].previous).toMatchObject({ rules: [], metadata: { resourceVersion: updated.revision } });
      const gone = await store.delete(key, { revision: String(BigInt(updated.revision) + 1n), previous: { metadata: { name: 'not-read' } } });
      expect(seen[2]).toMatchObject({ type: 'DELETED', previous: { metadata: { name: 'not-read' } } });
      expect(gone.object.metadata.name).toBe('not-read');
      // What the log holds is the stored state, as before.
      const logged = await store.changesSince(created.revision, 10);
      expect(logged.map((c) => c.previous?.metadata?.resourceVersion)).toEqual([created.revision, updated.revision, String(BigInt(updated.revision) + 1n)]);
    } finally {
      stop();
    }
  });

  onlyOn('pglite', 'a PostgreSQL server has its own settings', 'keeps the embedded engine small: shared_buffers, and what a vacuum and an analyze may hold', async () => {
    const setting = async (name: string) => (await shared.db.dataSource.query(`SELECT current_setting('${name}') AS v`))[0].v;
    expect(await setting('shared_buffers')).toBe('16MB');
    expect(await setting('maintenance_work_mem')).toBe('8MB');
    expect(await setting('default_statistics_target')).toBe('10');
  });

  it('a transaction that throws leaves nothing behind, and nobody saw its rows', async () => {
    const r = freshResource();
    const ghost = keyOf(r, 'ghost');
    const before = await store.currentRevision();
    let seenFromOutside: Promise<StoredObject | null> | undefined;
    await expect(
      shared.db.dataSource.transaction(async (tx) => {
        const [{ revision }] = await tx.query(`WITH n AS (UPDATE kv_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision) SELECT revision::text AS revision FROM n`);
        await tx.query(`INSERT INTO kv_current (resource, namespace, name, revision, object) VALUES ($1, 'ns', 'ghost', $2, '{}')`, [r, revision]);
        await tx.query(`INSERT INTO kv_log (revision, resource, namespace, name, op, object) VALUES ($2, $1, 'ns', 'ghost', 'create', '{}')`, [r, revision]);
        // A reader outside the transaction while it is open: PostgreSQL answers it from another
        // session now; the embedded engine's one session answers it once the transaction is over.
        seenFromOutside = store.get(ghost);
        if (engine === 'postgres') expect(await seenFromOutside).toBeNull();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await seenFromOutside).toBeNull();
    expect(await store.currentRevision()).toBe(before);
    expect(await store.get(ghost)).toBeNull();
    expect(await shared.db.dataSource.query(`SELECT 1 FROM kv_log WHERE resource = $1`, [r])).toEqual([]);
    expect(await store.changesSince(before, 10)).toEqual([]);

    // A store write that fails part-way (the key exists) gives its revision back too.
    await store.create(keyOf(r, 'real'), objectOf('real'));
    const after = await store.currentRevision();
    await expect(store.create(keyOf(r, 'real'), objectOf('real'))).rejects.toBeInstanceOf(KeyExistsError);
    expect(await store.currentRevision()).toBe(after);
    expect((await store.create(keyOf(r, 'next'), objectOf('next'))).revision).toBe((BigInt(after) + 1n).toString());
  });

  it('wakes a listener with the revision of each committed write, never for a rolled-back one', async () => {
    const r = freshResource();
    const heard: string[] = [];
    const unlisten = await shared.db.notifier.listen((revision) => heard.push(revision));
    try {
      await expect(
        shared.db.dataSource.transaction(async (tx) => {
          await tx.query(`SELECT pg_notify('kv_changes', 'rolled-back')`);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      const written = await store.create(keyOf(r, 'y'), objectOf('y'));
      await eventually(async () => {
        await store.currentRevision(); // PGlite delivers notifications as it runs statements
        expect(heard).toContain(written.revision);
      }, 5000, 10);
      expect(heard).not.toContain('rolled-back');
    } finally {
      await unlisten();
    }
    // After unlisten, nothing more arrives: a second listener hears the next write (the barrier), the first does not.
    const count = heard.length;
    const barrier: string[] = [];
    const unlistenBarrier = await shared.db.notifier.listen((revision) => barrier.push(revision));
    try {
      const z = await store.create(keyOf(r, 'z'), objectOf('z'));
      await eventually(async () => {
        await store.currentRevision();
        expect(barrier).toContain(z.revision);
      }, 5000, 10);
    } finally {
      await unlistenBarrier();
    }
    expect(heard.length).toBe(count);
  });

  onlyOn('postgres', "the embedded engine's notifications never travel a connection", 'wakes a listener once it listens again after its connection was cut (the NOTIFYs of the gap went to nobody)', async () => {
    const heard: string[] = [];
    const unlisten = await shared.db.notifier.listen((revision) => heard.push(revision));
    try {
      const [{ count }] = await shared.db.dataSource.query(
        `SELECT count(pg_terminate_backend(pid))::int AS count FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN kv_changes'`,
      );
      expect(count).toBeGreaterThan(0);
      await eventually(() => expect(heard).toContain(''), 10_000, 20);
    } finally {
      await unlisten();
    }
  });

  it('keeps data across a restart', async () => {
    const t = await openTestDatabase(engine);
    try {
      const r = freshResource();
      await t.store.create(keyOf(r, 'durable'), objectOf('durable', { v: 7 }));
      await t.store.update(keyOf(r, 'durable'), objectOf('durable', { v: 8 }));
      await t.close();
      const reopened = await openDatabase(t.settings);
      try {
        const again = new MvccStore(reopened.dataSource);
        expect((await again.get(keyOf(r, 'durable')))?.object.v).toBe(8);
        expect((await again.get(keyOf(r, 'durable'), '1'))?.object.v).toBe(7);
        expect(await again.currentRevision()).toBe('2');
        expect((await again.create(keyOf(r, 'next'), objectOf('next'))).revision).toBe('3');
      } finally {
        await reopened.close();
      }
    } finally {
      await t.destroy();
    }
  });

  onlyOn('pglite', "PostgreSQL's autovacuum runs on its own schedule", 'reuses the space of compacted rows: the log does not grow over rounds of the same writes (the embedded engine vacuums)', async () => {
    const t = await openTestDatabase(engine);
    try {
      const s = t.store;
      const r = freshResource();
      for (let i = 0; i < 20; i++) await s.create(keyOf(r, `k${i}`), objectOf(`k${i}`, { v: 0 }));
      const size = async () =>
        Number((await t.db.dataSource.query(`SELECT pg_total_relation_size('kv_log') + pg_total_relation_size('kv_current') AS bytes`))[0].bytes);
      const round = async (n: number) => {
        for (let v = 1; v <= 10; v++) await Promise.all(Array.from({ length: 20 }, (_, i) => s.update(keyOf(r, `k${i}`), objectOf(`k${i}`, { v: n * 100 + v, pad: 'x'.repeat(400) }))));
        expect((await s.compact(0)).removedRows).toBeGreaterThan(0);
      };
      await round(1);
      await round(2);
      const settled = await size();
      for (let n = 3; n <= 8; n++) await round(n);
      // Six more rounds of 200 updates each (~100 KB of rows per round) fit in the space freed before.
      expect(await size()).toBeLessThanOrEqual(settled + 64 * 1024);
    } finally {
      await t.destroy();
    }
  });

  onlyOn('pglite', "PostgreSQL's autovacuum decides there", "vacuums only past autovacuum's threshold: a compaction that removed a few rows leaves the tables be", async () => {
    const t = await openTestDatabase(engine);
    try {
      const s = t.store;
      const r = freshResource();
      const vacuums = async () => {
        await t.db.dataSource.query('SELECT pg_stat_force_next_flush()');
        const rows = await t.db.dataSource.query(`SELECT coalesce(sum(vacuum_count), 0)::int AS n FROM pg_stat_user_tables WHERE relname IN ('kv_log', 'kv_current')`);
        return Number(rows[0].n);
      };
      for (let i = 0; i < 100; i++) await s.create(keyOf(r, `k${i}`), objectOf(`k${i}`, { v: 0 }));
      // Compact away what is there now (the creates of other tests' keys too), so what follows counts alone.
      await s.compact(0);
      const before = await vacuums();
      for (let i = 0; i < 10; i++) await s.update(keyOf(r, `k${i}`), objectOf(`k${i}`, { v: 1 }));
      expect((await s.compact(0)).removedRows).toBe(10);
      expect(await vacuums()).toBe(before);
      for (let v = 2; v <= 4; v++) await Promise.all(Array.from({ length: 100 }, (_, i) => s.update(keyOf(r, `k${i}`), objectOf(`k${i}`, { v }))));
      expect((await s.compact(0)).removedRows).toBe(300);
      expect(await vacuums()).toBeGreaterThan(before);
    } finally {
      await t.destroy();
    }
  });

  it('compacts a log longer than one compaction step in steps that add up to one sweep', async () => {
    const t = await openTestDatabase(engine);
    try {
      const s = t.store;
      const r = freshResource();
      // 2,504 revisions: 'hot' rewritten over and over, 'cold' written once early, 'gone' deleted late.
      await s.create(keyOf(r, 'cold'), objectOf('cold'));
      await s.create(keyOf(r, 'gone'), objectOf('gone'));
      await s.create(keyOf(r, 'hot'), objectOf('hot', { v: 0 }));
      for (let v = 1; v <= 2500; v += 25) {
        // Many at once (group commit): updates without preconditions all commit.
        await Promise.all(Array.from({ length: 25 }, (_, i) => s.update(keyOf(r, 'hot'), objectOf('hot', { v: v + i }))));
      }
      await s.delete(keyOf(r, 'gone'));
      const last = await s.currentRevision();
      expect(last).toBe('2504');
      const result = await s.compact(0);
      expect(result.removedRows).toBe(2500 + 2);
      // Everything older than the newest rows is gone; the mark is past the tombstone.
      expect(result.compactedRevision).toBe(last);
      expect(await t.db.dataSource.query(`SELECT name, op FROM kv_log ORDER BY revision`)).toEqual([
        { name: 'cold', op: 'create' },
        { name: 'hot', op: 'update' },
      ]);
      expect((await s.get(keyOf(r, 'hot')))?.object).toMatchObject({ v: expect.any(Number) });
      expect((await s.list(r, { atRevision: last })).items.map((i) => i.key.name)).toEqual(['cold', 'hot']);
      expect(await s.compact(0)).toEqual({ removedRows: 0, compactedRevision: last });
    } finally {
      await t.destroy();
    }
  });

  onlyOn('postgres', 'an embedded data directory takes one server at a time', 'two servers starting at once on a new schema both come up, migrated once', async () => {
    const settings = { databaseUrl: process.env.DATABASE_URL!, dataDir: shared.settings.dataDir, schema: newTestSchema() };
    const [a, b] = await Promise.all([openDatabase(settings), openDatabase(settings)]);
    try {
      // Each migration recorded once, though both servers ran them.
      const applied = (await a.dataSource.query('SELECT name FROM kv_migrations')) as Array<{ name: string }>;
      expect(applied.map((m) => m.name).sort()).toEqual(ALL_MIGRATIONS.map((m) => m.name).sort());
      const r = freshResource();
      await new MvccStore(a.dataSource).create(keyOf(r, 'shared'), objectOf('shared'));
      expect(await new MvccStore(b.dataSource).get(keyOf(r, 'shared'))).toMatchObject({ revision: '1' });
    } finally {
      await Promise.all([a.close(), b.close()]);
      await dropTestSchema(settings.databaseUrl, settings.schema);
    }
  });

  onlyOn('pglite', 'servers on PostgreSQL share its database, they have no data directory to lock', 'refuses a second server on the same embedded data directory', async () => {
    const second = openDatabase(shared.settings);
    await expect(second).rejects.toBeInstanceOf(DataDirInUseError);
    await expect(second).rejects.toThrow(`data directory ${shared.settings.dataDir} is in use by another server (pid ${process.pid})`);
    // The refused attempt left the first server's lock and data alone.
    expect(await store.currentRevision()).toMatch(/^\d+$/);
    await expect(openDatabase(shared.settings)).rejects.toBeInstanceOf(DataDirInUseError);
  });
});
