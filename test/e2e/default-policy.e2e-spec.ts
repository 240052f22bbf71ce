import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropTestSchema, newTestSchema } from '../support/db';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';

const RBAC = '/apis/rbac.authorization.platform.io/v1';
const CR = `${RBAC}/clusterroles`;
const CRB = `${RBAC}/clusterrolebindings`;
const MERGE = 'application/merge-patch+json';
const BOOTSTRAPPING = 'platform.io/bootstrapping';
const AUTOUPDATE = 'rbac.authorization.platform.io/autoupdate';

interface Rule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** Whether the rules let `verb` on `group`/`resource` (any name) through, as RBAC matches. */
function grants(rules: Rule[], verb: string, group: string, resource: string): boolean {
  const has = (list: string[] | undefined, v: string) => !!list && (list.includes('*') || list.includes(v));
  return rules.some((r) => has(r.verbs, verb) && has(r.apiGroups, group) && has(r.resources, resource) && !r.resourceNames?.length);
}

function grantsURL(rules: Rule[], verb: string, url: string): boolean {
  return rules.some(
    (r) => r.verbs.some((v) => v === '*' || v === verb) && (r.nonResourceURLs ?? []).some((u) => u === url || (u.endsWith('*') && url.startsWith(u.slice(0, -1)))),
  );
}

const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const DEFAULT_ROLES = [
  'cluster-admin',
  'admin',
  'edit',
  'view',
  'system:aggregate-to-admin',
  'system:aggregate-to-edit',
  'system:aggregate-to-view',
  'system:basic-user',
  'system:discovery',
  'system:public-info-viewer',
  'system:auth-delegator',
  'system:node-bootstrapper',
  'system:monitoring',
  'system:node',
  'system:controller:clusterrole-aggregation-controller',
  'system:controller:namespace-controller',
  'access-reviewer',
];

