import { spawn } from 'node:child_process';
import { eventually } from '../support/eventually';
import { kubernetesClient } from '../support/kubernetes-client';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * A watch across all namespaces (`/apis/<group>/<version>/<plural>?watch=1` and
 * `/api/v1/<plural>?watch=1`), as `kubectl get -A -w` and every cluster-wide informer use it:
 * the same options as a namespaced watch, authorized as verb `watch` at the cluster scope.
 */
const GROUP = 'rbac.authorization.platform.io';
const RBAC = `/apis/${GROUP}/v1`;
const ALL_ROLES = `${RBAC}/roles`;
const rolesIn = (ns: string) => `${RBAC}/namespaces/${ns}/roles`;
const role = (name: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels }, rules: [] });
const brief = (e: any) => [e.type, e.object.metadata?.namespace, e.object.metadata?.name];
const NAMESPACES = ['wa-one', 'wa-two'];

describe('watch across all namespaces', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ options: { bookmarkIntervalMs: 300 } });
    for (const name of [...NAMESPACES, 'wa-cm']) expect((await server.admin.post('/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('without a resourceVersion: the current state of every namespace, then each change in any namespace, in order', async () => {
    await server.admin.post(rolesIn('wa-one'), role('existing', { suite: 'a1' }));
    const watch = await server.admin.stream(`${ALL_ROLES}?watch=1&labelSelector=suite%3Da1`);
    expect(watch.status).toBe(200);
    await watch.waitFor(1);
    await server.admin.post(rolesIn('wa-two'), role('new', { suite: 'a1' }));
    await server.admin.patch(`${rolesIn('wa-two')}/new`, { metadata: { annotations: { a: 'b' } } }, 'application/merge-patch+json');
    await server.admin.delete(`${rolesIn('wa-one')}/existing`);
    const events = await watch.waitFor(4);
    watch.close();
    expect(events.map(brief)).toEqual([
      ['ADDED', 'wa-one', 'existing'],
      ['ADDED', 'wa-two', 'new'],
      ['MODIFIED', 'wa-two', 'new'],
      ['DELETED', 'wa-one', 'existing'],
    ]);
    expect(events[1].object).toMatchObject({ kind: 'Role', apiVersion: `${GROUP}/v1` });
  });

  it('from a resourceVersion: only later changes, from every namespace; resourceVersion=0 starts with the state', async () => {
    const first = await server.admin.post(rolesIn('wa-one'), role('from-a', { suite: 'a2' }));
    await server.admin.post(rolesIn('wa-two'), role('from-b', { suite: 'a2' }));
    const from = await server.admin.stream(`${ALL_ROLES}?watch=1&labelSelector=suite%3Da2&resourceVersion=${first.body.metadata.resourceVersion}`);
    expect((await from.waitFor(1)).map(brief)).toEqual([['ADDED', 'wa-two', 'from-b']]);
    from.close();

    const zero = await server.admin.stream(`${ALL_ROLES}?watch=1&labelSelector=suite%3Da2&resourceVersion=0`);
    const state = await zero.waitFor(2);
    zero.close();
    expect(state.map(brief)).toEqual([
      ['ADDED', 'wa-one', 'from-a'],
      ['ADDED', 'wa-two', 'from-b'],
    ]);
  });

  it('sendInitialEvents: the state of every namespace, an annotated BOOKMARK, then changes; =false starts at the newest revision', async () => {
    await server.admin.post(rolesIn('wa-two'), role('init-b', { suite: 'a3' }));
    await server.admin.post(rolesIn('wa-one'), role('init-a', { suite: 'a3' }));
    const listed = await server.admin.get(ALL_ROLES);
    const initial = await server.admin.stream(
      `${ALL_ROLES}?watch=1&labelSelector=suite%3Da3&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    );
    const withoutState = await server.admin.stream(
      `${ALL_ROLES}?watch=1&labelSelector=suite%3Da3&sendInitialEvents=false&resourceVersionMatch=NotOlderThan`,
    );
    expect(withoutState.status).toBe(200);
    const head = await initial.waitFor(3);
    expect(head.slice(0, 2).map(brief)).toEqual([
      ['ADDED', 'wa-one', 'init-a'],
      ['ADDED', 'wa-two', 'init-b'],
    ]);
    expect(head[2]).toMatchObject({ type: 'BOOKMARK', object: { kind: 'Role', metadata: { annotations: { 'platform.io/initial-events-end': 'true' } } } });
    expect(BigInt(head[2].object.metadata.resourceVersion)).toBeGreaterThanOrEqual(BigInt(listed.body.metadata.resourceVersion));

    await server.admin.post(rolesIn('wa-two'), role('init-c', { suite: 'a3' }));
    const changes = (await initial.waitFor(4)).slice(3).filter((e) => e.type !== 'BOOKMARK');
    expect(changes.map(brief)).toEqual([['ADDED', 'wa-two', 'init-c']]);
    expect((await withoutState.waitFor(1)).map(brief)).toEqual([['ADDED', 'wa-two', 'init-c']]);
    initial.close();
    withoutState.close();
  });

  it('filters by label and by field selectors across namespaces', async () => {
    const byNamespace = await server.admin.stream(`${ALL_ROLES}?watch=1&fieldSelector=metadata.namespace%3Dwa-two&labelSelector=suite%3Da4`);
    const byName = await server.admin.stream(`${ALL_ROLES}?watch=1&fieldSelector=metadata.name%3Dsel-x`);
    await server.admin.post(rolesIn('wa-one'), role('sel-x', { suite: 'a4' }));
    await server.admin.post(rolesIn('wa-two'), role('sel-y', { suite: 'a4' }));
    await server.admin.post(rolesIn('wa-two'), role('sel-x', { suite: 'other' }));
    expect((await byNamespace.waitFor(1)).map(brief)).toEqual([['ADDED', 'wa-two', 'sel-y']]);
    expect((await byName.waitFor(2)).map(brief)).toEqual([
      ['ADDED', 'wa-one', 'sel-x'],
      ['ADDED', 'wa-two', 'sel-x'],
    ]);
    byNamespace.close();
    byName.close();
    const list = await server.admin.get(`${ALL_ROLES}?fieldSelector=metadata.name%3Dsel-x`);
    expect(list.body.items.map((i: any) => i.metadata.namespace)).toEqual(['wa-one', 'wa-two']);
  });

  it('sends periodic BOOKMARKs when asked and ends at timeoutSeconds', async () => {
    const watch = await server.admin.stream(`${ALL_ROLES}?watch=1&labelSelector=suite%3Dnone&allowWatchBookmarks=true&timeoutSeconds=1`);
    await watch.ended;
    expect(watch.events.length).toBeGreaterThanOrEqual(1);
    for (const e of watch.events) expect(e).toMatchObject({ type: 'BOOKMARK', object: { kind: 'Role', metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } } });
  });

  it('rejects bad options with 400 as the namespaced watch does', async () => {
    for (const q of ['sendInitialEvents=true', 'labelSelector=a%20in%20b', 'fieldSelector=spec.x%3Dy', 'resourceVersion=abc', 'timeoutSeconds=soon']) {
      const res = await server.admin.get(`${ALL_ROLES}?watch=1&${q}`);
      expect({ q, status: res.status, kind: res.body?.kind, reason: res.body?.reason }).toEqual({ q, status: 400, kind: 'Status', reason: 'BadRequest' });
    }
  });

  it('watches core kinds across namespaces under /api/v1', async () => {
    const watch = await server.admin.stream('/api/v1/configmaps?watch=1&labelSelector=suite%3Da5');
    await server.admin.post('/api/v1/namespaces/wa-cm/configmaps', { metadata: { name: 'cm', labels: { suite: 'a5' } }, data: { k: 'v' } });
    await server.admin.post('/api/v1/namespaces/wa-one/configmaps', { metadata: { name: 'cm', labels: { suite: 'a5' } }, data: { k: 'w' } });
    const events = await watch.waitFor(2);
    watch.close();
    expect(events.map(brief)).toEqual([
      ['ADDED', 'wa-cm', 'cm'],
      ['ADDED', 'wa-one', 'cm'],
    ]);
    expect(events[0].object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { k: 'v' } });
  });

  it('serves list across namespaces, but create and deletecollection only per namespace (405), as kube routes them', async () => {
    await server.admin.post(rolesIn('wa-one'), role('dc', { suite: 'a6' }));
    await server.admin.post(rolesIn('wa-two'), role('dc', { suite: 'a6' }));
    const list = await server.admin.get(`${ALL_ROLES}?labelSelector=suite%3Da6`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ kind: 'RoleList', apiVersion: `${GROUP}/v1` });
    expect(list.body.items.map((i: any) => [i.metadata.namespace, i.metadata.name])).toEqual([
      ['wa-one', 'dc'],
      ['wa-two', 'dc'],
    ]);
    const notAllowed = { kind: 'Status', status: 'Failure', reason: 'MethodNotAllowed', code: 405, message: 'the server does not allow this method on the requested resource' };
    const deleteAll = await server.admin.delete(`${ALL_ROLES}?labelSelector=suite%3Da6`);
    expect({ status: deleteAll.status, body: deleteAll.body }).toMatchObject({ status: 405, body: notAllowed });
    const create = await server.admin.post(ALL_ROLES, { ...role('dc-x'), metadata: { name: 'dc-x', namespace: 'wa-one' } });
    expect({ status: create.status, body: create.body }).toMatchObject({ status: 405, body: notAllowed });
    expect((await server.admin.get(`${ALL_ROLES}?labelSelector=suite%3Da6`)).body.items).toHaveLength(2);
    const perNamespace = await server.admin.delete(`${rolesIn('wa-one')}?labelSelector=suite%3Da6`);
    expect(perNamespace.status).toBe(200);
    expect((await server.admin.get(`${ALL_ROLES}?labelSelector=suite%3Da6`)).body.items.map((i: any) => i.metadata.namespace)).toEqual(['wa-two']);
  });

  it('is authorized as watch at the cluster scope: a ClusterRoleBinding grants it, a RoleBinding does not', async () => {
    const reader = { metadata: { name: 'wa-role-watcher' }, rules: [{ apiGroups: [GROUP], resources: ['roles'], verbs: ['list', 'watch'] }] };
    expect((await server.admin.post(`${RBAC}/clusterroles`, reader)).status).toBe(201);
    const roleRef = { apiGroup: GROUP, kind: 'ClusterRole', name: 'wa-role-watcher' };
    const subjects = (name: string) => [{ kind: 'User', apiGroup: GROUP, name }];
    expect((await server.admin.post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'wa-cluster-watcher' }, roleRef, subjects: subjects('cluster-watcher') })).status).toBe(201);
    expect((await server.admin.post(`${RBAC}/namespaces/wa-one/rolebindings`, { metadata: { name: 'wa-ns-watcher' }, roleRef, subjects: subjects('ns-watcher') })).status).toBe(201);
    const clusterWatcher = server.certFor('cluster-watcher');
    const nsWatcher = server.certFor('ns-watcher');

    await eventually(async () => {
      const ok = await server.anonymous.stream(`${ALL_ROLES}?watch=1&labelSelector=suite%3Da7`, clusterWatcher);
      ok.close();
      expect(ok.status).toBe(200);
      const inNamespace = await server.anonymous.stream(`${rolesIn('wa-one')}?watch=1&labelSelector=suite%3Da7`, nsWatcher);
      inNamespace.close();
      expect(inNamespace.status).toBe(200);
    });
    const granted = await server.anonymous.stream(`${ALL_ROLES}?watch=1&labelSelector=suite%3Da7`, clusterWatcher);
    await server.admin.post(rolesIn('wa-two'), role('authz', { suite: 'a7' }));
    expect((await granted.waitFor(1)).map(brief)).toEqual([['ADDED', 'wa-two', 'authz']]);
    granted.close();

    const denied = await server.anonymous.request('GET', `${ALL_ROLES}?watch=1`, { as: nsWatcher });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      details: { group: GROUP, kind: 'roles' },
      message: `roles.${GROUP} is forbidden: User "ns-watcher" cannot watch resource "roles" in API group "${GROUP}" at the cluster scope`,
    });
  });

  it('feeds a cluster-wide informer of @kubernetes/client-node', async () => {
    const k8s = await kubernetesClient();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
    const informer = k8s.makeInformer(kc, ALL_ROLES, () => objects.list(`${GROUP}/v1`, 'Role', undefined, undefined, undefined, undefined, undefined, 'suite=a8'), 'suite=a8');
    const seen: string[] = [];
    const errors: unknown[] = [];
    for (const verb of ['add', 'update', 'delete'] as const) informer.on(verb, (obj: any) => seen.push(`${verb} ${obj.metadata.namespace}/${obj.metadata.name}`));
    informer.on('error', (err: unknown) => errors.push(err));
    await server.admin.post(rolesIn('wa-one'), role('inf-a', { suite: 'a8' }));
    await informer.start();
    try {
      await eventually(() => expect({ seen, errors }).toEqual({ seen: ['add wa-one/inf-a'], errors: [] }));
      await server.admin.post(rolesIn('wa-two'), role('inf-b', { suite: 'a8' }));
      await server.admin.patch(`${rolesIn('wa-one')}/inf-a`, { metadata: { annotations: { v: '2' } } }, 'application/merge-patch+json');
      await server.admin.delete(`${rolesIn('wa-two')}/inf-b`);
      await eventually(() => expect(seen).toEqual(['add wa-one/inf-a', 'add wa-two/inf-b', 'update wa-one/inf-a', 'delete wa-two/inf-b']));
      expect(informer.list().map((r: any) => `${r.metadata.namespace}/${r.metadata.name}`)).toEqual(['wa-one/inf-a']);
      expect((informer.get('inf-a', 'wa-one') as any).metadata.annotations).toEqual({ v: '2' });
      expect(errors).toEqual([]);
    } finally {
      await informer.stop();
    }
  });

  it('kubectl get -A -w prints the objects of every namespace and then each new one', async () => {
    await server.admin.post(rolesIn('wa-one'), role('kw-before', { suite: 'a9' }));
    const child = spawn('kubectl', ['--kubeconfig', server.kubeconfigPath, 'get', 'roles.rbac.authorization.platform.io', '-A', '-w', '-l', 'suite=a9'], {
      env: { ...process.env, HOME: server.dataDir, KUBECACHEDIR: `${server.dataDir}/kube-cache` },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    try {
      await eventually(() => expect(out).toMatch(/^NAMESPACE\s+NAME\s+CREATED AT\nwa-one\s+kw-before\s+\S+\n/), 20000);
      await server.admin.post(rolesIn('wa-two'), role('kw-after', { suite: 'a9' }));
      await server.admin.post(rolesIn('wa-one'), role('kw-later', { suite: 'a9' }));
      await eventually(() => {
        const rows = out.trim().split('\n').slice(1).map((line) => line.split(/\s+/).slice(0, 2).join('/'));
        expect(rows).toEqual(['wa-one/kw-before', 'wa-two/kw-after', 'wa-one/kw-later']);
      }, 20000);
      expect(err).toBe('');
    } finally {
      child.kill();
    }
  });
});
