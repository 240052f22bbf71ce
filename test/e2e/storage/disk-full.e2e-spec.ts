import { randomBytes } from 'node:crypto';
import { chownSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { KubeObject } from '../../../src/apimachinery/types';
import { metricsRegistry } from '../../../src/metrics/registry';
import { Database, openDatabase } from '../../../src/storage/engine/database';
import { MvccStore, serverStore } from '../../../src/storage/mvcc/mvcc-store';
import { ObjectKey } from '../../../src/storage/mvcc/object-store';
import { storageFailureOf } from '../../../src/storage/engine/storage-errors';
import { DISK_FULL_REPORT_MS, StoreDiskSpace } from '../../../src/storage/engine/store-disk-space';
import { openTestDatabase, TestDatabase } from '../../support/db';
import { ensureTemplate } from '../../support/db-template';
import { reachablePostgresUrl } from '../../support/postgres';
import { watchFailedEngineStarts } from '../../support/engine-restarts';
import { eventually } from '../../support/eventually';
import { mountSmallFilesystem, SmallFilesystem, smallFilesystemUnavailable } from '../../support/small-filesystem';

const RESOURCE = 'configmaps';
const keyOf = (name: string): ObjectKey => ({ resource: RESOURCE, namespace: 'default', name });
/** An object of about `bytes` that does not compress (TOAST would shrink a repetitive one). */
const objectOf = (name: string, bytes = 100): KubeObject => ({ metadata: { name, namespace: 'default', uid: `uid-${name}` }, data: { blob: randomBytes(bytes).toString('base64') } });

async function diskFullCount(): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('apiserver_storage_disk_full_total')!.get();
  return metric.values[0]?.value ?? 0;
}

/** What a promise rejects with (undefined when it resolves). */
const rejection = (work: Promise<unknown>) => work.then(() => undefined, (err: unknown) => err);

const unavailable = smallFilesystemUnavailable();

/**
 * The embedded store on a small file system filled on purpose. PostgreSQL meets a full disk in
 * two ways: a table that cannot grow is an ERROR (the transaction rolls back, the engine goes
 * on), a write-ahead log segment that cannot be made is a PANIC (PGlite's engine is gone; a new
 * one recovers from the log). Both are `disk-full` to the server, and both end, without a
 * restart of the server, once space is freed.
 */