describe('the default RBAC policy', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-defaults-'));
  // On PostgreSQL the restart must find the same schema.
  const schema = process.env.DATABASE_URL ? newTestSchema() : undefined;
  let server: TestServer;

  const start = () => startTestServer({ dataDir, schema, keep: true });

  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) await dropTestSchema(process.env.DATABASE_URL!, schema);
  });

  const getRole = async (name: string) => {
    const res = await server.admin.get(`${CR}/${name}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const getBinding = async (name: string) => {
    const res = await server.admin.get(`${CRB}/${name}`);
    expect(res.status).toBe(200);
    return res.body;
  };

  it('is present after start, every object labelled and annotated, and readiness says so', async () => {
    for (const name of DEFAULT_ROLES) {
      const role = await getRole(name);
      expect(role.metadata.labels[BOOTSTRAPPING]).toBe('rbac-defaults');
      expect(role.metadata.annotations[AUTOUPDATE]).toBe('true');
    }
    const bindings = (await server.admin.get(`${CRB}?labelSelector=${encodeURIComponent(`${BOOTSTRAPPING}=rbac-defaults`)}`)).body.items;
    const subjects = Object.fromEntries(bindings.map((b: any) => [b.metadata.name, (b.subjects ?? []).map((s: any) => `${s.kind}:${s.name}`)]));
    expect(subjects).toMatchObject({
      'cluster-admin': ['Group:system:masters'],
      'system:basic-user': ['Group:system:authenticated'],
      'system:discovery': ['Group:system:authenticated'],
      'system:public-info-viewer': ['Group:system:authenticated', 'Group:system:unauthenticated'],
      'system:monitoring': ['Group:system:monitoring'],
      'system:controller:clusterrole-aggregation-controller': ['User:system:controller:clusterrole-aggregation-controller'],
    });
    for (const b of bindings) expect(b.metadata.annotations[AUTOUPDATE]).toBe('true');

    const ready = await server.anonymous.get('/readyz?verbose');
    expect(ready.status).toBe(200);
    expect(ready.text).toContain('[+]poststarthook/rbac/bootstrap-roles ok');
  });

  it('chains the aggregated roles through kube’s labels', async () => {
    const [admin, edit, view] = await Promise.all(['admin', 'edit', 'view'].map(getRole));
    expect(admin.aggregationRule.clusterRoleSelectors).toEqual([{ matchLabels: { 'rbac.authorization.platform.io/aggregate-to-admin': 'true' } }]);
    expect(edit.metadata.labels['rbac.authorization.platform.io/aggregate-to-admin']).toBe('true');
    expect(view.metadata.labels['rbac.authorization.platform.io/aggregate-to-edit']).toBe('true');
    for (const [name, label] of [
      ['system:aggregate-to-admin', 'aggregate-to-admin'],
      ['system:aggregate-to-edit', 'aggregate-to-edit'],
      ['system:aggregate-to-view', 'aggregate-to-view'],
    ]) {
      expect((await getRole(name)).metadata.labels[`rbac.authorization.platform.io/${label}`]).toBe('true');
    }
  });

  it('gives admin, edit and view the semantics of the spec', async () => {
    let admin: Rule[] = [];
    let edit: Rule[] = [];
    let view: Rule[] = [];
    await eventually(async () => {
      [admin, edit, view] = (await Promise.all(['admin', 'edit', 'view'].map(getRole))).map((r) => r.rules ?? []);
      expect(view.length).toBeGreaterThan(0);
      expect(admin.length).toBeGreaterThan(edit.length);
    }, 3000);

    // view: reads namespaced objects, writes nothing, no secrets, roles or bindings.
    for (const resource of ['pods', 'configmaps', 'serviceaccounts', 'persistentvolumeclaims', 'namespaces']) {
      expect(grants(view, 'get', '', resource)).toBe(true);
      expect(grants(view, 'list', '', resource)).toBe(true);
    }
    for (const verb of WRITE_VERBS) expect(view.some((r) => r.verbs.includes(verb) || r.verbs.includes('*'))).toBe(false);
    expect(grants(view, 'get', '', 'secrets')).toBe(false);
    expect(view.some((r) => r.apiGroups?.includes('rbac.authorization.platform.io'))).toBe(false);

    // edit: writes namespaced objects, reads secrets, acts as service accounts; no roles or bindings.
    for (const verb of WRITE_VERBS) {
      for (const resource of ['pods', 'configmaps', 'secrets', 'serviceaccounts', 'persistentvolumeclaims']) {
        expect(grants(edit, verb, '', resource)).toBe(true);
      }
    }
    expect(grants(edit, 'get', '', 'secrets')).toBe(true);
    expect(grants(edit, 'impersonate', '', 'serviceaccounts')).toBe(true);
    for (const resource of ['roles', 'rolebindings']) expect(grants(edit, 'get', 'rbac.authorization.platform.io', resource)).toBe(false);
    for (const r of view) expect(edit).toContainEqual(r);

    // admin: edit plus roles, rolebindings and local access reviews; never writes its namespace or quota.
    for (const verb of ['get', 'list', 'watch', ...WRITE_VERBS]) {
      expect(grants(admin, verb, 'rbac.authorization.platform.io', 'roles')).toBe(true);
      expect(grants(admin, verb, 'rbac.authorization.platform.io', 'rolebindings')).toBe(true);
    }
    expect(grants(admin, 'create', 'authorization.platform.io', 'localsubjectaccessreviews')).toBe(true);
    for (const verb of WRITE_VERBS) {
      expect(grants(admin, verb, '', 'namespaces')).toBe(false);
      expect(grants(admin, verb, '', 'resourcequotas')).toBe(false);
    }
    expect(grants(admin, 'get', 'rbac.authorization.platform.io', 'clusterroles')).toBe(false);
    for (const r of edit) expect(admin).toContainEqual(r);
  });

  it('grants the discovery, public-info, monitoring and basic-user permissions', async () => {
    const discovery = (await getRole('system:discovery')).rules;
    for (const url of ['/api', '/api/v1', '/apis', '/apis/rbac.authorization.platform.io/v1', '/healthz', '/livez', '/readyz', '/openapi/v2', '/version', '/version/']) {
      expect(grantsURL(discovery, 'get', url)).toBe(true);
    }
    expect(grantsURL(discovery, 'get', '/metrics')).toBe(false);
    const publicInfo = (await getRole('system:public-info-viewer')).rules;
    expect(['/healthz', '/livez', '/readyz', '/version', '/version/'].every((u) => grantsURL(publicInfo, 'get', u))).toBe(true);
    expect(grantsURL(publicInfo, 'get', '/api')).toBe(false);
    const monitoring = (await getRole('system:monitoring')).rules;
    expect(['/metrics', '/metrics/slis', '/livez/ping', '/readyz/storage', '/healthz'].every((u) => grantsURL(monitoring, 'get', u))).toBe(true);
    const basic = (await getRole('system:basic-user')).rules;
    expect(grants(basic, 'create', 'authorization.platform.io', 'selfsubjectaccessreviews')).toBe(true);
    expect(grants(basic, 'create', 'authorization.platform.io', 'selfsubjectrulesreviews')).toBe(true);
    expect(grants(basic, 'create', 'authentication.platform.io', 'selfsubjectreviews')).toBe(true);
    const node = (await getRole('system:node')).rules;
    expect(grants(node, 'get', '', 'secrets')).toBe(true);
    expect(grants(node, 'create', 'certificates.platform.io', 'certificatesigningrequests')).toBe(true);
    const delegator = (await getRole('system:auth-delegator')).rules;
    expect(grants(delegator, 'create', 'authentication.platform.io', 'tokenreviews')).toBe(true);
    expect(grants(delegator, 'create', 'authorization.platform.io', 'subjectaccessreviews')).toBe(true);
  });

  it('on restart restores removed permissions and subjects, keeps user additions, and skips autoupdate "false"', async () => {
    const userRule = { verbs: ['get'], apiGroups: ['example.platform.io'], resources: ['widgets'] };
    // A removed rule plus a rule of the user's own.
    const discovery = await getRole('system:discovery');
    const trimmedUrls = discovery.rules[0].nonResourceURLs.filter((u: string) => u !== '/version' && u !== '/apis/*');
    expect((await server.admin.patch(`${CR}/system:discovery`, { rules: [{ verbs: ['get'], nonResourceURLs: trimmedUrls }, userRule] }, MERGE)).status).toBe(200);
    // A removed subject plus a subject of the user's own.
    const alice = { kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: 'alice' };
    const publicBinding = await getBinding('system:public-info-viewer');
    const kept = publicBinding.subjects.filter((s: any) => s.name !== 'system:unauthenticated');
    expect((await server.admin.patch(`${CRB}/system:public-info-viewer`, { subjects: [...kept, alice] }, MERGE)).status).toBe(200);
    // A protected role and binding: emptied, and must stay so.
    expect(
      (await server.admin.patch(`${CR}/system:basic-user`, { metadata: { annotations: { [AUTOUPDATE]: 'false' } }, rules: [userRule] }, MERGE)).status,
    ).toBe(200);
    expect((await server.admin.patch(`${CRB}/system:discovery`, { metadata: { annotations: { [AUTOUPDATE]: 'false' } }, subjects: null }, MERGE)).status).toBe(200);
    // Deleted objects come back.
    expect((await server.admin.delete(`${CR}/system:auth-delegator`)).status).toBe(200);
    expect((await server.admin.delete(`${CRB}/cluster-admin`)).status).toBe(200);
    // A removed label comes back; a value the user changed stays.
    expect((await server.admin.patch(`${CR}/system:monitoring`, { metadata: { labels: { [BOOTSTRAPPING]: null, team: 'ops' } } }, MERGE)).status).toBe(200);

    await server.close();
    server = await start();

    const restored = (await getRole('system:discovery')).rules;
    expect(restored).toContainEqual(userRule);
    for (const url of ['/version', '/apis/*', '/api']) expect(grantsURL(restored, 'get', url)).toBe(true);
    expect(restored.slice(0, 2)).toEqual([{ verbs: ['get'], nonResourceURLs: trimmedUrls }, userRule]);
    // kube appends exactly the missing pieces, one URL and verb each.
    expect(restored.slice(2)).toEqual([
      { verbs: ['get'], nonResourceURLs: ['/version'] },
      { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
    ]);

    const binding = await getBinding('system:public-info-viewer');
    expect(binding.subjects.map((s: any) => s.name)).toEqual(['system:authenticated', 'alice', 'system:unauthenticated']);

    const basic = await getRole('system:basic-user');
    expect(basic.rules).toEqual([userRule]);
    expect(basic.metadata.annotations[AUTOUPDATE]).toBe('false');
    const protectedBinding = await getBinding('system:discovery');
    expect(protectedBinding.subjects ?? []).toEqual([]);

    expect((await getRole('system:auth-delegator')).rules.length).toBe(2);
    expect((await getBinding('cluster-admin')).subjects).toEqual([{ kind: 'Group', apiGroup: 'rbac.authorization.platform.io', name: 'system:masters' }]);

    const monitoring = await getRole('system:monitoring');
    expect(monitoring.metadata.labels).toEqual({ [BOOTSTRAPPING]: 'rbac-defaults', team: 'ops' });
  });

  it('does not write anything on a restart when the policy is complete', async () => {
    const before = BigInt((await server.admin.get(CR)).body.metadata.resourceVersion);
    await server.close();
    server = await start();
    const roles = (await server.admin.get(`${CR}?labelSelector=${encodeURIComponent(`${BOOTSTRAPPING}=rbac-defaults`)}`)).body.items;
    const bindings = (await server.admin.get(`${CRB}?labelSelector=${encodeURIComponent(`${BOOTSTRAPPING}=rbac-defaults`)}`)).body.items;
    for (const item of [...roles, ...bindings]) {
      expect(BigInt(item.metadata.resourceVersion) <= before).toBe(true);
    }
  });
});

/** The defaults as the RBAC authorizer applies them: what a fresh server lets ordinary users do. */
describe('the default RBAC policy under --authorization-mode=RBAC', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ options: { authorizationModes: ['RBAC'] } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lets authenticated users discover the API, and view/edit/admin grant what their names say', async () => {
    const dev = server.certFor('dev', ['devs']);
    const as = (path: string) => server.anonymous.get(path, { as: dev }).then((r) => r.status);
    // system:discovery through system:authenticated.
    expect(await as('/api')).toBe(200);
    expect(await as('/apis')).toBe(200);
    // Nothing else by default.
    expect(await as(`${CR}`)).toBe(403);
    expect(await as('/api/v1/namespaces/default/configmaps')).toBe(403);

    const bind = async (role: string) => {
      const res = await server.admin.post(`${RBAC}/namespaces/default/rolebindings`, {
        metadata: { name: `dev-${role}` },
        roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: 'dev' }],
      });
      expect(res.status).toBe(201);
    };
    await bind('view');
    await eventually(async () => expect(await as('/api/v1/namespaces/default/configmaps')).toBe(200), 3000);
    expect(await as('/api/v1/namespaces/default/secrets')).toBe(403);
    expect(await as(`${RBAC}/namespaces/default/roles`)).toBe(403);
    expect(await as('/api/v1/namespaces/other/configmaps')).toBe(403);

    await bind('edit');
    await eventually(async () => expect(await as('/api/v1/namespaces/default/secrets')).toBe(200), 3000);
    expect(await as(`${RBAC}/namespaces/default/roles`)).toBe(403);

    await bind('admin');
    await eventually(async () => expect(await as(`${RBAC}/namespaces/default/roles`)).toBe(200), 3000);
    expect(await as(`${CR}`)).toBe(403);
  });
});
