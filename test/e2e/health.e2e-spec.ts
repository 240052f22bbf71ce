import { HealthChecks } from '../../src/health/health-checks';
import { startTestServer, TestServer } from '../support/test-server';

const READYZ_CHECKS = [
  'ping',
  'log',
  'storage',
  'storage-space',
  'storage-writable',
  'informer-sync',
  'poststarthook/authentication/config-loader',
  'poststarthook/authorization/config-loader',
  'poststarthook/storage-migrations',
  'poststarthook/start-namespace-controller',
  'poststarthook/rbac/bootstrap-roles',
  'poststarthook/start-clusterrole-aggregation-controller',
  'shutdown',
];

describe('health endpoints', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ options: { livezGracePeriodMs: 60 * 60_000 } });
  });
  afterAll(() => server?.close());

  it('answers ok to anyone, and lists every named check in kube\'s order with ?verbose', async () => {
    for (const probe of ['livez', 'readyz']) {
      const plain = await server.anonymous.get(`/${probe}`);
      expect(plain.status).toBe(200);
      expect(plain.text).toBe('ok');
      expect(plain.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(plain.headers['x-content-type-options']).toBe('nosniff');
    }
    const ready = await server.anonymous.get('/readyz?verbose');
    expect(ready.text).toBe(READYZ_CHECKS.map((c) => `[+]${c} ok\n`).join('') + 'readyz check passed\n');
    // livez has neither the store's space and writability, the informers nor shutdown (kube's split).
    const live = await server.anonymous.get('/livez?verbose');
    const liveChecks = READYZ_CHECKS.filter((c) => c !== 'storage-space' && c !== 'storage-writable' && c !== 'informer-sync' && c !== 'shutdown');
    expect(live.text).toBe(liveChecks.map((c) => `[+]${c} ok\n`).join('') + 'livez check passed\n');
  });

  it('excludes checks named by repeated ?exclude= and warns about names that match nothing', async () => {
    const res = await server.anonymous.get('/readyz?verbose&exclude=storage&exclude=log&exclude=etcd');
    expect(res.status).toBe(200);
    expect(res.text).toContain('[+]storage excluded: ok\n[+]storage-space ok\n[+]storage-writable ok\n[+]informer-sync ok\n');
    expect(res.text).toContain('[+]log excluded: ok\n');
    expect(res.text).toMatch(/\nwarn: some health checks cannot be excluded: no matches for "etcd"\nreadyz check passed\n$/);
  });

  it('serves each check on its own path, slashes in names included, and 404 for an unknown one', async () => {
    for (const path of ['/livez/ping', '/readyz/storage', '/readyz/informer-sync', '/readyz/poststarthook/rbac/bootstrap-roles', '/readyz/shutdown', '/healthz/log']) {
      const res = await server.anonymous.get(path);
      expect([path, res.status, res.text]).toEqual([path, 200, 'ok']);
    }
    expect((await server.anonymous.get('/livez/shutdown')).status).toBe(404);
    const unknown = await server.anonymous.get('/readyz/etcd');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });

  it('keeps /healthz with a deprecation Warning header', async () => {
    const res = await server.anonymous.get('/healthz?verbose');
    expect(res.status).toBe(200);
    expect(res.headers.warning).toBe('299 - "/healthz is deprecated since v1.16; use /livez and /readyz"');
    expect(res.text).toMatch(/^\[\+\]ping ok\n\[\+\]log ok\n\[\+\]storage ok\n/);
    expect(res.text).toMatch(/healthz check passed\n$/);
    expect(res.text).not.toContain('shutdown');
    expect((await server.anonymous.get('/livez')).headers.warning).toBeUndefined();
  });

  it('gives every response an Audit-ID, keeping a usable one the client sent', async () => {
    const a = await server.admin.get('/api/v1/namespaces');
    const b = await server.admin.get('/api/v1/namespaces');
    expect(a.headers['audit-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b.headers['audit-id']).not.toBe(a.headers['audit-id']);
    const denied = await server.anonymous.get('/api/v1/secrets');
    expect(denied.status).toBe(403);
    expect(denied.headers['audit-id']).toBeTruthy();
    const given = await server.admin.get('/api/v1/namespaces', { headers: { 'Audit-ID': 'trace-42' } });
    expect(given.headers['audit-id']).toBe('trace-42');
  });

  it('fails a post-start hook that has not finished on readyz at once, and on livez only after the grace period', async () => {
    const health = server.running.app.get(HealthChecks);
    health.postStartHook('test/unfinished');
    const ready = await server.anonymous.get('/readyz');
    expect(ready.status).toBe(500);
    // Failing answers are always verbose; the reason stays out of the public list.
    expect(ready.text).toContain('[-]poststarthook/test/unfinished failed: reason withheld\n');
    expect(ready.text).toMatch(/\[\+\]shutdown ok\nreadyz check failed\n$/);
    const one = await server.anonymous.get('/readyz/poststarthook/test/unfinished');
    expect([one.status, one.text]).toEqual([500, 'internal server error: not finished\n']);
    // Within --livez-grace-period (an hour here) the unfinished hook is taken as passing.
    const live = await server.anonymous.get('/livez?verbose');
    expect(live.status).toBe(200);
    expect(live.text).toContain('[+]poststarthook/test/unfinished ok\n');
    health.setLivezGracePeriod(0);
    const late = await server.anonymous.get('/livez');
    expect(late.status).toBe(500);
    expect(late.text).toContain('[-]poststarthook/test/unfinished failed: reason withheld\n');
    expect(late.text).toMatch(/livez check failed\n$/);
  });
});