(unavailable ? describe.skip : describe)(`the embedded store on a full disk${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let fs: SmallFilesystem;
  let db: Database;
  let store: MvccStore;
  let space: StoreDiskSpace;
  let now = 0;
  const notified: string[] = [];

  beforeAll(async () => {
    const template = await ensureTemplate();
    fs = mountSmallFilesystem(64);
    db = await openDatabase({ dataDir: join(fs.dir, 'data'), template });
    space = new StoreDiskSpace(() => now);
    store = serverStore(db, space);
    await db.notifier.listen((revision) => notified.push(revision));
  });
  afterEach(() => rmSync(join(fs.dir, 'filler'), { force: true }));
  afterAll(async () => {
    await db?.close();
    fs?.unmount();
  });

  it('refuses a write a table has no room for, keeps nothing of it, and stores again once space is freed', async () => {
    await store.create(keyOf('before-full'), objectOf('before-full'));
    const counted = await diskFullCount();
    const filler = fs.fill('filler', fs.free() - 512 * 1024);
    const stored: string[] = [];
    let refused: unknown;
    for (let i = 0; i < 200 && refused === undefined; i++) {
      const name = `large-${i}`;
      refused = await rejection(store.create(keyOf(name), objectOf(name, 48 * 1024)));
      if (refused === undefined) stored.push(name);
    }
    expect(storageFailureOf(refused)).toBe('disk-full');
    expect((refused as { code?: string }).code).toBe('53100');
    expect(() => space.check()).toThrow("the store's disk is full");
    expect(await diskFullCount()).toBe(counted + 1);

    // The engine goes on: reads are answered, the refused write left nothing, the revision was given back.
    const refusedName = `large-${stored.length}`;
    expect(await store.get(keyOf(refusedName))).toBeNull();
    expect(await store.get(keyOf('before-full'))).not.toBeNull();
    const last = stored.length ? (await store.get(keyOf(stored[stored.length - 1])))!.revision : undefined;
    if (last) expect(await store.currentRevision()).toBe(last);

    rmSync(filler);
    const again = await store.create(keyOf(refusedName), objectOf(refusedName, 48 * 1024));
    expect(BigInt(again.revision)).toBe(BigInt(await store.currentRevision()));
    // Readiness comes back a while after the last refusal (one write stored proves little).
    now += DISK_FULL_REPORT_MS;
    expect(() => space.check()).not.toThrow();
  });

  it('starts the engine again after a PANIC (no room for a new log segment), with every committed write and nothing of the interrupted one', async () => {
    const committed = await store.create(keyOf('committed-before-panic'), objectOf('committed-before-panic'));
    const filler = fs.fill('filler', fs.free() - 2 * 1024 * 1024);
    // The next write needs a new 16 MiB segment of the write-ahead log, which no longer fits.
    await db.sql.query('SELECT pg_switch_wal()');
    const failedStarts = watchFailedEngineStarts();
    const panicked = await rejection(store.create(keyOf('interrupted'), objectOf('interrupted')));
    expect(storageFailureOf(panicked)).toBe('disk-full');
    expect((panicked as { severity?: string }).severity).toBe('PANIC');

    // Until an engine starts (not while the disk is full), every statement fails with that cause:
    // after the first attempts to start one (0.5 s, then 1 s later), not only until then.
    await eventually(() => expect(failedStarts.count()).toBeGreaterThanOrEqual(2), 10_000, 50).finally(() => failedStarts.stop());
    const whileDown = await rejection(store.get(keyOf('committed-before-panic')));
    expect(storageFailureOf(whileDown)).toBe('disk-full');
    expect((whileDown as Error).message).toMatch(/^the embedded store engine stopped: /);

    notified.length = 0;
    rmSync(filler);
    let after!: Awaited<ReturnType<MvccStore['create']>>;
    await eventually(async () => void (after = await store.create(keyOf('after-panic'), objectOf('after-panic'))), 20_000, 250);
    expect(await store.get(keyOf('committed-before-panic'))).toMatchObject({ revision: committed.revision });
    expect(await store.get(keyOf('interrupted'))).toBeNull();
    // The interrupted write's revision is not taken: the next one follows the last committed.
    expect(BigInt(after.revision)).toBe(BigInt(committed.revision) + 1n);
    // Listeners listen on the new engine: told once to look (nothing was said while down), then of each commit.
    expect(notified).toEqual(['', after.revision]);
  });
});

const postgresUrl = reachablePostgresUrl();
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]', '']);
const postgresUnavailable = !postgresUrl
  ? 'no PostgreSQL server is reachable; set DATABASE_URL'
  : !LOCAL_HOSTS.has(new URL(postgresUrl).hostname)
    ? 'the PostgreSQL server is not on this machine, so its tables cannot be put on a file system the test mounts'
    : unavailable;

/**
 * PostgreSQL itself out of space: the store's tables moved into a tablespace on a small file
 * system (the server's write-ahead log stays on its own disk), then that file system filled. The
 * server refuses the write with disk_full (53100, "could not extend file"), the transaction rolls
 * back, and the same write succeeds once space is freed. Needs a PostgreSQL server on this
 * machine that the test may administer (CREATE TABLESPACE).
 */
(postgresUnavailable ? describe.skip : describe)(`PostgreSQL with the store's tables on a full disk${postgresUnavailable ? ` (skipped: ${postgresUnavailable})` : ''}`, () => {
  let fs: SmallFilesystem;
  let admin: Client;
  let test: TestDatabase;
  let store: MvccStore;
  const tablespace = `small_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    fs = mountSmallFilesystem(16);
    admin = new Client({ connectionString: postgresUrl });
    await admin.connect();
    // A tablespace's directory belongs to the server's own user, as its data directory does.
    const [{ dir }] = (await admin.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir")).rows;
    const owner = statSync(dir);
    chownSync(fs.dir, owner.uid, owner.gid);
    await admin.query(`CREATE TABLESPACE ${tablespace} LOCATION '${fs.dir}'`);
    test = await openTestDatabase('postgres', postgresUrl);
    for (const table of ['kv_log', 'kv_current']) await test.db.dataSource.query(`ALTER TABLE ${table} SET TABLESPACE ${tablespace}`);
    store = serverStore(test.db, new StoreDiskSpace());
  });
  afterEach(() => rmSync(join(fs.dir, 'filler'), { force: true }));
  afterAll(async () => {
    await test?.destroy();
    await admin?.query(`DROP TABLESPACE IF EXISTS ${tablespace}`);
    await admin?.end();
    fs?.unmount();
  });

  it('refuses a write no table has room for with disk_full, keeps nothing of it, and stores it once space is freed', async () => {
    const filler = fs.fill('filler', fs.free() - 256 * 1024);
    const stored: string[] = [];
    let refused: unknown;
    for (let i = 0; i < 100 && refused === undefined; i++) {
      const name = `pg-large-${i}`;
      refused = await rejection(store.create(keyOf(name), objectOf(name, 48 * 1024)));
      if (refused === undefined) stored.push(name);
    }
    expect(storageFailureOf(refused)).toBe('disk-full');
    expect(refused).toMatchObject({ code: '53100', message: expect.stringMatching(/^could not extend file/) });
    const refusedName = `pg-large-${stored.length}`;
    expect(await store.get(keyOf(refusedName))).toBeNull();
    if (stored.length) expect(await store.currentRevision()).toBe((await store.get(keyOf(stored[stored.length - 1])))!.revision);

    rmSync(filler);
    expect(await store.create(keyOf(refusedName), objectOf(refusedName, 48 * 1024))).toMatchObject({ revision: await store.currentRevision() });
  });
});
