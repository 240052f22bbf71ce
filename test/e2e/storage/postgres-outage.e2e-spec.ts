import { Client } from 'pg';
import { ClusterRoleAggregationController } from '../../../src/rbac/aggregation/clusterrole-aggregation-controller';
import { eventually } from '../../support/eventually';
import { createScratchDatabase, describeWithPostgres } from '../../support/postgres';
import { startTestServer, TestServer } from '../../support/test-server';

const CR = '/apis/rbac.authorization.platform.io/v1/clusterroles';
const clusterRole = (name: string, extra: object = {}) => ({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'ClusterRole', metadata: { name }, rules: [], ...extra });

/**
 * The database goes away under a running server: its database stops accepting connections
 * and every session of it is terminated (`pg_terminate_backend`), then it comes back. The
 * machine's PostgreSQL itself keeps running; only the scratch database of this test is cut off.
 */
describeWithPostgres('a PostgreSQL outage', (pgUrl) => {
  let db: { url: string; drop(): Promise<void> } | undefined;
  let dbName: string;
  let server: TestServer;
  let admin: Client | undefined;
  /** The test's background traffic runs while this holds; cleared in afterAll too, should the test fail midway. */
  let traffic = false;

  beforeAll(async () => {
    db = await createScratchDatabase(pgUrl);
    dbName = new URL(db.url).pathname.slice(1);
    server = await startTestServer({ databaseUrl: db.url });
    admin = new Client({ connectionString: pgUrl });
    await admin.connect();
  });

  afterAll(async () => {
    traffic = false;
    await admin?.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await server?.close();
    await admin?.end();
    await db?.drop();
  });

  async function cutOff(): Promise<void> {
    await admin!.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    await admin!.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
  }

  async function restore(): Promise<void> {
    await admin!.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
  }

  it('answers 503 with Retry-After (never 500, never the driver\'s words), fails readyz on storage, then resumes watches and leadership', async () => {
    const controller = server.running.app.get(ClusterRoleAggregationController);
    await eventually(() => expect(controller.isLeader()).toBe(true));
    const rv = (await server.admin.get(CR)).body.metadata.resourceVersion;
    const watch = await server.admin.stream(`${CR}?watch=1&resourceVersion=${rv}`);

    // Traffic throughout: before, during and after the outage, no answer is a 500.
    const statuses = new Map<number, number>();
    traffic = true;
    const load = Promise.all(
      [0, 1, 2, 3].map(async (worker) => {
        for (let i = 0; traffic; i++) {
          const res = i % 2 ? await server!.admin.get(CR) : await server!.admin.post(CR, clusterRole(`load-${worker}-${i}`));
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      }),
    );

    await cutOff();
    try {
      const answers = await Promise.all([
        server.admin.get(`${CR}/admin`),
        server.admin.get(CR),
        server.admin.get('/api/v1/namespaces/default/secrets'),
        server.admin.post(CR, clusterRole('during-outage')),
        server.admin.delete(`${CR}/view`),
      ]);
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('1');
        expect(res.body).toEqual({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'the storage is unavailable; please try again later',
          reason: 'ServiceUnavailable',
          details: { retryAfterSeconds: 1 },
          code: 503,
        });
        expect(res.text).not.toMatch(/5432|127\.0\.0\.1|terminating|administrator|accepting connections|platform_/);
      }

      const ready = await server.anonymous.get('/readyz');
      expect(ready.status).toBe(500);
      expect(ready.text).toContain('[-]storage failed: reason withheld\n');
      const storage = await server.anonymous.get('/readyz/storage');
      expect([storage.status, storage.text]).toEqual([500, 'internal server error: the store is unreachable\n']);
      // The feed cannot follow the log meanwhile.
      await eventually(async () => expect((await server!.anonymous.get('/readyz/informer-sync')).status).toBe(500), 5000);
      // The outage lasts until the traffic has met it many times.
      await eventually(() => expect(statuses.get(503) ?? 0).toBeGreaterThanOrEqual(100), 30_000);
    } finally {
      await restore();
    }

    await eventually(async () => expect((await server!.anonymous.get('/readyz')).text).toBe('ok'), 20_000, 200);
    traffic = false;
    await load;
    console.log(`answers during the outage test: ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect([...statuses.keys()].sort()).toEqual([200, 201, 503]);
    expect((await server.admin.get(`${CR}/during-outage`)).status).toBe(404);
    expect((await server.admin.post(CR, clusterRole('after-outage'))).status).toBe(201);
    // The open watch resumed with the change feed.
    await eventually(() => expect(watch.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toContain('ADDED after-outage'), 15_000);
    watch.close();

    // The aggregation controller leads again and works.
    await eventually(() => expect(controller.isLeader()).toBe(true), 20_000);
    await server.admin.post(CR, clusterRole('outage-aggregate', { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'outage-test': 'yes' } }] } }));
    await server.admin.post(CR, {
      ...clusterRole('outage-member'),
      metadata: { name: 'outage-member', labels: { 'outage-test': 'yes' } },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    });
    await eventually(async () => {
      const aggregate = await server!.admin.get(`${CR}/outage-aggregate`);
      expect(aggregate.body.rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    }, 20_000, 200);
  }, 240_000);
});
