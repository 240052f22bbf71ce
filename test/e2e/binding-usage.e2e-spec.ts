import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { DataSource } from 'typeorm';
import { BindingUsageTable } from '../../src/access/binding-usage-table';
import { dropTestSchema, newTestSchema } from '../support/db';
import { eventually } from '../support/eventually';
import { describeWithPostgres } from '../support/postgres';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

/**
 * Binding usage (access.platform.io/v1 bindingusages): each RBAC allow of a request or an
 * access review counts the binding that granted it; counts are flushed to the database
 * (every 200 ms here), survive a restart, add up across replicas, and go with the binding.
 */
const ACCESS = '/apis/access.platform.io/v1';
const USAGES = `${ACCESS}/bindingusages`;
const AUTHZ = '/apis/authorization.platform.io/v1';
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';
const TABLE = 'application/json;as=Table;v=v1;g=meta.platform.io';

const ALICE = { token: 'alice-token' };
const REVIEWER = { token: 'reviewer-token' };
const NOBODY = { token: 'nobody-token' };
const TOKENS = ['alice-token,alice,uid-alice', 'reviewer-token,reviewer,uid-reviewer', 'nobody-token,nobody,uid-nobody'];

const user = (name: string) => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const roleRef = (kind: string, name: string) => ({ apiGroup: RBAC_GROUP, kind, name });
const options = (tokenAuthFile: string) => ({ tokenAuthFile, bindingUsage: { recording: true, flushIntervalMs: 200 } });

const sar = (resourceAttributes: object) => ({ apiVersion: 'authorization.platform.io/v1', kind: 'SubjectAccessReview', spec: { user: 'alice', resourceAttributes } });

const PLUGIN = resolve(__dirname, '..', '..', 'bin', 'kubectl-access');

/** Runs bin/kubectl-access with a kubeconfig; its exit code and output. */
function plugin(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(PLUGIN, [...args, '--kubeconfig', kubeconfig], { timeout: 30000 }, (err, stdout, stderr) => {
      done({ code: err ? Number((err as { code?: unknown }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

/** The policy every test starts from: alice may list pods in `team` and nodes; the reviewer may list usages. */
async function seed(server: TestServer): Promise<void> {
  const created = async (path: string, body: object) => expect((await server.admin.post(path, body)).status).toBe(201);
  await created('/api/v1/namespaces', { metadata: { name: 'team' } });
  await created(`${RBAC}/clusterroles`, { metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] });
  await created(`${RBAC}/clusterroles`, { metadata: { name: 'node-reader' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }] });
  await created(`${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'alice-pods' }, roleRef: roleRef('ClusterRole', 'pod-reader'), subjects: [user('alice')] });
  await created(`${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'idle' }, roleRef: roleRef('ClusterRole', 'pod-reader'), subjects: [user('ghost')] });
  await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'alice:nodes' }, roleRef: roleRef('ClusterRole', 'node-reader'), subjects: [user('alice')] });
  await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'reviewer' }, roleRef: roleRef('ClusterRole', 'access-reviewer'), subjects: [user('reviewer')] });
}

/** Every BindingUsage, as the reviewer lists them, by binding (`Kind/ns/name`). */
async function usages(server: TestServer): Promise<Map<string, any>> {
  const res = await server.anonymous.get(USAGES, { as: REVIEWER });
  expect(res.status).toBe(200);
  const ref = (u: any) => [u.bindingRef.kind, u.bindingRef.namespace, u.bindingRef.name].filter(Boolean).join('/');
  return new Map(res.body.items.map((u: any) => [ref(u), u]));
}

