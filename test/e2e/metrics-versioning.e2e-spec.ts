import { GenericStorageFactory } from '../../src/registry/generic/generic-storage.factory';
import { ResourceRegistry } from '../../src/registry/resources/registry';
import { ResourceType } from '../../src/runtime/schema/resource-type';
import { parseRuntimeConfig } from '../../src/config/runtime-config';
import { roleType } from '../../src/rbac/kinds/kinds';
import { eventually } from '../support/eventually';
import { HttpResponse } from '../support/https-client';
import { kubectlFor } from '../support/kubectl';
import { startTestServer, TestServer } from '../support/test-server';
import { metricSample } from '../support/webhook-server';

const RBAC = '/apis/rbac.authorization.platform.io/v1';
const TESTING = 'testing.platform.io';

const role = (name: string) => ({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role', metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });

function warnings(res: HttpResponse): string[] {
  const out: string[] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i].toLowerCase() === 'warning') out.push(res.rawHeaders[i + 1]);
  return out;
}

/** A kind of a test-only group version: the Role schema and strategy under another name. */
function testKind(version: string, kind: string, plural: string): ResourceType {
  return { ...roleType, group: TESTING, version, kind, listKind: `${kind}List`, plural, singular: plural.replace(/s$/, ''), shortNames: undefined, categories: undefined, protobuf: undefined } as ResourceType;
}

/** Label sets in Prometheus' order, as kube's request metrics carry them. */
const series = (name: string, labels: Record<string, string>) => `${name}{${Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(',')}}`;
const req = (l: Partial<Record<string, string>>) => ({ verb: '', dry_run: '', group: '', version: '', resource: '', subresource: '', scope: '', component: 'apiserver', ...l });

