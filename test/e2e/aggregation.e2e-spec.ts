import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { AdmissionChain, AdmissionRequest } from '../../src/registry/rest/admission';
import { ClusterRoleAggregationController } from '../../src/rbac/aggregation/clusterrole-aggregation-controller';
import { Database, openDatabase } from '../../src/storage/engine/database';
import { createLeaderElector, LeaderElector } from '../../src/storage/leader/leader-election';
import { dropTestSchema, newTestSchema } from '../support/db';
import { eventually } from '../support/eventually';
import { describeWithPostgres } from '../support/postgres';
import { startTestServer, TestServer } from '../support/test-server';
import { defaultClusterRoles } from '../../src/rbac/bootstrap/default-policy';

const CR = '/apis/rbac.authorization.platform.io/v1/clusterroles';
const MERGE = 'application/merge-patch+json';

const rule = (resource: string, verbs = ['get']) => ({ verbs, apiGroups: [''], resources: [resource] });
const aggregate = (name: string, labelKey: string, rules: unknown[] = []) => ({
  metadata: { name },
  aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [labelKey]: 'true' } }] },
  rules,
});
const member = (name: string, labels: Record<string, string>, rules: unknown[]) => ({ metadata: { name, labels }, rules });

describe('ClusterRole aggregation', () => {
  let server: TestServer;
  const writers: Array<{ user: string; manager?: string; name: string }> = [];

  beforeAll(async () => {
    server = await startTestServer();
    // Records who writes ClusterRoles through the normal write path.
    server.running.app.get(AdmissionChain).register({
      name: 'test-recorder',
      admit: async (req: AdmissionRequest) => {
        if (req.target.type.plural === 'clusterroles' && req.operation === 'UPDATE') {
          writers.push({ user: req.options.user.username, manager: req.options.fieldManager, name: req.target.name });
        }
      },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const rulesOf = async (name: string) => {
    const res = await server.admin.get(`${CR}/${name}`);
    expect(res.status).toBe(200);
    return res.body.rules ?? [];
  };

  it('overwrites manual rules with the members’ rules, as the controller, seen by watchers', async () => {
    await server.admin.post(CR, member('manual-m', { 'agg-manual': 'true' }, [rule('pods')]));
    const start = (await server.admin.get(CR)).body.metadata.resourceVersion;
    const watch = await server.admin.stream(`${CR}?watch=1&fieldSelector=metadata.name%3Dmanual-agg&resourceVersion=${start}`);
    try {
      const created = await server.admin.post(CR, aggregate('manual-agg', 'agg-manual', [rule('secrets', ['*'])]));
      expect(created.status).toBe(201);
      expect(created.body.rules).toEqual([rule('secrets', ['*'])]);
      await eventually(async () => expect(await rulesOf('manual-agg')).toEqual([rule('pods')]), 2000);
      const events = await watch.waitFor(2);
      expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
      expect(events[1].object.rules).toEqual([rule('pods')]);
      const managers = (events[1].object.metadata.managedFields ?? []).map((m: any) => m.manager);
      if (managers.length) expect(managers).toContain('clusterrole-aggregation-controller');
      expect(writers.filter((w) => w.name === 'manual-agg')).toEqual([
        { user: 'system:controller:clusterrole-aggregation-controller', manager: 'clusterrole-aggregation-controller', name: 'manual-agg' },
      ]);
    } finally {
      watch.close();
    }
  });

  it('follows a member being created, changed, relabelled and deleted, within a second or so', async () => {
    await server.admin.post(CR, aggregate('follow-agg', 'agg-follow'));
    await server.admin.post(CR, member('follow-b', { 'agg-follow': 'true' }, [rule('configmaps')]));
    await eventually(async () => expect(await rulesOf('follow-agg')).toEqual([rule('configmaps')]), 2000);

    await server.admin.post(CR, member('follow-a', { 'agg-follow': 'true' }, [rule('pods'), rule('configmaps')]));
    await eventually(async () => expect(await rulesOf('follow-agg')).toEqual([rule('pods'), rule('configmaps')]), 2000);

    await server.admin.patch(`${CR}/follow-b`, { rules: [rule('secrets')] }, MERGE);
    await eventually(async () => expect(await rulesOf('follow-agg')).toEqual([rule('pods'), rule('configmaps'), rule('secrets')]), 2000);

    await server.admin.patch(`${CR}/follow-a`, { metadata: { labels: { 'agg-follow': null } } }, MERGE);
    await eventually(async () => expect(await rulesOf('follow-agg')).toEqual([rule('secrets')]), 2000);

    await server.admin.patch(`${CR}/follow-a`, { metadata: { labels: { 'agg-follow': 'true' } } }, MERGE);
    await eventually(async () => expect(await rulesOf('follow-agg')).toEqual([rule('pods'), rule('configmaps'), rule('secrets')]), 2000);

    await server.admin.delete(`${CR}/follow-a`);
    await eventually(async () => expect(await rulesOf('follow-agg')).toEqual([rule('secrets')]), 2000);

    await server.admin.delete(`${CR}/follow-b`);
    await eventually(async () => expect(await rulesOf('follow-agg')).toEqual([]), 2000);
  });

  it('selects members with matchExpressions and a second selector', async () => {
    await server.admin.post(CR, {
      metadata: { name: 'expr-agg' },
      aggregationRule: {
        clusterRoleSelectors: [
          { matchExpressions: [{ key: 'expr-tier', operator: 'In', values: ['gold', 'silver'] }] },
          { matchLabels: { 'expr-extra': 'true' } },
        ],
      },
    });
    await Promise.all([
      server.admin.post(CR, member('expr-1', { 'expr-tier': 'silver' }, [rule('pods')])),
      server.admin.post(CR, member('expr-2', { 'expr-tier': 'bronze' }, [rule('nodes')])),
      server.admin.post(CR, member('expr-3', { 'expr-extra': 'true', 'expr-tier': 'gold' }, [rule('secrets'), rule('pods')])),
    ]);
    // First selector: expr-1, expr-3 by name; second adds nothing new (pods is a duplicate).
    await eventually(async () => expect(await rulesOf('expr-agg')).toEqual([rule('pods'), rule('secrets')]), 2000);
  });

  it('ends exact after 50 labelled ClusterRoles are created and deleted concurrently', async () => {
    await server.admin.post(CR, aggregate('churn-agg', 'churn'));
    const names = Array.from({ length: 50 }, (_, i) => `churn-${String(i).padStart(2, '0')}`);
    const survivors = names.filter((_, i) => i % 3 !== 0);
    await Promise.all(
      names.map(async (name, i) => {
        // Every role has its own rule and one shared with every other role.
        const created = await server.admin.post(CR, member(name, { churn: 'true' }, [rule(`r${i}`), rule('shared')]));
        expect(created.status).toBe(201);
        if (!survivors.includes(name)) expect((await server.admin.delete(`${CR}/${name}`)).status).toBe(200);
      }),
    );
    const expected: unknown[] = [];
    for (const name of survivors) {
      expected.push(rule(`r${names.indexOf(name)}`));
      if (name === survivors[0]) expected.push(rule('shared'));
    }
    await eventually(async () => expect(await rulesOf('churn-agg')).toEqual(expected), 5000);
  });

  it('fills the default aggregated roles: view ⊂ edit ⊂ admin', async () => {
    const [admin, edit, view] = await Promise.all(['admin', 'edit', 'view'].map(rulesOf));
    expect(view.length).toBeGreaterThan(0);
    for (const r of view) expect(edit).toContainEqual(r);
    for (const r of edit) expect(admin).toContainEqual(r);
    expect(edit.length).toBeGreaterThan(view.length);
    expect(admin.length).toBeGreaterThan(edit.length);
  });
});

/**
 * Leader election on PostgreSQL: a session advisory lock. Several electors on one
 * database: exactly one leads; when it stops or its session dies, another takes over.
 */
describeWithPostgres('leader election on PostgreSQL', (pgUrl) => {
  const schema = newTestSchema();
  const databases: Database[] = [];
  const electors: LeaderElector[] = [];
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'platform-leader-'));
    for (let i = 0; i < 3; i++) databases.push(await openDatabase({ databaseUrl: pgUrl, dataDir, schema }));
  });
  afterAll(async () => {
    for (const e of electors) await e.stop();
    for (const db of databases) await db.close();
    await dropTestSchema(pgUrl, schema);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('lets exactly one lead and hands over when the leader stops or loses its session', async () => {
    const timings = { retryIntervalMs: 100, checkIntervalMs: 100, queryTimeoutMs: 1000 };
    const leading = new Set<number>();
    const signals: AbortSignal[] = [];
    const first = await Promise.all(
      databases.map((db, i) => {
        const elector = createLeaderElector(db, 'test-controller', timings);
        electors.push(elector);
        return elector.start(async (lost) => {
          leading.add(i);
          signals[i] = lost;
          await new Promise((resolve) => lost.addEventListener('abort', resolve, { once: true }));
          leading.delete(i);
        });
      }),
    );
    expect(first.filter(Boolean)).toHaveLength(1);
    const firstLeader = first.indexOf(true);
    expect([...leading]).toEqual([firstLeader]);
    expect(electors.map((e) => e.isLeader())).toEqual(databases.map((_, i) => i === firstLeader));

    // A stopped leader releases the lock and one of the others takes over.
    await electors[firstLeader].stop();
    expect(signals[firstLeader].aborted).toBe(true);
    await eventually(() => expect(leading.size).toBe(1), 3000, 20);
    const secondLeader = [...leading][0];
    expect(secondLeader).not.toBe(firstLeader);

    // A leader whose session dies notices and stops leading; one elector leads again.
    const admin = new Client({ connectionString: pgUrl });
    await admin.connect();
    try {
      await admin.query(
        `SELECT pg_terminate_backend(l.pid) FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objid = (hashtext($1)::bigint & 4294967295)::oid`,
        [`platform-authz leader ${schema} test-controller`],
      );
    } finally {
      await admin.end();
    }
    await eventually(() => expect(signals[secondLeader].aborted).toBe(true), 3000, 20);
    await eventually(() => expect(leading.size).toBe(1), 3000, 20);
    expect(electors.filter((e) => e.isLeader())).toHaveLength(1);
  });

  it('never leads when stopped while it is still taking the lock', async () => {
    // Its own name, so the lock is free: the stop lands while the session connects and locks.
    const elector = createLeaderElector(databases[0], 'stopped-early', { retryIntervalMs: 100, checkIntervalMs: 100, queryTimeoutMs: 1000 });
    let led = false;
    const started = elector.start(async (lost) => {
      led = true;
      await new Promise((resolve) => lost.addEventListener('abort', resolve, { once: true }));
    });
    await elector.stop();
    expect(await started).toBe(false);
    expect(led).toBe(false);
    expect(elector.isLeader()).toBe(false);
  });
});

describeWithPostgres('two servers on one PostgreSQL', (pgUrl) => {
  const schema = newTestSchema();
  const servers: TestServer[] = [];

  beforeAll(async () => {
    // Started together: both reconcile the default policy at once.
    servers.push(...(await Promise.all([0, 1].map(() => startTestServer({ databaseUrl: pgUrl, schema })))));
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await dropTestSchema(pgUrl, schema);
  });

  const isLeader = (s: TestServer) => s.running.app.get(ClusterRoleAggregationController).isLeader();

  it('runs the aggregation controller on exactly one of them, and on the other once it stops', async () => {
    expect(servers.map(isLeader).filter(Boolean)).toHaveLength(1);
    const leader = servers.find(isLeader)!;
    const follower = servers.find((s) => !isLeader(s))!;
    const defaults = (await follower.admin.get(`${CR}?labelSelector=platform.io%2Fbootstrapping%3Drbac-defaults`)).body.items;
    expect(defaults.map((r: { metadata: { name: string } }) => r.metadata.name).sort()).toEqual(defaultClusterRoles().map((r) => r.metadata.name).sort());

    // A member written through the follower is aggregated by the leader.
    await follower.admin.post(CR, aggregate('pair-agg', 'pair'));
    await follower.admin.post(CR, member('pair-1', { pair: 'true' }, [rule('pods')]));
    await eventually(async () => expect((await follower.admin.get(`${CR}/pair-agg`)).body.rules).toEqual([rule('pods')]), 3000);

    await leader.close();
    servers.splice(servers.indexOf(leader), 1);
    await eventually(() => expect(isLeader(follower)).toBe(true), 6000);
    await follower.admin.post(CR, member('pair-2', { pair: 'true' }, [rule('secrets')]));
    await eventually(async () => expect((await follower.admin.get(`${CR}/pair-agg`)).body.rules).toEqual([rule('pods'), rule('secrets')]), 3000);
  });
});
