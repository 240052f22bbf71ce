import { eventually } from '../support/eventually';
import { Kubectl, kubectlAs, kubectlBinary, kubectlFor } from '../support/kubectl';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * `kubectl auth can-i`, `--list`, `--as` and `whoami` as they are: kubectl posts its reviews
 * to kube's `authorization.k8s.io` and `authentication.k8s.io`, which answer as aliases of
 * this server's review kinds (--kubectl-review-aliases, on by default) without appearing in
 * discovery; switched off, those paths are 404 again.
 */
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const KUBE_AUTHZ = '/apis/authorization.k8s.io/v1';
const KUBE_AUTHN = '/apis/authentication.k8s.io';
const NS = 'team-a';
const roleRef = (name: string) => ({ apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name });
const user = (name: string) => ({ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name });

describe('kubectl auth (review aliases on)', () => {
  let server: TestServer;
  let admin: Kubectl;
  let alice: Kubectl;

  beforeAll(async () => {
    server = await startTestServer();
    admin = kubectlFor(server);
    alice = kubectlAs(server, 'alice', server.certFor('alice', ['devs']));
    const created = async (path: string, body: object) => expect((await server.admin.post(path, body)).status).toBe(201);
    await created('/api/v1/namespaces', { metadata: { name: NS } });
    await created(`${RBAC}/namespaces/${NS}/rolebindings`, { metadata: { name: 'alice-view' }, roleRef: roleRef('view'), subjects: [user('alice')] });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('can-i says yes with exit code 0 and no with exit code 1', async () => {
    await eventually(async () => expect((await alice('auth', 'can-i', 'list', 'pods', '-n', NS)).stdout).toBe('yes\n'));
    expect((await alice('auth', 'can-i', 'watch', 'configmaps', '-n', NS)).stdout).toBe('yes\n');
    // view grants no RBAC objects; the resource name resolves through discovery to this server's group.
    await expect(alice('auth', 'can-i', 'get', 'rolebindings', '-n', NS)).rejects.toMatchObject({ code: 1, stdout: 'no\n' });
    await expect(alice('auth', 'can-i', 'delete', 'pods', '-n', NS)).rejects.toMatchObject({ code: 1, stdout: 'no\n' });
    await expect(alice('auth', 'can-i', 'list', 'pods', '-n', 'default')).rejects.toMatchObject({ code: 1, stdout: 'no\n' });
    expect((await admin('auth', 'can-i', '*', '*')).stdout).toBe('yes\n');
  });

  it('can-i --list prints the rules in the namespace', async () => {
    const { stdout } = await alice('auth', 'can-i', '--list', '-n', NS);
    expect(stdout).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n/);
    expect(stdout).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    expect(stdout).toMatch(/^selfsubjectaccessreviews\.authorization\.platform\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    expect(stdout).toMatch(/^\s+\[\/api\/\*\]\s+\[\]\s+\[get\]$/m);
    expect((await admin('auth', 'can-i', '--list')).stdout).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
  });

  it('--as asks about the impersonated user, and needs the right to impersonate', async () => {
    expect((await admin('auth', 'can-i', 'list', 'pods', '-n', NS, '--as', 'alice')).stdout).toBe('yes\n');
    await expect(admin('auth', 'can-i', 'list', 'pods', '-n', NS, '--as', 'bob')).rejects.toMatchObject({ code: 1, stdout: 'no\n' });
    const whoami = await admin('auth', 'whoami', '--as', 'bob', '--as-group', 'testers');
    expect(whoami.stdout).toMatch(/^Username\s+bob$/m);
    expect(whoami.stdout).toMatch(/^Groups\s+\[testers system:authenticated\]$/m);
    // With constrained impersonation (on by default) the first refusal is its check of the request itself.
    await expect(alice('auth', 'can-i', 'list', 'pods', '--as', 'bob')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        'selfsubjectaccessreviews.authorization.platform.io is forbidden: User "alice" cannot impersonate-on:user-info:create resource "selfsubjectaccessreviews" in API group "authorization.platform.io" at the cluster scope',
      ),
    });
  });

  it('whoami prints the caller, and -o json the SelfSubjectReview in the version kubectl posted', async () => {
    const { stdout } = await alice('auth', 'whoami');
    expect(stdout).toMatch(/^ATTRIBUTE\s+VALUE\nUsername\s+alice\nGroups\s+\[devs system:authenticated\]\n$/);
    const review = JSON.parse((await alice('auth', 'whoami', '-o', 'json')).stdout);
    expect(review).toMatchObject({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', status: { userInfo: { username: 'alice', groups: ['devs', 'system:authenticated'] } } });
  });

  it.each([
    ['1.27', 'v1beta1'],
    ['1.33', 'v1'],
  ])('works with kubectl %s, which posts whoami to authentication.k8s.io/%s', async (version, whoamiVersion) => {
    const old = kubectlAs(server, `alice-${version}`, server.certFor('alice', ['devs']), kubectlBinary(version));
    const whoami = await old('auth', 'whoami', '-v=6');
    expect(whoami.stdout).toMatch(/^Username\s+alice$/m);
    expect(whoami.stderr).toMatch(new RegExp(`POST.*/apis/authentication\\.k8s\\.io/${whoamiVersion}/selfsubjectreviews.*201 Created`));
    expect((await old('auth', 'can-i', 'list', 'pods', '-n', NS)).stdout).toBe('yes\n');
    await expect(old('auth', 'can-i', 'delete', 'pods', '-n', NS)).rejects.toMatchObject({ code: 1, stdout: 'no\n' });
    expect((await old('auth', 'can-i', '--list', '-n', NS)).stdout).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
  });

  describe('the kube paths over HTTP', () => {
    const sar = (apiVersion: string, spec: object) => ({ apiVersion, kind: 'SubjectAccessReview', spec });
    const question = { user: 'alice', resourceAttributes: { namespace: NS, verb: 'list', resource: 'pods' } };

    it('answers in the apiVersion posted, managed fields included', async () => {
      const res = await server.admin.post(`${KUBE_AUTHZ}/subjectaccessreviews`, sar('authorization.k8s.io/v1', question), { headers: { 'User-Agent': 'kubectl/v1.32.4' } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: question, status: { allowed: true } });
      expect(res.body.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'kubectl', operation: 'Update', apiVersion: 'authorization.k8s.io/v1' })]);
      const local = await server.admin.post(`${KUBE_AUTHZ}/namespaces/${NS}/localsubjectaccessreviews`, {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'LocalSubjectAccessReview',
        spec: { user: 'alice', resourceAttributes: { verb: 'delete', resource: 'pods' } },
      });
      expect(local.status).toBe(201);
      expect(local.body).toMatchObject({ apiVersion: 'authorization.k8s.io/v1', metadata: { namespace: NS }, spec: { resourceAttributes: { namespace: NS } }, status: { allowed: false } });
      for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
        const whoami = await server.admin.post(`${KUBE_AUTHN}/${version}/selfsubjectreviews`, { apiVersion: `authentication.k8s.io/${version}`, kind: 'SelfSubjectReview' });
        expect(whoami.status).toBe(201);
        expect(whoami.body).toMatchObject({ kind: 'SelfSubjectReview', apiVersion: `authentication.k8s.io/${version}`, status: { userInfo: { username: 'test-admin' } } });
      }
    });

    it("words errors in the alias's group and version as kube does", async () => {
      const ours = await server.admin.post(`${KUBE_AUTHZ}/subjectaccessreviews`, sar('authorization.platform.io/v1', question));
      expect(ours.status).toBe(400);
      expect(ours.body).toMatchObject({
        kind: 'Status',
        reason: 'BadRequest',
        message: 'the API version in the data (authorization.platform.io/v1) does not match the expected API version (authorization.k8s.io/v1)',
      });
      const invalid = await server.admin.post(`${KUBE_AUTHZ}/subjectaccessreviews`, sar('authorization.k8s.io/v1', { resourceAttributes: { verb: 'get' } }));
      expect(invalid.status).toBe(422);
      expect(invalid.body).toMatchObject({
        reason: 'Invalid',
        message: '.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
        details: { group: 'authorization.k8s.io' },
      });
      const read = await server.admin.get(`${KUBE_AUTHZ}/selfsubjectaccessreviews`);
      expect(read.status).toBe(405);
      expect(read.body).toMatchObject({ reason: 'MethodNotAllowed' });
      const unknown = await server.admin.post(`${KUBE_AUTHZ}/tokenreviews`, {});
      expect(unknown.status).toBe(404);
    });

    it('authorizes the alias as the authorization.platform.io resource', async () => {
      const bob = server.certFor('bob');
      const refused = await server.anonymous.post(`${KUBE_AUTHZ}/subjectaccessreviews`, sar('authorization.k8s.io/v1', question), { as: bob });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        reason: 'Forbidden',
        message: 'subjectaccessreviews.authorization.platform.io is forbidden: User "bob" cannot create resource "subjectaccessreviews" in API group "authorization.platform.io" at the cluster scope',
      });
      // kube's system:auth-delegator, translated to platform.io, grants the alias too.
      expect((await server.admin.post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'bob-delegator' }, roleRef: roleRef('system:auth-delegator'), subjects: [user('bob')] })).status).toBe(201);
      await eventually(async () => {
        const allowed = await server.anonymous.post(`${KUBE_AUTHZ}/subjectaccessreviews`, sar('authorization.k8s.io/v1', question), { as: bob });
        expect(allowed.status).toBe(201);
      });
    });
  });
});