describe('request metrics', () => {
  let server: TestServer;
  const page = async () => {
    const res = await server.admin.get('/metrics', { headers: { Accept: 'text/plain' } });
    expect(res.status).toBe(200);
    return res.text;
  };
  const sample = async (name: string, labels: Record<string, string>) => metricSample(await page(), series(name, labels)) ?? 0;

  beforeAll(async () => {
    // Without anonymous requests, a request without credentials is refused with 401.
    server = await startTestServer({ options: { anonymousAuth: false } });
  });
  afterAll(() => server.close());

  it('counts requests with kube\'s labels, 401 and 403 included, and observes latency and response size', async () => {
    expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: 'metrics-a' } })).status).toBe(201);
    expect((await server.admin.post(`${RBAC}/namespaces/metrics-a/roles`, role('r1'))).status).toBe(201);
    expect((await server.admin.post(`${RBAC}/namespaces/metrics-a/roles?dryRun=All`, role('r2'))).status).toBe(201);
    expect((await server.admin.get(`${RBAC}/namespaces/metrics-a/roles`)).status).toBe(200);
    expect((await server.admin.get(`${RBAC}/namespaces/metrics-a/roles/missing`)).status).toBe(404);
    expect((await server.anonymous.get(`${RBAC}/namespaces/metrics-a/roles`)).status).toBe(401);
    expect((await server.anonymous.get(`${RBAC}/namespaces/metrics-a/roles`, { as: server.certFor('metrics-nobody') })).status).toBe(403);
    expect((await server.admin.get('/apis/rbac.authorization.platform.io/v1/bogus-kind-4711')).status).toBe(404);
    expect((await server.anonymous.get('/no/such/path-4711', { as: server.certFor('metrics-nobody') })).status).toBe(403);
    const applied = await server.admin.patch(`${RBAC}/namespaces/metrics-a/roles/r1?fieldManager=m`, role('r1'), 'application/apply-patch+yaml');
    expect(applied.status).toBe(200);

    const text = await page();
    expect(text).toContain('# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    expect(text).toContain('# TYPE apiserver_request_total counter');
    const roles = { group: 'rbac.authorization.platform.io', version: 'v1', resource: 'roles' };
    const count = (labels: Record<string, string>, code: number) => metricSample(text, series('apiserver_request_total', { ...labels, code: String(code) }));
    expect(count(req({ verb: 'LIST', ...roles, scope: 'namespace' }), 200)).toBeGreaterThanOrEqual(1);
    expect(count(req({ verb: 'POST', ...roles, scope: 'resource' }), 201)).toBeGreaterThanOrEqual(1);
    expect(count(req({ verb: 'POST', dry_run: 'All', ...roles, scope: 'resource' }), 201)).toBe(1);
    expect(count(req({ verb: 'GET', ...roles, scope: 'resource' }), 404)).toBeGreaterThanOrEqual(1);
    expect(count(req({ verb: 'APPLY', ...roles, scope: 'resource' }), 200)).toBe(1);
    // Refused requests count too (kubernetes#73336).
    expect(count(req({ verb: 'LIST', ...roles, scope: 'namespace' }), 401)).toBeGreaterThanOrEqual(1);
    expect(count(req({ verb: 'LIST', ...roles, scope: 'namespace' }), 403)).toBeGreaterThanOrEqual(1);
    // Caller-chosen names never become label values.
    expect(count(req({ verb: 'LIST', resource: 'other', scope: 'cluster' }), 404)).toBeGreaterThanOrEqual(1);
    expect(count(req({ verb: 'GET', subresource: 'other' }), 403)).toBeGreaterThanOrEqual(1);
    // (Checked in label values only: a sample's value may happen to contain the digits.)
    expect(text).not.toMatch(/"[^"\n]*4711[^"\n]*"/);

    const duration = req({ verb: 'LIST', ...roles, scope: 'namespace' });
    expect(text).toContain(`# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.`);
    expect(metricSample(text, series('apiserver_request_duration_seconds_bucket', { le: '0.005', ...duration }))).toBeDefined();
    expect(metricSample(text, series('apiserver_request_duration_seconds_bucket', { le: '60', ...duration }))).toBeGreaterThanOrEqual(1);
    const { dry_run: _d, ...sized } = duration;
    expect(metricSample(text, series('apiserver_response_sizes_bucket', { le: '1000000000', ...sized }))).toBeGreaterThanOrEqual(1);
    expect(metricSample(text, series('apiserver_response_sizes_sum', sized))).toBeGreaterThan(100);
    expect(metricSample(text, series('apiserver_current_inflight_requests', { request_kind: 'readOnly' }))).toBeGreaterThanOrEqual(1);
    expect(metricSample(text, series('apiserver_current_inflight_requests', { request_kind: 'mutating' }))).toBeDefined();

    expect(text).toContain('# HELP authentication_attempts [ALPHA] Counter of authenticated attempts.');
    expect(metricSample(text, series('authentication_attempts', { result: 'success' }))).toBeGreaterThanOrEqual(1);
    expect(metricSample(text, series('authentication_attempts', { result: 'failure' }))).toBeGreaterThanOrEqual(1);
    expect(metricSample(text, series('authentication_duration_seconds_count', { result: 'success' }))).toBeGreaterThanOrEqual(1);

    // Defined for the audit backends, exported from the start.
    expect(text).toContain('# HELP apiserver_audit_event_total [ALPHA] Counter of audit events generated and sent to the audit backend.');
    expect(text).toContain('# HELP apiserver_audit_error_total [ALPHA] Counter of audit events that failed to be audited properly.');
    // Node process metrics and the authorization metrics are still there.
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('apiserver_authorization_decisions_total');
  });

  it('reports stored objects and LIST reads from storage per resource', async () => {
    await server.admin.post('/api/v1/namespaces', { metadata: { name: 'metrics-b' } });
    for (const name of ['s1', 's2', 's3']) await server.admin.post(`${RBAC}/namespaces/metrics-b/roles`, role(name));
    const before = await sample('apiserver_storage_list_returned_objects_total', { resource: 'roles.rbac.authorization.platform.io' });
    expect((await server.admin.get(`${RBAC}/namespaces/metrics-b/roles?labelSelector=none%3Dyes`)).body.items).toEqual([]);
    expect((await server.admin.get(`${RBAC}/namespaces/metrics-b/roles`)).body.items).toHaveLength(3);
    const text = await page();
    const roles = { resource: 'roles.rbac.authorization.platform.io' };
    expect(text).toContain('# HELP apiserver_storage_objects [STABLE] Number of stored objects at the time of last check split by kind.');
    expect(metricSample(text, series('apiserver_storage_objects', roles))).toBeGreaterThanOrEqual(3);
    expect(metricSample(text, series('apiserver_storage_objects', { resource: 'namespaces' }))).toBeGreaterThanOrEqual(2);
    expect(metricSample(text, series('apiserver_storage_objects', { resource: 'clusterroles.rbac.authorization.platform.io' }))).toBeGreaterThan(10);
    expect(metricSample(text, series('apiserver_storage_list_returned_objects_total', roles))).toBe(before + 3);
    expect(metricSample(text, series('apiserver_storage_list_total', roles))).toBeGreaterThanOrEqual(2);
    expect(metricSample(text, series('apiserver_storage_list_evaluated_objects_total', roles))).toBeGreaterThanOrEqual(before + 6);
    expect(metricSample(text, series('apiserver_storage_list_fetched_objects_total', roles))).toBeGreaterThanOrEqual(before + 6);
  });

  it('times each call into the embedded engine in its thread; on PostgreSQL there are none', async () => {
    const name = 'apiserver_storage_embedded_call_duration_seconds';
    const before = metricSample(await page(), `${name}_count`) ?? 0;
    await server.admin.post('/api/v1/namespaces', { metadata: { name: 'metrics-e' } });
    const text = await page();
    expect(text).toContain(`# HELP ${name} [ALPHA] Time each call into the embedded store engine took in the engine's own thread`);
    if (process.env.DATABASE_URL) {
      expect(metricSample(text, `${name}_count`)).toBe(0);
      return;
    }
    // The create's transaction: at least its statement and its commit.
    expect(metricSample(text, `${name}_count`)).toBeGreaterThanOrEqual(before + 2);
    expect(metricSample(text, `${name}_bucket{le="+Inf"}`)).toBe(metricSample(text, `${name}_count`));
    expect(metricSample(text, `${name}_sum`)).toBeGreaterThan(0);
  });

  it('tracks open watches as long-running requests and registered watchers, and counts their events', async () => {
    await server.admin.post('/api/v1/namespaces', { metadata: { name: 'metrics-w' } });
    const watcher = { group: 'rbac.authorization.platform.io', version: 'v1', kind: 'RoleBinding' };
    const longRunning = { verb: 'WATCH', group: 'rbac.authorization.platform.io', version: 'v1', resource: 'rolebindings', subresource: '', scope: 'namespace', component: 'apiserver' };
    const eventsBefore = await sample('apiserver_watch_events_total', watcher);
    const sizesBefore = await sample('apiserver_watch_events_sizes_count', watcher);
    const smallBefore = await sample('apiserver_watch_events_sizes_bucket', { le: '1024', ...watcher });
    const watch = await server.admin.stream(`${RBAC}/namespaces/metrics-w/rolebindings?watch=true`);
    try {
      await eventually(async () => {
        const text = await page();
        expect(metricSample(text, series('apiserver_registered_watchers', watcher))).toBe(1);
        expect(metricSample(text, series('apiserver_longrunning_requests', longRunning))).toBe(1);
      });
      await server.admin.post(`${RBAC}/namespaces/metrics-w/rolebindings`, {
        metadata: { name: 'b' },
        roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'User', name: 'x' }],
      });
      await watch.waitFor(1);
      await eventually(async () => expect(await sample('apiserver_watch_events_total', watcher)).toBe(eventsBefore + 1));
      // Its size: one observation, in the first bucket (a RoleBinding event is well under 1 KiB).
      const text = await page();
      expect(metricSample(text, series('apiserver_watch_events_sizes_count', watcher))).toBe(sizesBefore + 1);
      expect(metricSample(text, series('apiserver_watch_events_sizes_bucket', { le: '1024', ...watcher }))).toBe(smallBefore + 1);
      expect(metricSample(text, series('apiserver_watch_events_sizes_sum', watcher))).toBeGreaterThan(100);
    } finally {
      watch.close();
    }
    await eventually(async () => {
      const text = await page();
      expect(metricSample(text, series('apiserver_registered_watchers', watcher))).toBe(0);
      expect(metricSample(text, series('apiserver_longrunning_requests', longRunning))).toBe(0);
      expect(metricSample(text, series('apiserver_request_total', { ...req(longRunning), code: '200' }))).toBeGreaterThanOrEqual(1);
    });
  });

  describe('a deprecated version that exists only in this test', () => {
    const path = `/apis/${TESTING}/v1beta1/namespaces/metrics-d/widgets`;
    const warning = `299 - "${TESTING}/v1beta1 Widget is deprecated in v1.17+, unavailable in v1.33+; use ${TESTING}/v1 Widget"`;

    beforeAll(async () => {
      const registry = server.running.app.get(ResourceRegistry);
      const factory = server.running.app.get(GenericStorageFactory);
      registry.declareGroupVersion({ group: TESTING, version: 'v1', introduced: '1.20' });
      registry.declareGroupVersion({
        group: TESTING,
        version: 'v1beta1',
        introduced: '1.8',
        deprecation: { deprecatedIn: '1.17', removedIn: '1.33', replacement: `${TESTING}/v1` },
      });
      for (const type of [testKind('v1', 'Widget', 'widgets'), testKind('v1beta1', 'Widget', 'widgets')]) registry.register(type, factory.create(type));
      await server.admin.post('/api/v1/namespaces', { metadata: { name: 'metrics-d' } });
    });

    it('answers with kube\'s Warning header, sets the gauge, and says nothing for the current version', async () => {
      const created = await server.admin.post(path, { ...role('w1'), apiVersion: `${TESTING}/v1beta1`, kind: 'Widget' });
      expect(created.status).toBe(201);
      expect(warnings(created)).toEqual([warning]);
      const listed = await server.admin.get(path);
      expect(listed.status).toBe(200);
      expect(warnings(listed)).toEqual([warning]);
      const current = await server.admin.get(`/apis/${TESTING}/v1/namespaces/metrics-d/widgets`);
      expect(current.status).toBe(200);
      expect(warnings(current)).toEqual([]);

      const text = await page();
      expect(text).toContain('# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.');
      expect(metricSample(text, series('apiserver_requested_deprecated_apis', { group: TESTING, version: 'v1beta1', resource: 'widgets', subresource: '', removed_release: '1.33' }))).toBe(1);
      expect(text).not.toMatch(/apiserver_requested_deprecated_apis\{group="testing.platform.io",version="v1"/);
    });

    it('reaches kubectl, which prints the warning', async () => {
      const kubectl = kubectlFor(server);
      const { stdout, stderr } = await kubectl('get', `widgets.v1beta1.${TESTING}`, '-n', 'metrics-d', '-o', 'name');
      expect(stdout.trim()).toBe(`widget.${TESTING}/w1`);
      expect(stderr).toContain(`Warning: ${TESTING}/v1beta1 Widget is deprecated in v1.17+, unavailable in v1.33+; use ${TESTING}/v1 Widget`);
    });

    it('does not serve alpha versions, nor beta versions introduced from 1.22, unless enabled', async () => {
      const registry = server.running.app.get(ResourceRegistry);
      const factory = server.running.app.get(GenericStorageFactory);
      registry.declareGroupVersion({ group: TESTING, version: 'v2alpha1' });
      registry.declareGroupVersion({ group: TESTING, version: 'v2beta1', introduced: '1.25' });
      for (const type of [testKind('v2alpha1', 'Widget', 'widgets'), testKind('v2beta1', 'Widget', 'widgets')]) registry.register(type, factory.create(type));
      for (const version of ['v2alpha1', 'v2beta1']) {
        expect((await server.admin.get(`/apis/${TESTING}/${version}/namespaces/metrics-d/widgets`)).status).toBe(404);
        expect((await server.admin.get(`/apis/${TESTING}/${version}`)).status).toBe(404);
      }
      const group = (await server.admin.get(`/apis/${TESTING}`)).body;
      expect(group.versions.map((v: { version: string }) => v.version)).toEqual(['v1', 'v1beta1']);
    });
  });
});