describe('binding usage', () => {
  let server: TestServer;
  let dir: string;
  let tokens: string;
  const schema = process.env.DATABASE_URL ? newTestSchema() : undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'binding-usage-e2e-'));
    tokens = writeTokenFile(dir, TOKENS);
    server = await startTestServer({ schema, keep: true, options: options(tokens) });
    await seed(server);
  });

  afterAll(async () => {
    await server?.close();
    if (server) rmSync(server.dataDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    if (schema) await dropTestSchema(process.env.DATABASE_URL!, schema);
  });

  it('counts the binding that allowed each request and SubjectAccessReview, not explanations; flushed counts survive a restart', async () => {
    for (let i = 0; i < 3; i++) expect((await server.anonymous.get('/api/v1/namespaces/team/pods', { as: ALICE })).status).toBe(200);
    expect((await server.anonymous.get('/api/v1/nodes', { as: ALICE })).status).toBe(200);
    const review = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar({ namespace: 'team', verb: 'get', resource: 'pods', name: 'web' }));
    expect(review.body.status.allowed).toBe(true);
    const self = await server.anonymous.post(
      `${AUTHZ}/selfsubjectaccessreviews`,
      { apiVersion: 'authorization.platform.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'list', resource: 'nodes' } } },
      { as: ALICE },
    );
    expect(self.body.status.allowed).toBe(true);
    // An explanation and a denied request grant nothing.
    const explained = await server.admin.post(`${ACCESS}/accessexplanations`, {
      apiVersion: 'access.platform.io/v1',
      kind: 'AccessExplanation',
      spec: { user: 'alice', resourceAttributes: { namespace: 'team', verb: 'list', resource: 'pods' } },
    });
    expect(explained.body.status.allowed).toBe(true);
    expect((await server.anonymous.get('/api/v1/namespaces/team/secrets', { as: ALICE })).status).toBe(403);

    await eventually(async () => {
      const all = await usages(server);
      expect(all.get('RoleBinding/team/alice-pods')).toMatchObject({ grants: 4, lastGranted: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
      expect(all.get('ClusterRoleBinding/alice:nodes')).toMatchObject({ grants: 2 });
    });
    const all = await usages(server);
    const idle = all.get('RoleBinding/team/idle');
    expect(idle).toMatchObject({ metadata: { name: 'rolebinding.team.idle' }, bindingRef: { kind: 'RoleBinding', namespace: 'team', name: 'idle' }, grants: 0 });
    expect(idle.lastGranted).toBeUndefined();
    expect(idle.bindingCreated).toBe(idle.metadata.creationTimestamp);
    const stored = await server.admin.get(`${RBAC}/namespaces/team/rolebindings/idle`);
    expect(idle.bindingRef.uid).toBe(stored.body.metadata.uid);
    // Names are DNS subdomains even for binding names that are not.
    expect(all.get('ClusterRoleBinding/alice:nodes').metadata.name).toMatch(/^clusterrolebinding\.alice-nodes\.h[0-9a-f]{10}$/);
    // Bindings of the default policy are listed too (system:basic-user granted the SelfSubjectAccessReview).
    expect(all.get('ClusterRoleBinding/system:basic-user').grants).toBeGreaterThanOrEqual(1);

    // The restart flushes at shutdown; the new process reads the counts back.
    const before = all.get('RoleBinding/team/alice-pods').grants;
    await server.close();
    server = await startTestServer({ dataDir: server.dataDir, schema, keep: true, options: options(tokens) });
    const after = await usages(server);
    expect(after.get('RoleBinding/team/alice-pods').grants).toBe(before);
    expect(after.get('ClusterRoleBinding/alice:nodes').grants).toBe(2);
  });

  it("sweeps the rows of bindings that no longer exist once they are quiet, keeping the others", async () => {
    const table = new BindingUsageTable(server.running.app.get(DataSource));
    const existing = [...(await usages(server)).values()].map((u) => u.bindingRef.uid);
    const hourAgo = Date.now() - 3600_000;
    await table.flush(new Map([['uid-of-a-deleted-binding', { grants: 3, lastGranted: hourAgo }], ['uid-of-a-new-binding', { grants: 1, lastGranted: Date.now() }]]), []);
    expect(await table.sweep(existing, 600)).toBe(1);
    const left = await table.read(['uid-of-a-deleted-binding', 'uid-of-a-new-binding', ...existing]);
    expect(left.has('uid-of-a-deleted-binding')).toBe(false);
    expect(left.get('uid-of-a-new-binding')).toMatchObject({ grants: 1 });
    expect((await usages(server)).get('RoleBinding/team/alice-pods').grants).toBe(4);
  });

  it('gets one usage by name; other names are 404', async () => {
    const res = await server.anonymous.get(`${USAGES}/rolebinding.team.idle`, { as: REVIEWER });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ apiVersion: 'access.platform.io/v1', kind: 'BindingUsage', grants: 0 });
    const missing = await server.anonymous.get(`${USAGES}/rolebinding.team.nothing`, { as: REVIEWER });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ reason: 'NotFound', message: 'bindingusages.access.platform.io "rolebinding.team.nothing" not found' });
  });

  it('selects by bindingRef.kind and bindingRef.namespace; other fields are 400', async () => {
    const roleBindings = await server.anonymous.get(`${USAGES}?fieldSelector=bindingRef.kind%3DRoleBinding`, { as: REVIEWER });
    expect(roleBindings.status).toBe(200);
    const all = [...(await usages(server)).values()];
    const names = (items: any[]) => items.map((u) => u.metadata.name).sort();
    expect(names(roleBindings.body.items)).toEqual(names(all.filter((u) => u.bindingRef.kind === 'RoleBinding')));
    expect(roleBindings.body.items.length).toBeGreaterThan(2);
    const inTeam = await server.anonymous.get(`${USAGES}?fieldSelector=bindingRef.namespace%3Dteam,bindingRef.kind%3DRoleBinding`, { as: REVIEWER });
    expect(names(inTeam.body.items)).toEqual(['rolebinding.team.alice-pods', 'rolebinding.team.idle']);
    const clusterWide = await server.anonymous.get(`${USAGES}?fieldSelector=bindingRef.kind!%3DRoleBinding`, { as: REVIEWER });
    expect(clusterWide.body.items.every((u: any) => u.bindingRef.kind === 'ClusterRoleBinding' && u.bindingRef.namespace === undefined)).toBe(true);
    const bad = await server.anonymous.get(`${USAGES}?fieldSelector=grants%3D0`, { as: REVIEWER });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(bad.body.message).toContain('field label not supported: grants');
  });

  it('pages with limit and continue, in name order', async () => {
    const whole = (await server.anonymous.get(USAGES, { as: REVIEWER })).body.items.map((u: any) => u.metadata.name);
    expect(whole).toEqual([...whole].sort());
    const paged: string[] = [];
    let next = '';
    let pages = 0;
    do {
      const res = await server.anonymous.get(`${USAGES}?limit=7${next ? `&continue=${encodeURIComponent(next)}` : ''}`, { as: REVIEWER });
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(7);
      if (res.body.metadata.continue) expect(res.body.metadata.remainingItemCount).toBe(whole.length - paged.length - res.body.items.length);
      paged.push(...res.body.items.map((u: any) => u.metadata.name));
      next = res.body.metadata.continue ?? '';
      pages++;
    } while (next);
    expect(pages).toBe(Math.ceil(whole.length / 7));
    expect(paged).toEqual(whole);
    const forged = await server.anonymous.get(`${USAGES}?limit=1&continue=bm9wZQ.x`, { as: REVIEWER });
    expect(forged.status).toBe(400);
  });

  it('renders as Table (BINDING, GRANTS, LAST GRANTED, AGE) and YAML', async () => {
    const res = await server.anonymous.get(`${USAGES}?fieldSelector=bindingRef.namespace%3Dteam`, { as: REVIEWER, headers: { accept: TABLE } });
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('Table');
    expect(res.body.columnDefinitions.map((c: any) => c.name)).toEqual(['Binding', 'Grants', 'Last Granted', 'Age']);
    const cells = new Map(res.body.rows.map((r: any) => [r.cells[0], r.cells]));
    expect(cells.get('RoleBinding/team/idle')).toEqual(['RoleBinding/team/idle', 0, '<none>', expect.stringMatching(/^\d+s$/)]);
    expect(cells.get('RoleBinding/team/alice-pods')).toEqual(['RoleBinding/team/alice-pods', 4, expect.stringMatching(/^\d+s$/), expect.stringMatching(/^\d+s$/)]);
    const yaml = await server.anonymous.get(`${USAGES}/rolebinding.team.idle`, { as: REVIEWER, headers: { accept: 'application/yaml' } });
    expect(parseYaml(yaml.text)).toMatchObject({ kind: 'BindingUsage', bindingRef: { name: 'idle' }, grants: 0 });
  });

  it('is read-only: every other verb is 405', async () => {
    const body = { apiVersion: 'access.platform.io/v1', kind: 'BindingUsage', metadata: { name: 'rolebinding.team.idle' } };
    const answers = [
      await server.admin.post(USAGES, body),
      await server.admin.put(`${USAGES}/rolebinding.team.idle`, body),
      await server.admin.patch(`${USAGES}/rolebinding.team.idle`, { grants: 9 }, 'application/merge-patch+json'),
      await server.admin.delete(`${USAGES}/rolebinding.team.idle`),
      await server.admin.delete(USAGES),
    ];
    for (const res of answers) {
      expect(res.status).toBe(405);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
    }
    // A watch reaches the list handler, which refuses it by name (kube's MethodNotSupported).
    const watch = await server.admin.get(`${USAGES}?watch=true`);
    expect(watch.status).toBe(405);
    expect(watch.body).toMatchObject({
      reason: 'MethodNotAllowed',
      message: 'watch is not supported on resources of kind "bindingusages.access.platform.io"',
      details: { group: 'access.platform.io', kind: 'bindingusages' },
    });
  });

  it('is in discovery and OpenAPI', async () => {
    const discovery = await server.admin.get(ACCESS);
    expect(discovery.body.resources).toContainEqual(expect.objectContaining({ name: 'bindingusages', kind: 'BindingUsage', namespaced: false, verbs: ['get', 'list'] }));
    const openapi = await server.admin.get('/openapi/v3/apis/access.platform.io/v1');
    expect(openapi.status).toBe(200);
    expect(Object.keys(openapi.body.components.schemas).some((name) => name.endsWith('.BindingUsage'))).toBe(true);
  });

  it('needs list on bindingusages (the access-reviewer role has it)', async () => {
    const denied = await server.anonymous.get(USAGES, { as: NOBODY });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('bindingusages.access.platform.io is forbidden: User "nobody" cannot list resource "bindingusages" in API group "access.platform.io" at the cluster scope');
  });

  it('kubectl access unused lists the bindings without a grant in the window, idle longest first', async () => {
    const inTeam = await plugin(server.kubeconfigPath, ['unused', '--since=1h', '-n', 'team']);
    expect(inTeam).toMatchObject({ code: 0, stderr: '' });
    expect(inTeam.stdout).toMatch(/^BINDING\s+GRANTS\s+LAST GRANTED\s+AGE\nRoleBinding team\/idle\s+0\s+never\s+\d+s\n$/);

    const everywhere = await plugin(server.kubeconfigPath, ['unused']);
    expect(everywhere.code).toBe(0);
    const bindings = everywhere.stdout.split('\n').slice(1, -1).map((line) => line.split(/\s{3,}/)[0]);
    expect(bindings).toContain('RoleBinding team/idle');
    expect(bindings).not.toContain('RoleBinding team/alice-pods');
    // The default policy's bindings are older than the test's own.
    expect(bindings.indexOf('ClusterRoleBinding system:node')).toBeLessThan(bindings.indexOf('RoleBinding team/idle'));

    // A window of 0 leaves out nothing; -o json prints the BindingUsages.
    const json = JSON.parse((await plugin(server.kubeconfigPath, ['unused', '--since=0', '-n', 'team', '-o', 'json'])).stdout);
    expect(json.kind).toBe('BindingUsageList');
    expect(json.items.map((u: any) => u.bindingRef.name).sort()).toEqual(['alice-pods', 'idle']);
  });

  it('kubectl access unused refuses a bad window', async () => {
    expect(await plugin(server.kubeconfigPath, ['unused', '--since=soon'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: invalid --since "soon": use a duration such as 720h, 30m or 1h30m\n',
    });
  });
  it('counts the bind an escalation check asks, besides the request itself', async () => {
    await server.admin.post(`${RBAC}/clusterroles`, {
      metadata: { name: 'binder' },
      rules: [
        { apiGroups: [RBAC_GROUP], resources: ['rolebindings'], verbs: ['create'] },
        { apiGroups: [RBAC_GROUP], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['node-reader'] },
      ],
    });
    await server.admin.post(`${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'alice-binds' }, roleRef: roleRef('ClusterRole', 'binder'), subjects: [user('alice')] });
    await eventually(async () => {
      const made = await server.anonymous.post(
        `${RBAC}/namespaces/team/rolebindings`,
        { metadata: { name: 'made-by-alice' }, roleRef: roleRef('ClusterRole', 'node-reader'), subjects: [user('ghost')] },
        { as: ALICE },
      );
      expect(made.status).toBe(201);
    });
    // The create (the guard) and the bind (the escalation check): two grants.
    await eventually(async () => expect((await usages(server)).get('RoleBinding/team/alice-binds')).toMatchObject({ grants: 2 }));
  });

  it("drops a deleted binding's usage; a binding made again under the same name starts at 0", async () => {
    expect((await usages(server)).get('RoleBinding/team/alice-pods').grants).toBeGreaterThan(0);
    expect((await server.admin.delete(`${RBAC}/namespaces/team/rolebindings/alice-pods`)).status).toBe(200);
    await eventually(async () => expect((await usages(server)).has('RoleBinding/team/alice-pods')).toBe(false));
    await server.admin.post(`${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'alice-pods' }, roleRef: roleRef('ClusterRole', 'pod-reader'), subjects: [user('alice')] });
    await eventually(async () => expect((await usages(server)).get('RoleBinding/team/alice-pods')).toMatchObject({ grants: 0 }));
    await eventually(async () => expect((await server.anonymous.get('/api/v1/namespaces/team/pods', { as: ALICE })).status).toBe(200));
    await eventually(async () => expect((await usages(server)).get('RoleBinding/team/alice-pods')).toMatchObject({ grants: 1 }));
  });
});