describe('kubectl auth with --kubectl-review-aliases=false', () => {
  let on: TestServer;
  let off: TestServer;

  beforeAll(async () => {
    [on, off] = await Promise.all([startTestServer(), startTestServer({ options: { kubectlReviewAliases: false } })]);
  });
  afterAll(async () => {
    await Promise.all([on?.close(), off?.close()]);
  });

  it('answers 404 at the kube paths, so kubectl auth fails as before', async () => {
    const res = await off.admin.post(`${KUBE_AUTHZ}/selfsubjectaccessreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: {} });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', code: 404 });
    const kubectl = kubectlFor(off);
    await expect(kubectl('auth', 'can-i', 'get', 'pods')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('Error from server (NotFound)') });
    await expect(kubectl('auth', 'whoami')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('the selfsubjectreviews API is not enabled in the cluster') });
    const ours = await off.admin.post('/apis/authorization.platform.io/v1/selfsubjectaccessreviews', { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } });
    expect(ours.status).toBe(201);
  });

  it('leaves discovery and OpenAPI unchanged: the aliases are in neither', async () => {
    // (/api differs only in the server address, the port of each server.)
    for (const path of ['/apis', '/api/v1', '/apis/authorization.platform.io/v1', '/apis/authentication.platform.io/v1']) {
      const [withAliases, without] = await Promise.all([on.admin.get(path), off.admin.get(path)]);
      expect(withAliases.status).toBe(200);
      expect(withAliases.body).toEqual(without.body);
    }
    expect(JSON.stringify((await on.admin.get('/apis')).body)).not.toContain('k8s.io');
    for (const path of ['/apis/authorization.k8s.io', '/apis/authorization.k8s.io/v1', '/apis/authentication.k8s.io/v1']) {
      expect((await on.admin.get(path)).status).toBe(404);
    }
    const openapi = (await on.admin.get('/openapi/v2', { headers: { Accept: 'application/json' } })).body;
    expect(Object.keys(openapi.paths).filter((p) => p.includes('k8s.io'))).toEqual([]);
    const [resourcesOn, resourcesOff] = await Promise.all([kubectlFor(on)('api-resources'), kubectlFor(off)('api-resources')]);
    expect(resourcesOn.stdout).toBe(resourcesOff.stdout);
    expect(resourcesOn.stdout).toMatch(/^selfsubjectaccessreviews\s+authorization\.platform\.io\/v1\s+false\s+SelfSubjectAccessReview$/m);
    expect(resourcesOn.stdout).not.toContain('k8s.io');
  });
});