describe('--runtime-config', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      options: { runtimeConfig: parseRuntimeConfig('authorization.platform.io/v1=false,access.platform.io/v1=false,rbac.authorization.platform.io/v1/rolebindings=false,api/alpha=true') },
    });
  });
  afterAll(() => server.close());

  it('removes a disabled version from routing, discovery and OpenAPI', async () => {
    const review = { apiVersion: 'authorization.platform.io/v1', kind: 'SelfSubjectAccessReview', spec: { nonResourceAttributes: { path: '/x', verb: 'get' } } };
    const refused = await server.admin.post('/apis/authorization.platform.io/v1/selfsubjectaccessreviews', review);
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    // kubectl's alias path of the same kinds goes too.
    expect((await server.admin.post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', review)).status).toBe(404);
    expect((await server.admin.get('/apis/authorization.platform.io')).status).toBe(404);
    expect((await server.admin.get('/apis/authorization.platform.io/v1')).status).toBe(404);
    const groups = (await server.admin.get('/apis')).body.groups.map((g: { name: string }) => g.name);
    expect(groups).not.toContain('authorization.platform.io');
    expect(groups).toEqual(expect.arrayContaining(['rbac.authorization.platform.io', 'authentication.platform.io']));
    const v3 = (await server.admin.get('/openapi/v3')).body.paths;
    expect(Object.keys(v3)).not.toContain('apis/authorization.platform.io/v1');
    expect((await server.admin.get('/openapi/v3/apis/authorization.platform.io/v1')).status).toBe(404);
    const v2 = (await server.admin.get('/openapi/v2', { headers: { Accept: 'application/json' } })).body;
    expect(Object.keys(v2.paths).filter((p) => p.includes('/authorization.platform.io/'))).toEqual([]);
  });

  it('removes the access analysis group like any other', async () => {
    const explanation = { apiVersion: 'access.platform.io/v1', kind: 'AccessExplanation', spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods' } } };
    const refused = await server.admin.post('/apis/access.platform.io/v1/accessexplanations', explanation);
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    expect((await server.admin.get('/apis/access.platform.io/v1')).status).toBe(404);
    const groups = (await server.admin.get('/apis')).body.groups.map((g: { name: string }) => g.name);
    expect(groups).not.toContain('access.platform.io');
    expect(Object.keys((await server.admin.get('/openapi/v3')).body.paths)).not.toContain('apis/access.platform.io/v1');
  });

  it('removes a disabled resource and keeps the rest of its version', async () => {
    expect((await server.admin.get(`${RBAC}/namespaces/default/rolebindings`)).status).toBe(404);
    expect((await server.admin.get(`${RBAC}/rolebindings`)).status).toBe(404);
    expect((await server.admin.get(`${RBAC}/namespaces/default/roles`)).status).toBe(200);
    const resources = (await server.admin.get(RBAC)).body.resources.map((r: { name: string }) => r.name);
    expect(resources).toEqual(expect.arrayContaining(['roles', 'clusterroles', 'clusterrolebindings']));
    expect(resources).not.toContain('rolebindings');
    const v2 = (await server.admin.get('/openapi/v2', { headers: { Accept: 'application/json' } })).body;
    expect(Object.keys(v2.paths).filter((p) => p.includes('/rolebindings'))).toEqual([]);
    // The server itself still has the kind: it wrote the default bindings, which are in force.
    const viewer = server.anonymous.withIdentity(server.certFor('runtime-config-user'));
    expect((await viewer.get('/apis')).status).toBe(200);
  });

  it('serves alpha versions when api/alpha is on', async () => {
    const registry = server.running.app.get(ResourceRegistry);
    const factory = server.running.app.get(GenericStorageFactory);
    registry.declareGroupVersion({ group: TESTING, version: 'v1alpha1' });
    const type = testKind('v1alpha1', 'Gadget', 'gadgets');
    registry.register(type, factory.create(type));
    expect((await server.admin.get(`/apis/${TESTING}/v1alpha1/gadgets`)).status).toBe(200);
    expect((await server.admin.get(`/apis/${TESTING}/v1alpha1`)).body.resources.map((r: { name: string }) => r.name)).toEqual(['gadgets']);
  });

  it('stops the start naming a group version or resource no module serves', async () => {
    await expect(
      startTestServer({ options: { runtimeConfig: parseRuntimeConfig('nope.platform.io/v1=true,rbac.authorization.platform.io/v1/widgets=false,rbac.authorization.platform.io/v1=true') } }),
    ).rejects.toThrow('--runtime-config: unknown group version or resource: nope.platform.io/v1, rbac.authorization.platform.io/v1/widgets');
  });
});