/** Two servers on one PostgreSQL schema: each flushes what it counted, and both list the sum. */
describeWithPostgres('binding usage across replicas', (pgUrl) => {
  it('adds up the counts of every replica', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'binding-usage-replicas-'));
    const tokens = writeTokenFile(dir, TOKENS);
    const schema = newTestSchema();
    const first = await startTestServer({ databaseUrl: pgUrl, schema, options: options(tokens) });
    let second: TestServer | undefined;
    try {
      await seed(first);
      second = await startTestServer({ databaseUrl: pgUrl, schema, options: options(tokens) });
      for (let i = 0; i < 2; i++) expect((await first.anonymous.get('/api/v1/namespaces/team/pods', { as: ALICE })).status).toBe(200);
      await eventually(async () => expect((await second!.anonymous.get('/api/v1/namespaces/team/pods', { as: ALICE })).status).toBe(200));
      expect((await second.anonymous.get('/api/v1/namespaces/team/pods', { as: ALICE })).status).toBe(200);
      for (const server of [first, second]) {
        await eventually(async () => expect((await usages(server)).get('RoleBinding/team/alice-pods')).toMatchObject({ grants: 4 }));
      }
    } finally {
      await second?.close();
      await first.close();
      await dropTestSchema(pgUrl, schema);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
