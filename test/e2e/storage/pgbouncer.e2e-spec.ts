import { findProgram, PgBouncer, PoolMode, postgresInstancesUnavailable, startPgBouncer } from '../../../bench/postgres-instances';
import { freePort } from '../../../bench/probed-process';
import { ClusterRoleAggregationController } from '../../../src/rbac/aggregation/clusterrole-aggregation-controller';
import { Database } from '../../../src/storage/engine/database';
import { serverInstance } from '../../../src/storage/engine/session-features';
import { DATABASE } from '../../../src/storage/storage.module';
import { eventually } from '../../support/eventually';
import { createScratchDatabase, describeWithPostgres } from '../../support/postgres';
import { startTestServer, TestServer } from '../../support/test-server';

const CM = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

const missing = !findProgram('pgbouncer') ? 'pgbouncer is not installed (Debian package pgbouncer)' : postgresInstancesUnavailable();

/**
 * Two servers on one database behind PgBouncer, as managed PostgreSQL services put it in front.
 * In session pooling each client keeps its server connection: LISTEN and advisory locks work.
 * In transaction pooling they do not (PgBouncer lists both as unsupported there): the servers
 * find that out at start, follow each other's writes by polling the change log, and elect the
 * controllers' leader with a lease row; neither hangs nor has two leaders.
 */
describeWithPostgres('behind PgBouncer', (pgUrl) => {
  const run = missing ? describe.skip : describe;
  run.each<PoolMode>(['session', 'transaction'])(`in %s pooling${missing ? ` (skipped: ${missing})` : ''}`, (mode) => {
    let bouncer: PgBouncer | undefined;
    let db: { url: string; drop(): Promise<void> } | undefined;
    const servers: TestServer[] = [];

    beforeAll(async () => {
      const target = new URL(pgUrl);
      bouncer = await startPgBouncer({ host: target.hostname, port: Number(target.port || 5432) }, mode, await freePort());
      db = await createScratchDatabase(pgUrl);
      const url = bouncer.url(new URL(db.url).pathname.slice(1));
      // One at a time: both migrate otherwise, one waiting for the other's lock.
      servers.push(await startTestServer({ databaseUrl: url }));
      servers.push(await startTestServer({ databaseUrl: url }));
    }, 120_000);
    afterAll(async () => {
      for (const server of servers) await server.close();
      await bouncer?.stop();
      await db?.drop();
    });

    it(`finds out whether sessions last (${mode === 'session' ? 'they do' : 'they do not'})`, () => {
      for (const server of servers) {
        expect(server.running.app.get<Database>(DATABASE).sessionFeatures).toEqual(
          mode === 'session' ? { listen: true, advisoryLocks: true } : { listen: false, advisoryLocks: false },
        );
      }
    });

    it('can tell which PostgreSQL server answers (how a polling feed notices a failover)', async () => {
      const target = new URL(pgUrl);
      const answered = await serverInstance(servers[0].running.app.get<Database>(DATABASE).sql);
      // Through PgBouncer, still the server behind it: its port and its postmaster's start.
      expect(answered).toMatch(new RegExp(`:${target.port || 5432} started \\d{4}-\\d{2}-\\d{2} `));
      expect(await serverInstance(servers[1].running.app.get<Database>(DATABASE).sql)).toBe(answered);
    });

    it("sees the other replica's writes on its watches, in order, each once", async () => {
      const [a, b] = servers;
      const rv = (await b.admin.get(CM)).body.metadata.resourceVersion;
      const watch = await b.admin.stream(`${CM}?watch=1&resourceVersion=${rv}`);
      const names = Array.from({ length: 10 }, (_, i) => `from-a-${i}`);
      for (const name of names) expect((await a.admin.post(CM, configMap(name))).status).toBe(201);
      await eventually(() => expect(watch.events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name)).toEqual(names), 15_000);
      const versions = watch.events.map((e) => Number(e.object.metadata.resourceVersion));
      expect([...versions].sort((x, y) => x - y)).toEqual(versions);
      watch.close();
      // And the other way: a read through A of B's write waits for it (consistent reads).
      expect((await b.admin.post(CM, configMap('from-b'))).status).toBe(201);
      await eventually(async () => expect((await a.admin.get(`${CM}/from-b`)).status).toBe(200), 15_000);
      for (const server of servers) expect((await server.anonymous.get('/readyz')).status).toBe(200);
    });

    it('has one leader of the controllers, and hands over when it stops', async () => {
      const controllers = servers.map((s) => s.running.app.get(ClusterRoleAggregationController));
      await eventually(() => expect(controllers.filter((c) => c.isLeader())).toHaveLength(1), 20_000);
      // Never two at once while it lasts.
      for (let i = 0; i < 20; i++) {
        expect(controllers.filter((c) => c.isLeader()).length).toBeLessThanOrEqual(1);
        await new Promise((resolve) => setImmediate(resolve));
      }
      const leader = controllers.findIndex((c) => c.isLeader());
      const [stopped] = servers.splice(leader, 1);
      await stopped.close();
      const other = servers[0].running.app.get(ClusterRoleAggregationController);
      await eventually(() => expect(other.isLeader()).toBe(true), 20_000, 100);
    }, 60_000);
  });
});
