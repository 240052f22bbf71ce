import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';

const RBAC = '/apis/rbac.authorization.platform.io/v1';

function role(name: string, namespace = 'default', extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'rbac.authorization.platform.io/v1',
    kind: 'Role',
    metadata: { name, namespace, labels: { app: 'test' } },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    ...extra,
  };
}

describe('generic resource layer over HTTPS', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('create, get, list', () => {
    it('creates a Role with server-set metadata and returns 201', async () => {
      const res = await server.admin.post(`${RBAC}/namespaces/default/roles`, role('reader'));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role' });
      expect(res.body.metadata).toMatchObject({ name: 'reader', namespace: 'default' });
      expect(res.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(res.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

      const got = await server.admin.get(`${RBAC}/namespaces/default/roles/reader`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
    });

    it('refuses a second object with the same name: 409 AlreadyExists', async () => {
      await server.admin.post(`${RBAC}/namespaces/default/roles`, role('dup'));
      const res = await server.admin.post(`${RBAC}/namespaces/default/roles`, role('dup'));
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'AlreadyExists',
        message: 'roles.rbac.authorization.platform.io "dup" already exists',
        details: { name: 'dup', group: 'rbac.authorization.platform.io', kind: 'roles' },
        code: 409,
      });
    });

    it('lists one namespace and all namespaces; items carry no TypeMeta', async () => {
      await server.admin.post('/api/v1/namespaces', { metadata: { name: 'team-a' } });
      await server.admin.post(`${RBAC}/namespaces/team-a/roles`, role('a1', 'team-a'));
      const inNs = await server.admin.get(`${RBAC}/namespaces/team-a/roles`);
      expect(inNs.status).toBe(200);
      expect(inNs.body).toMatchObject({ kind: 'RoleList', apiVersion: 'rbac.authorization.platform.io/v1' });
      expect(inNs.body.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(inNs.body.items.map((i: any) => i.metadata.name)).toEqual(['a1']);
      expect(inNs.body.items[0].kind).toBeUndefined();

      const all = await server.admin.get(`${RBAC}/roles`);
      const names = all.body.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`);
      expect(names).toEqual(expect.arrayContaining(['team-a/a1', 'default/reader']));
    });

    it('answers 404 NotFound for a missing object with kube\'s message', async () => {
      const res = await server.admin.get(`${RBAC}/clusterroles/nope`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        reason: 'NotFound',
        message: 'clusterroles.rbac.authorization.platform.io "nope" not found',
        details: { name: 'nope', group: 'rbac.authorization.platform.io', kind: 'clusterroles' },
      });
    });

    it('refuses to create in a namespace that does not exist', async () => {
      const res = await server.admin.post(`${RBAC}/namespaces/ghost/roles`, role('x', 'ghost'));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ reason: 'NotFound', message: 'namespaces "ghost" not found' });
    });

    it('renders YAML when asked', async () => {
      const res = await server.admin.get(`${RBAC}/namespaces/default/roles/reader`, { headers: { Accept: 'application/yaml' } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toContain('application/yaml');
      expect(res.text).toContain('kind: Role');
    });

    it('accepts a YAML body', async () => {
      const yaml = 'apiVersion: rbac.authorization.platform.io/v1\nkind: ClusterRole\nmetadata:\n  name: from-yaml\nrules:\n- nonResourceURLs: ["/healthz"]\n  verbs: ["get"]\n';
      const res = await server.admin.post(`${RBAC}/clusterroles`, undefined, { raw: yaml, contentType: 'application/yaml' });
      expect(res.status).toBe(201);
      expect(res.body.rules).toEqual([{ nonResourceURLs: ['/healthz'], verbs: ['get'] }]);
    });
  });

  describe('update', () => {
    it('replaces with PUT, bumps resourceVersion and keeps uid/creationTimestamp', async () => {
      const created = (await server.admin.post(`${RBAC}/namespaces/default/roles`, role('upd'))).body;
      const changed = { ...created, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] };
      changed.metadata = { ...created.metadata, uid: undefined, creationTimestamp: '2000-01-01T00:00:00Z' };
      const res = await server.admin.put(`${RBAC}/namespaces/default/roles/upd`, changed);
      expect(res.status).toBe(200);
      expect(res.body.rules[0].resources).toEqual(['secrets']);
      expect(res.body.metadata.uid).toBe(created.metadata.uid);
      expect(res.body.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
      expect(BigInt(res.body.metadata.resourceVersion)).toBeGreaterThan(BigInt(created.metadata.resourceVersion));
    });

    it('honours If-Match on PUT and PATCH', async () => {
      const created = (await server.admin.post(`${RBAC}/namespaces/default/roles`, role('ifm'))).body;
      const rv = created.metadata.resourceVersion;
      const ok = await server.admin.patch(`${RBAC}/namespaces/default/roles/ifm`, { metadata: { labels: { a: '1' } } }, 'application/merge-patch+json', {
        headers: { 'If-Match': `"${rv}"` },
      });
      expect(ok.status).toBe(200);
      const stalePatch = await server.admin.patch(`${RBAC}/namespaces/default/roles/ifm`, { metadata: { labels: { a: '2' } } }, 'application/merge-patch+json', {
        headers: { 'If-Match': `"${rv}"` },
      });
      expect(stalePatch.status).toBe(409);
      expect(stalePatch.body.reason).toBe('Conflict');
      const { resourceVersion: _drop, ...meta } = ok.body.metadata;
      const stalePut = await server.admin.put(`${RBAC}/namespaces/default/roles/ifm`, { ...ok.body, metadata: meta }, { headers: { 'If-Match': rv } });
      expect(stalePut.status).toBe(409);
      const put = await server.admin.put(`${RBAC}/namespaces/default/roles/ifm`, { ...ok.body, metadata: { ...meta, labels: { a: '3' } } }, { headers: { 'If-Match': ok.body.metadata.resourceVersion } });
      expect(put.status).toBe(200);
    });

    it('creates a missing RBAC object on PUT (201), as kube does', async () => {
      const res = await server.admin.put(`${RBAC}/clusterroles/put-created`, {
        metadata: { name: 'put-created' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
      });
      expect(res.status).toBe(201);
      expect(res.body.metadata.uid).toBeDefined();
    });

    it('does not create a missing namespace on PUT', async () => {
      const res = await server.admin.put('/api/v1/namespaces/not-there', { metadata: { name: 'not-there' } });
      expect(res.status).toBe(404);
    });

    it('rejects a body whose name differs from the URL', async () => {
      const res = await server.admin.put(`${RBAC}/clusterroles/a`, { metadata: { name: 'b' }, rules: [] });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('does not match the name on the URL');
    });

    it('writes nothing when an update changes nothing', async () => {
      const created = (await server.admin.post(`${RBAC}/namespaces/default/roles`, role('noop'))).body;
      const res = await server.admin.put(`${RBAC}/namespaces/default/roles/noop`, created);
      expect(res.status).toBe(200);
      expect(res.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    });
  });

  describe('patch', () => {
    it('applies a merge patch', async () => {
      await server.admin.post(`${RBAC}/namespaces/default/roles`, role('mp'));
      const res = await server.admin.patch(
        `${RBAC}/namespaces/default/roles/mp`,
        { metadata: { labels: { app: null, tier: 'web' } }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['*'] }] },
        'application/merge-patch+json',
      );
      expect(res.status).toBe(200);
      expect(res.body.metadata.labels).toEqual({ tier: 'web' });
      expect(res.body.rules).toEqual([{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['*'] }]);
    });

    it('applies a JSON patch, and a failed test operation changes nothing', async () => {
      const created = (await server.admin.post(`${RBAC}/namespaces/default/roles`, role('jp'))).body;
      const ok = await server.admin.patch(
        `${RBAC}/namespaces/default/roles/jp`,
        [
          { op: 'test', path: '/rules/0/verbs/0', value: 'get' },
          { op: 'add', path: '/rules/0/verbs/-', value: 'watch' },
        ],
        'application/json-patch+json',
      );
      expect(ok.status).toBe(200);
      expect(ok.body.rules[0].verbs).toEqual(['get', 'list', 'watch']);

      const failed = await server.admin.patch(
        `${RBAC}/namespaces/default/roles/jp`,
        [
          { op: 'replace', path: '/rules/0/verbs', value: ['delete'] },
          { op: 'test', path: '/rules/0/verbs/0', value: 'nope' },
        ],
        'application/json-patch+json',
      );
      expect(failed.status).toBe(422);
      expect(failed.body.kind).toBe('Status');
      const after = await server.admin.get(`${RBAC}/namespaces/default/roles/jp`);
      expect(after.body.rules[0].verbs).toEqual(['get', 'list', 'watch']);
      expect(after.body.metadata.resourceVersion).toBe(ok.body.metadata.resourceVersion);
      expect(after.body.metadata.uid).toBe(created.metadata.uid);
    });

    it('rejects a JSON patch on a missing path and a malformed patch', async () => {
      await server.admin.post(`${RBAC}/namespaces/default/roles`, role('jp2'));
      const badPath = await server.admin.patch(
        `${RBAC}/namespaces/default/roles/jp2`,
        [{ op: 'replace', path: '/nothing/here', value: 1 }],
        'application/json-patch+json',
      );
      expect(badPath.status).toBe(422);
      const malformed = await server.admin.patch(`${RBAC}/namespaces/default/roles/jp2`, { op: 'add' }, 'application/json-patch+json');
      expect(malformed.status).toBe(400);
    });

    it('answers 415 for an unknown patch type and 404 for a missing object', async () => {
      const res = await server.admin.patch(`${RBAC}/namespaces/default/roles/jp2`, {}, 'text/plain');
      expect(res.status).toBe(415);
      expect(res.body.reason).toBe('UnsupportedMediaType');
      const missing = await server.admin.patch(`${RBAC}/namespaces/default/roles/none`, {}, 'application/merge-patch+json');
      expect(missing.status).toBe(404);
    });

    it('refuses a patch that names a stale resourceVersion', async () => {
      const created = (await server.admin.post(`${RBAC}/namespaces/default/roles`, role('prv'))).body;
      await server.admin.patch(`${RBAC}/namespaces/default/roles/prv`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
      const res = await server.admin.patch(
        `${RBAC}/namespaces/default/roles/prv`,
        { metadata: { resourceVersion: created.metadata.resourceVersion, labels: { a: 'c' } } },
        'application/merge-patch+json',
      );
      expect(res.status).toBe(409);
    });
  });

  describe('delete', () => {
    it('deletes an RBAC object and answers a success Status', async () => {
      const created = (await server.admin.post(`${RBAC}/namespaces/default/roles`, role('gone'))).body;
      const res = await server.admin.delete(`${RBAC}/namespaces/default/roles/gone`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Success',
        details: { name: 'gone', group: 'rbac.authorization.platform.io', kind: 'roles', uid: created.metadata.uid },
      });
      expect((await server.admin.get(`${RBAC}/namespaces/default/roles/gone`)).status).toBe(404);
      expect((await server.admin.delete(`${RBAC}/namespaces/default/roles/gone`)).status).toBe(404);
    });

    it('honours DeleteOptions preconditions', async () => {
      const created = (await server.admin.post(`${RBAC}/clusterroles`, { metadata: { name: 'pre' }, rules: [] })).body;
      const wrongUid = await server.admin.delete(`${RBAC}/clusterroles/pre`, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'other' } },
      });
      expect(wrongUid.status).toBe(409);
      expect(wrongUid.body.message).toContain('Precondition failed: UID in precondition: other');
      const ok = await server.admin.delete(`${RBAC}/clusterroles/pre`, {
        body: { preconditions: { uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion } },
      });
      expect(ok.status).toBe(200);
    });

    it('deletes a collection in one namespace only', async () => {
      await server.admin.post('/api/v1/namespaces', { metadata: { name: 'dc-1' } });
      await server.admin.post('/api/v1/namespaces', { metadata: { name: 'dc-2' } });
      for (const n of ['x', 'y']) await server.admin.post(`${RBAC}/namespaces/dc-1/roles`, role(n, 'dc-1'));
      await server.admin.post(`${RBAC}/namespaces/dc-2/roles`, role('z', 'dc-2'));
      const res = await server.admin.delete(`${RBAC}/namespaces/dc-1/roles`);
      expect(res.status).toBe(200);
      // kube's store answers with the list of the objects it deleted.
      expect(res.body).toMatchObject({ kind: 'RoleList', apiVersion: 'rbac.authorization.platform.io/v1' });
      expect(res.body.items.map((r: { metadata: { name: string } }) => r.metadata.name).sort()).toEqual(['x', 'y']);
      expect((await server.admin.get(`${RBAC}/namespaces/dc-1/roles`)).body.items).toEqual([]);
      expect((await server.admin.get(`${RBAC}/namespaces/dc-2/roles`)).body.items).toHaveLength(1);
    });
  });

  describe('namespaces', () => {
    it('has default, kube-system and kube-public after start', async () => {
      const res = await server.admin.get('/api/v1/namespaces');
      expect(res.body.kind).toBe('NamespaceList');
      const names = res.body.items.map((n: any) => n.metadata.name);
      expect(names).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public']));
      const ns = await server.admin.get('/api/v1/namespaces/default');
      expect(ns.body).toMatchObject({ kind: 'Namespace', apiVersion: 'v1', status: { phase: 'Active' } });
    });

    it('deleting a namespace marks it Terminating, empties it, then removes it', async () => {
      await server.admin.post('/api/v1/namespaces', { metadata: { name: 'doomed' } });
      await server.admin.post(`${RBAC}/namespaces/doomed/roles`, role('r', 'doomed'));
      await server.admin.post(`${RBAC}/namespaces/doomed/rolebindings`, {
        metadata: { name: 'b' },
        roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'r' },
        subjects: [{ kind: 'User', name: 'alice' }],
      });
      const res = await server.admin.delete('/api/v1/namespaces/doomed');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ kind: 'Namespace', status: { phase: 'Terminating' } });
      expect(res.body.metadata.deletionTimestamp).toBeDefined();

      await eventually(async () => expect((await server.admin.get('/api/v1/namespaces/doomed')).status).toBe(404));
      const roles = await server.admin.get(`${RBAC}/roles`);
      expect(roles.body.items.filter((i: any) => i.metadata.namespace === 'doomed')).toEqual([]);
      const bindings = await server.admin.get(`${RBAC}/rolebindings`);
      expect(bindings.body.items.filter((i: any) => i.metadata.namespace === 'doomed')).toEqual([]);
      // Re-creating the namespace starts empty.
      expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: 'doomed' } })).status).toBe(201);
      expect((await server.admin.get(`${RBAC}/namespaces/doomed/roles`)).body.items).toEqual([]);
    });

    it('refuses new content in a Terminating namespace (403) and waits for finalizers inside it', async () => {
      await server.admin.post('/api/v1/namespaces', { metadata: { name: 'lingering' } });
      await server.admin.post(`${RBAC}/namespaces/lingering/roles`, { ...role('held', 'lingering'), metadata: { name: 'held', finalizers: ['example.com/hold'] } });
      await server.admin.delete('/api/v1/namespaces/lingering');
      const refused = await server.admin.post(`${RBAC}/namespaces/lingering/roles`, role('late', 'lingering'));
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain('unable to create new content in namespace lingering because it is being terminated');
      await eventually(async () => {
        const held = await server.admin.get(`${RBAC}/namespaces/lingering/roles/held`);
        expect(held.body.metadata.deletionTimestamp).toBeDefined();
      });
      expect((await server.admin.get('/api/v1/namespaces/lingering')).body.status.phase).toBe('Terminating');
      await server.admin.patch(`${RBAC}/namespaces/lingering/roles/held`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
      await eventually(async () => expect((await server.admin.get('/api/v1/namespaces/lingering')).status).toBe(404));
    });

    it('reads "not older than" a resourceVersion on get, and 504s for a future one', async () => {
      const created = (await server.admin.post(`${RBAC}/namespaces/default/roles`, role('rv-get'))).body;
      const ok = await server.admin.get(`${RBAC}/namespaces/default/roles/rv-get?resourceVersion=${created.metadata.resourceVersion}`);
      expect(ok.status).toBe(200);
      expect((await server.admin.get(`${RBAC}/namespaces/default/roles/rv-get?resourceVersion=0`)).status).toBe(200);
      const future = await server.admin.get(`${RBAC}/namespaces/default/roles/rv-get?resourceVersion=999999999`);
      expect(future.status).toBe(504);
      expect(future.headers['retry-after']).toBe('1');
    });

    it('refuses to delete a system namespace', async () => {
      const res = await server.admin.delete('/api/v1/namespaces/kube-system');
      expect(res.status).toBe(403);
      expect(res.body.reason).toBe('Forbidden');
    });

    it('validates namespace names as DNS labels', async () => {
      const res = await server.admin.post('/api/v1/namespaces', { metadata: { name: 'Bad_Name' } });
      expect(res.status).toBe(422);
      expect(res.body.details.causes[0].field).toBe('metadata.name');
    });
  });

  describe('errors are Status objects', () => {
    it('malformed JSON is 400', async () => {
      const res = await server.admin.post(`${RBAC}/clusterroles`, undefined, { raw: '{"metadata": ', contentType: 'application/json' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    });

    it('a body that is not an object is 400', async () => {
      const res = await server.admin.post(`${RBAC}/clusterroles`, [1, 2]);
      expect(res.status).toBe(400);
    });

    it('a body over 3 MiB is 413', async () => {
      const huge = JSON.stringify({ metadata: { name: 'big', annotations: { a: 'x'.repeat(3 * 1024 * 1024) } } });
      const res = await server.admin.post(`${RBAC}/clusterroles`, undefined, { raw: huge });
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
    });

    it('unknown paths are 404 Status', async () => {
      for (const path of ['/apis/nope.platform.io/v1/things', `${RBAC}/widgets`, '/api/v2/pods', '/nothing', `${RBAC}/clusterroles/a/b/c`]) {
        const res = await server.admin.get(path);
        expect({ path, status: res.status, kind: res.body?.kind }).toEqual({ path, status: 404, kind: 'Status' });
      }
    });

    it('a method the path does not serve is 405', async () => {
      const put = await server.admin.put(`${RBAC}/clusterroles`, { metadata: { name: 'x' } });
      expect(put.status).toBe(405);
      expect(put.body.reason).toBe('MethodNotAllowed');
      const createAcross = await server.admin.post(`${RBAC}/roles`, role('x'));
      expect(createAcross.status).toBe(405);
      const nsDeleteCollection = await server.admin.delete('/api/v1/namespaces');
      expect(nsDeleteCollection.status).toBe(405);
    });

    it('an unsupported body type is 415 and an unacceptable Accept is 406', async () => {
      const res = await server.admin.post(`${RBAC}/clusterroles`, undefined, { raw: 'x', contentType: 'text/plain' });
      expect(res.status).toBe(415);
      const accept = await server.admin.get(`${RBAC}/clusterroles`, { headers: { Accept: 'text/html' } });
      expect(accept.status).toBe(406);
      expect(accept.body.reason).toBe('NotAcceptable');
    });

    it('a wrong kind or apiVersion in the body is 400', async () => {
      const res = await server.admin.post(`${RBAC}/clusterroles`, { apiVersion: 'v1', kind: 'ClusterRole', metadata: { name: 'k' } });
      expect(res.status).toBe(400);
      const kind = await server.admin.post(`${RBAC}/clusterroles`, { kind: 'Role', metadata: { name: 'k' } });
      expect(kind.status).toBe(400);
    });

    it("an invalid dryRun value is kube's 422 Invalid on CreateOptions and dryRun=All stores nothing", async () => {
      const bad = await server.admin.post(`${RBAC}/clusterroles?dryRun=Some`, { metadata: { name: 'dry' }, rules: [] });
      expect(bad.status).toBe(422);
      expect(bad.body).toMatchObject({ reason: 'Invalid', details: { kind: 'CreateOptions', group: 'meta.platform.io' } });
      const dry = await server.admin.post(`${RBAC}/clusterroles?dryRun=All`, { metadata: { name: 'dry' }, rules: [] });
      expect(dry.status).toBe(201);
      expect(dry.body.metadata.uid).toBeDefined();
      expect((await server.admin.get(`${RBAC}/clusterroles/dry`)).status).toBe(404);
    });
  });

  describe('the resource route table', () => {
    it('serves HEAD like GET, with the headers and no body', async () => {
      await server.admin.post(`${RBAC}/namespaces/default/roles`, role('headed'));
      const res = await server.admin.request('HEAD', `${RBAC}/namespaces/default/roles/headed`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['audit-id']).toBeTruthy();
      expect(res.text).toBe('');
      const missing = await server.admin.request('HEAD', `${RBAC}/namespaces/default/roles/nobody`);
      expect(missing.status).toBe(404);
    });

    it('answers a method resource paths do not serve 404 for callers who may reach the path, 403 for others', async () => {
      const res = await server.admin.request('OPTIONS', `${RBAC}/namespaces/default/roles`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource', code: 404 });
      const stranger = await server.admin.request('OPTIONS', `${RBAC}/namespaces/default/roles`, { as: server.certFor('stranger') });
      expect(stranger.status).toBe(403);
      expect(stranger.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    });

    it('authorizes before it looks the path up: an unknown kind is 403 for a stranger, 404 for an admin', async () => {
      const stranger = await server.admin.get(`${RBAC}/namespaces/default/widgets`, { as: server.certFor('stranger') });
      expect(stranger.status).toBe(403);
      expect(stranger.body.message).toBe(
        'widgets.rbac.authorization.platform.io is forbidden: User "stranger" cannot list resource "widgets" in API group "rbac.authorization.platform.io" in the namespace "default"',
      );
      const admin = await server.admin.get(`${RBAC}/namespaces/default/widgets`);
      expect(admin.status).toBe(404);
      expect(admin.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
      const otherVersion = await server.admin.get('/api/v2/namespaces');
      expect(otherVersion.status).toBe(404);
      expect(otherVersion.body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource' });
    });

    it('still routes the discovery paths beside the resource paths', async () => {
      const group = await server.admin.get(RBAC);
      expect(group.status).toBe(200);
      expect(group.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'rbac.authorization.platform.io/v1' });
      const core = await server.admin.get('/api/v1');
      expect(core.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    });
  });
});
