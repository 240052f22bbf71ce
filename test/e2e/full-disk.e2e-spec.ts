import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/storage/engine/database';
import { DATABASE } from '../../src/storage/storage.module';
import { DISK_FULL_REPORT_MS } from '../../src/storage/engine/store-disk-space';
import { watchFailedEngineStarts } from '../support/engine-restarts';
import { eventually } from '../support/eventually';
import { mountSmallFilesystem, SmallFilesystem, smallFilesystemUnavailable } from '../support/small-filesystem';
import { startTestServer, TestServer } from '../support/test-server';
import { metricSample } from '../support/webhook-server';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
/** A ConfigMap of about `bytes` of data that does not compress (the store would shrink a repetitive one). */
const configMap = (name: string, bytes = 100) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { suite: 'full-disk' } }, data: { blob: randomBytes(bytes).toString('base64') } });

const DISK_FULL_STATUS = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: "the store's disk is full; please try again later",
  reason: 'ServiceUnavailable',
  details: { retryAfterSeconds: 1 },
  code: 503,
};

const unavailable = smallFilesystemUnavailable();

/**
 * The server with its embedded store on a small file system, filled by writes. A write that
 * cannot be stored is 503 ServiceUnavailable naming the cause, with Retry-After; /readyz fails
 * `storage-space` meanwhile and a counter counts the refusals; nothing of a refused write is
 * ever visible; and writes are stored again as soon as space is freed (a file placed on the same
 * file system beforehand is deleted: deletes through the API need space too), with no restart
 * of the server. Both ways PostgreSQL meets a full disk are covered: a table that cannot grow (an
 * ERROR: the engine goes on, reads are served), and a new segment of its write-ahead log that
 * cannot be made (a PANIC: the engine is started again once there is room).
 */
(unavailable ? describe.skip : describe)(`a full disk under the embedded store${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let fs: SmallFilesystem;
  let server: TestServer;

  const diskFullCount = async () => metricSample((await server.admin.get('/metrics')).text, 'apiserver_storage_disk_full_total') ?? 0;
  const namesStored = async () => ((await server.admin.get(`${CONFIGMAPS}?labelSelector=suite%3Dfull-disk`)).body.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name).sort();

  beforeAll(async () => {
    fs = mountSmallFilesystem(80);
    server = await startTestServer({ dataDir: join(fs.dir, 'data'), embedded: true });
  });
  // A test that fails leaves no filler behind for the next.
  afterEach(() => rmSync(join(fs.dir, 'filler'), { force: true }));
  afterAll(async () => {
    await server?.close();
    fs?.unmount();
  });

  it('answers a write no table has room for 503 with the cause, serves reads, and stores again once space is freed', async () => {
    expect((await server.anonymous.get('/readyz')).status).toBe(200);
    const counted = await diskFullCount();
    const filler = fs.fill('filler', fs.free() - 512 * 1024);

    const stored: string[] = [];
    let refused: { name: string; res: Awaited<ReturnType<TestServer['admin']['post']>> } | undefined;
    for (let i = 0; i < 100 && !refused; i++) {
      const name = `table-full-${i}`;
      const res = await server.admin.post(CONFIGMAPS, configMap(name, 48 * 1024));
      if (res.status === 201) stored.push(name);
      else refused = { name, res };
    }
    expect(refused?.res.status).toBe(503);
    expect(refused!.res.body).toEqual(DISK_FULL_STATUS);
    expect(refused!.res.headers['retry-after']).toBe('1');

    const ready = await server.anonymous.get('/readyz?verbose');
    expect(ready.status).toBe(500);
    expect(ready.text).toContain('[+]storage ok\n[-]storage-space failed: reason withheld\n');
    expect((await server.anonymous.get('/readyz/storage-space')).text).toBe("internal server error: the store's disk is full\n");
    // Alive all the same: only readiness says that writes fail.
    expect((await server.anonymous.get('/livez')).status).toBe(200);
    expect(await diskFullCount()).toBeGreaterThan(counted);

    // Reads are served; the refused write left nothing.
    if (stored.length) expect((await server.admin.get(`${CONFIGMAPS}/${stored[0]}`)).status).toBe(200);
    expect((await server.admin.get(`${CONFIGMAPS}/${refused!.name}`)).status).toBe(404);
    expect(await namesStored()).toEqual([...stored].sort());

    rmSync(filler);
    expect((await server.admin.post(CONFIGMAPS, configMap(refused!.name, 48 * 1024))).status).toBe(201);
    expect(await namesStored()).toEqual([...stored, refused!.name].sort());
    // Ready again once no write has been refused for a while (DISK_FULL_REPORT_MS).
    await eventually(async () => expect((await server.anonymous.get('/readyz')).status).toBe(200), DISK_FULL_REPORT_MS + 5_000, 500);
  }, 120_000);

  it('answers 503 while the engine that could not grow its log is started again, and stores again once space is freed', async () => {
    const before = await namesStored();
    const watch = await server.admin.stream(`${CONFIGMAPS}?watch=1&labelSelector=suite%3Dfull-disk&resourceVersion=${(await server.admin.get(CONFIGMAPS)).body.metadata.resourceVersion}`);
    const filler = fs.fill('filler', fs.free() - 2 * 1024 * 1024);
    // The next commit needs a new 16 MiB segment of the write-ahead log, which no longer fits.
    await server.running.app.get<Database>(DATABASE).sql.query('SELECT pg_switch_wal()');

    const failedStarts = watchFailedEngineStarts();
    const refused = await server.admin.post(CONFIGMAPS, configMap('log-full'));
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual(DISK_FULL_STATUS);
    expect(refused.headers['retry-after']).toBe('1');
    // The engine cannot start again while the disk is full: writes keep failing with the cause
    // after the first attempts to start it (0.5 s, then 1 s later), not only until then.
    await eventually(() => expect(failedStarts.count()).toBeGreaterThanOrEqual(2), 10_000, 50).finally(() => failedStarts.stop());
    const again = await server.admin.post(CONFIGMAPS, configMap('log-full-again'));
    expect([again.status, again.body.message]).toEqual([503, DISK_FULL_STATUS.message]);
    const ready = await server.anonymous.get('/readyz?verbose');
    expect(ready.status).toBe(500);
    expect(ready.text).toContain('[-]storage failed: reason withheld\n[-]storage-space failed: reason withheld\n');
    expect((await server.anonymous.get('/readyz/storage')).text).toBe("internal server error: the store's disk is full\n");
    // Decisions come from memory all the same.
    const review = await server.admin.post('/apis/authorization.platform.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.platform.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'create', resource: 'configmaps', namespace: 'default' } },
    });
    expect([review.status, review.body.status?.allowed]).toEqual([201, true]);

    rmSync(filler);
    await eventually(async () => expect((await server.admin.post(CONFIGMAPS, configMap('after-log-full'))).status).toBe(201), 30_000, 250);
    await eventually(async () => expect((await server.anonymous.get('/readyz')).status).toBe(200), DISK_FULL_REPORT_MS + 5_000, 500);
    // Nothing of the refused writes, in the store or on the watch that stayed open.
    expect(await namesStored()).toEqual([...before, 'after-log-full'].sort());
    const [event] = await watch.waitFor(1, 10_000);
    expect([event.type, event.object.metadata.name]).toEqual(['ADDED', 'after-log-full']);
    expect(watch.events.map((e) => e.object?.metadata?.name)).not.toContain('log-full');
    watch.close();
  }, 120_000);
});
