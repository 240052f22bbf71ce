import { startTestServer, TestServer } from '../support/test-server';
import { metricSample } from '../support/webhook-server';

const ROLES = '/apis/rbac.authorization.platform.io/v1/clusterroles';
const FSYNCS = 'apiserver_storage_embedded_fsync_duration_seconds_count';

/** The embedded store's fsyncs so far, by file, from the server's own histogram. */
async function fsyncs(server: TestServer): Promise<{ wal: number; data: number }> {
  const res = await server.admin.get('/metrics', { headers: { Accept: 'text/plain' } });
  expect(res.status).toBe(200);
  return { wal: metricSample(res.text, `${FSYNCS}{file="wal"}`) ?? 0, data: metricSample(res.text, `${FSYNCS}{file="data"}`) ?? 0 };
}

async function createRole(server: TestServer, name: string): Promise<void> {
  const res = await server.admin.post(ROLES, { metadata: { name }, rules: [] });
  expect(res.status).toBe(201);
}

/**
 * The engine syncs in its own thread, so the fsyncs are observed through the server's
 * histogram of them, which the thread reports with each statement's answer (before the
 * statement's caller goes on).
 */
describe('the embedded store on disk', () => {
  it('syncs the write-ahead log to disk before it acknowledges a write (by default)', async () => {
    const server = await startTestServer({ embedded: true, options: { embeddedFsync: true } });
    try {
      const before = await fsyncs(server);
      await createRole(server, 'durable');
      const after = await fsyncs(server);
      expect(after.wal - before.wal).toBeGreaterThanOrEqual(1);
    } finally {
      await server.close();
    }
  });

  it('syncs nothing with --embedded-fsync=false', async () => {
    const server = await startTestServer({ embedded: true, options: { embeddedFsync: false } });
    try {
      const before = await fsyncs(server);
      await createRole(server, 'fast');
      expect(await fsyncs(server)).toEqual(before);
      expect((await server.admin.get(`${ROLES}/fast`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
