import { Client } from 'pg';
import { freePort } from '../../../bench/probed-process';
import { PostgresInstance, postgresInstancesUnavailable, startPrimary, startStandby } from '../../../bench/postgres-instances';
import { NoAcceptableHostError, PostgresConnections } from '../../../src/storage/engine/postgres-connections';
import { storageFailureOf } from '../../../src/storage/engine/storage-errors';
import { eventually } from '../../support/eventually';
import { startTestServer, TestServer } from '../../support/test-server';

const CM = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

/**
 * A primary and a streaming standby of our own (temporary directories, ports of their own),
 * named together in one URL: the server keeps to the one that takes writes, as libpq does with
 * target_session_attrs, and follows a failover (the primary stops, the standby is promoted)
 * without anything in front of them.
 */
const unavailable = postgresInstancesUnavailable();
const describeWithInstances = unavailable ? describe.skip : describe;
const suffix = unavailable ? ` (skipped: ${unavailable})` : '';

describeWithInstances(`several hosts in DATABASE_URL${suffix}`, () => {
  let primary: PostgresInstance;
  let standby: PostgresInstance;
  let deadPort: number;
  let server: TestServer | undefined;
  const url = (ports: number[], attrs?: string) =>
    `postgres://postgres@${ports.map((p) => `127.0.0.1:${p}`).join(',')}/postgres${attrs ? `?target_session_attrs=${attrs}` : ''}`;

  beforeAll(async () => {
    primary = await startPrimary(await freePort());
    standby = await startStandby(primary, await freePort());
    deadPort = await freePort();
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await standby?.destroy();
    await primary?.destroy();
  });

  it.each([
    ['read-write', 'primary'],
    ['primary', 'primary'],
    ['read-only', 'standby'],
    ['standby', 'standby'],
    ['prefer-standby', 'standby'],
    ['any', 'standby'],
  ] as const)('target_session_attrs=%s keeps the %s, whichever comes first', async (attrs, expected) => {
    const connections = new PostgresConnections(url([deadPort, standby.port, primary.port], attrs));
    const client = await connections.connect();
    try {
      const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
      expect(rows[0].standby ? 'standby' : 'primary').toBe(expected);
      expect(connections.currentHost()).toBe(`127.0.0.1:${expected === 'standby' ? standby.port : primary.port}`);
    } finally {
      await client.end();
    }
  });

  it('answers an outage (08001, naming every host tried) when no host suits', async () => {
    const connections = new PostgresConnections(url([deadPort, primary.port], 'standby'));
    const failed = await connections.connect().catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(NoAcceptableHostError);
    expect(storageFailureOf(failed)).toBe('unavailable');
    expect((failed as Error).message).toContain(`127.0.0.1:${deadPort}: `);
    expect((failed as Error).message).toContain(`127.0.0.1:${primary.port}: read-write`);
  });

  it('writes to the primary of a pair, and after a failover to the promoted standby, with no acknowledged write lost', async () => {
    server = await startTestServer({ databaseUrl: url([standby.port, primary.port], 'read-write') });
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) {
      expect((await server.admin.post(CM, configMap(`before-${i}`))).status).toBe(201);
      acknowledged.push(`before-${i}`);
    }
    const rv = (await server.admin.get(CM)).body.metadata.resourceVersion;
    const watch = await server.admin.stream(`${CM}?watch=1&resourceVersion=${rv}`);

    // The primary goes away (its sessions terminated); the standby is not promoted yet: no host takes writes.
    await primary.stop();
    const during = await server.admin.post(CM, configMap('during'));
    expect([during.status, during.headers['retry-after']]).toEqual([503, '1']);
    await eventually(async () => expect((await server!.anonymous.get('/readyz')).status).toBe(500));
    expect((await server.anonymous.get('/readyz/storage-writable')).status).toBe(500);
    // Decisions come from memory meanwhile.
    const review = await server.admin.post('/apis/authorization.platform.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.platform.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'create', resource: 'configmaps', namespace: 'default' } },
    });
    expect([review.status, review.body.status?.allowed]).toEqual([201, true]);

    await standby.promote();
    const statuses = new Set<number>();
    await eventually(async () => {
      const res = await server!.admin.post(CM, configMap('after'));
      statuses.add(res.status);
      expect(res.status).toBe(201);
    }, 30_000, 200);
    expect([...statuses].filter((s) => s !== 201 && s !== 503 && s !== 409)).toEqual([]);
    await eventually(async () => expect((await server!.anonymous.get('/readyz')).status).toBe(200), 30_000, 200);

    const stored = (await server.admin.get(CM)).body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    for (const name of acknowledged) expect(stored).toContain(name);
    // The open watch follows the new primary's log.
    await eventually(() => expect(watch.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toContain('ADDED after'), 20_000);
    watch.close();

    // It writes where the promoted standby is.
    const check = new Client({ connectionString: standby.url() });
    await check.connect();
    try {
      const { rows } = await check.query<{ n: number }>(`SELECT count(*)::int AS n FROM kv_current WHERE name = 'after'`);
      expect(rows[0].n).toBe(1);
    } finally {
      await check.end();
    }
  }, 180_000);
});
