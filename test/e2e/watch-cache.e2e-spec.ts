import { execFile } from 'node:child_process';
import type { ClientRequest } from 'node:http';
import * as https from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ChangeFeedService } from '../../src/storage/changefeed/change-feed.service';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * The memory a watch costs: the in-memory window of recent changes is bounded in bytes
 * (--watch-cache-size-bytes), older revisions are replayed from the store (or are 410 once
 * compacted), a watch whose client goes away is let go of at once, and one whose client
 * stops reading is cut off (kube's apiserver_terminated_watchers_total).
 */
const run = promisify(execFile);
const MAIN = process.env.PLATFORM_E2E_SERVER_MAIN || join(__dirname, '..', '..', 'dist', 'src', 'main.js');
const configMapsIn = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const configMap = (name: string, bytes: number) => ({ metadata: { name }, data: { pad: 'x'.repeat(bytes) } });
const brief = (e: any) => [e.type, e.object.metadata?.namespace, e.object.metadata?.name, e.object.metadata?.resourceVersion];

/** The value of one series of a metric in /metrics (0 when absent). */
async function metric(server: TestServer, name: string, labels: string): Promise<number> {
  const text = (await server.admin.get('/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}
const CONFIGMAP_WATCHERS = ['apiserver_registered_watchers', 'group="",version="v1",kind="ConfigMap"'] as const;
const CONFIGMAP_CUT_OFF = ['apiserver_terminated_watchers_total', 'group="",resource="configmaps"'] as const;

describe('watch cache bounded in bytes', () => {
  let server: TestServer;
  let feed: ChangeFeedService;

  beforeAll(async () => {
    server = await startTestServer({ options: { watchCacheSizeBytes: 16 * 1024 } });
    feed = server.running.app.get(ChangeFeedService);
    for (const name of ['wc-a', 'wc-b']) expect((await server.admin.post('/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('replays from the store every change that fell out of the window, in order, namespaced and across namespaces', async () => {
    const before = (await server.admin.get(configMapsIn('wc-a'))).body.metadata.resourceVersion;
    const written: string[][] = [];
    for (let i = 0; i < 6; i++) {
      const ns = i % 2 ? 'wc-b' : 'wc-a';
      const created = await server.admin.post(configMapsIn(ns), configMap(`cm-${i}`, 4000));
      expect(created.status).toBe(201);
      written.push(['ADDED', ns, `cm-${i}`, created.body.metadata.resourceVersion]);
    }
    const updated = await server.admin.put(`${configMapsIn('wc-a')}/cm-0`, configMap('cm-0', 5000));
    written.push(['MODIFIED', 'wc-a', 'cm-0', updated.body.metadata.resourceVersion]);
    await feed.poke();
    // The window no longer holds the first changes: the watches below read them from the store.
    const window = feed.windowStats();
    expect(window.bytes).toBeLessThanOrEqual(16 * 1024);
    expect(BigInt(window.oldestRevision!)).toBeGreaterThan(BigInt(written[1][3]));

    const everywhere = await server.admin.stream(`/api/v1/configmaps?watch=1&resourceVersion=${before}`);
    const inA = await server.admin.stream(`${configMapsIn('wc-a')}?watch=1&resourceVersion=${before}`);
    expect((await everywhere.waitFor(7)).map(brief)).toEqual(written);
    expect((await inA.waitFor(4)).map(brief)).toEqual(written.filter((w) => w[1] === 'wc-a'));
    expect(everywhere.events[6].object.data.pad).toHaveLength(5000);
    everywhere.close();
    inA.close();
  });

  it('answers 410 Expired for a revision the store compacted, whether or not the window held it', async () => {
    const short = await startTestServer({ options: { watchCacheSizeBytes: 1024, historyWindowSeconds: 1 } });
    try {
      const created = await short.admin.post(configMapsIn('default'), configMap('old', 2000));
      const rv = created.body.metadata.resourceVersion;
      await short.admin.put(`${configMapsIn('default')}/old`, configMap('old', 3000));
      await eventually(async () => {
        expect((await short.admin.get(`${configMapsIn('default')}?resourceVersion=${rv}&resourceVersionMatch=Exact`)).status).toBe(410);
      }, 15000, 250);
      const watch = await short.admin.stream(`/api/v1/configmaps?watch=1&resourceVersion=${rv}`);
      const [event] = await watch.waitFor(1);
      watch.close();
      expect(event).toEqual({
        type: 'ERROR',
        object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410, message: `too old resource version: ${rv}` },
      });
    } finally {
      await short.close();
    }
  });

  it('lets go of a watch at once when its client disconnects', async () => {
    const base = await metric(server, ...CONFIGMAP_WATCHERS);
    const watch = await server.admin.stream(`/api/v1/configmaps?watch=1&labelSelector=none%3Dnone`);
    await eventually(async () => expect(await metric(server, ...CONFIGMAP_WATCHERS)).toBe(base + 1));
    watch.close();
    // The watcher is unregistered when its watch has let go of everything; that happens
    // sooner than the watch's idle wake-up (5 s): the disconnect itself ends its wait.
    await eventually(async () => expect(await metric(server, ...CONFIGMAP_WATCHERS)).toBe(base), 2000, 20);
  });

  it('cuts off a watch whose client stops reading and keeps serving the others', async () => {
    const base = await metric(server, ...CONFIGMAP_WATCHERS);
    const cutBefore = await metric(server, ...CONFIGMAP_CUT_OFF);
    const list = await server.admin.get(configMapsIn('wc-b'));
    const path = `${configMapsIn('wc-b')}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`;
    const reading = await server.admin.stream(path);
    const stuck = await stuckWatch(server, path);
    try {
      await eventually(async () => expect(await metric(server, ...CONFIGMAP_WATCHERS)).toBe(base + 2));
      let writes = 0;
      // About 4 MiB unread plus the sockets' buffers: a bounded number of ~900 KiB updates.
      await server.admin.post(configMapsIn('wc-b'), configMap('big', 900 * 1024));
      while ((await metric(server, ...CONFIGMAP_CUT_OFF)) === cutBefore) {
        expect(++writes).toBeLessThan(60);
        const res = await server.admin.put(`${configMapsIn('wc-b')}/big`, configMap('big', 900 * 1024 + writes));
        expect(res.status).toBe(200);
      }
      expect(await metric(server, ...CONFIGMAP_CUT_OFF)).toBe(cutBefore + 1);
      await eventually(async () => expect(await metric(server, ...CONFIGMAP_WATCHERS)).toBe(base + 1));
      const events = await reading.waitFor(writes + 1, 30000);
      expect(events.map((e) => e.object.data.pad.length)).toEqual([900 * 1024, ...Array.from({ length: writes }, (_, i) => 900 * 1024 + i + 1)]);
    } finally {
      reading.close();
      stuck.destroy();
    }
  });

  it('refuses to start with a bad --watch-cache-size-bytes, naming the flag in one line', async () => {
    await expect(run(process.execPath, [MAIN, '--watch-cache-size-bytes=lots'], { env: { ...process.env, DATABASE_URL: '' } })).rejects.toMatchObject({
      code: 1,
      stderr: 'error: invalid argument "lots" for "--watch-cache-size-bytes" flag: strconv.ParseInt: parsing "lots": invalid syntax\n',
    });
  });
});

/** A watch whose client never reads the response (its socket's receive buffer fills up). */
function stuckWatch(server: TestServer, path: string): Promise<ClientRequest> {
  const admin = server.certFor('stuck-watcher', ['system:masters']);
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, server.url), { ca: server.running.material.caCertPem, cert: admin.cert, key: admin.key, agent: false }, (res) => {
      res.pause();
      resolve(req);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET') reject(err);
    });
    req.end();
  });
}
