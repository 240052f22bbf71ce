import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultAuditOptions } from '../../src/config/options';
import { loadJose } from '../../src/authentication/serviceaccount/jose';
import { eventually } from '../support/eventually';
import { Kubectl, kubectlAs } from '../support/kubectl';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * Constrained impersonation (the ConstrainedImpersonation gate, on by default) over HTTPS,
 * with `--authorization-mode=Node,RBAC`: each mode allowed and refused, the
 * `impersonate-on:<mode>:<verb>` check of the request itself, the fallback to the legacy
 * `impersonate` verb, the audit event's authenticationMetadata, the reviews, who-can, the
 * explanation and escalation checks reading the new verbs as plain verbs, and kubectl --as.
 */
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';
const AUTHN = 'authentication.platform.io';
const AUTHZ = '/apis/authorization.platform.io/v1';
const ACCESS = '/apis/access.platform.io/v1';
const WHOAMI = `/apis/${AUTHN}/v1/selfsubjectreviews`;
const ISSUER = 'https://issuer.example.test';
const AUDIENCE = 'api.example.test';
const NODE_NAME_EXTRA = 'authentication.platform.io/node-name';

const roleRef = (kind: string, name: string) => ({ apiGroup: RBAC_GROUP, kind, name });
const userSubject = (name: string) => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const serviceAccountSubject = (namespace: string, name: string) => ({ kind: 'ServiceAccount', namespace, name });

const POLICY = `
apiVersion: audit.platform.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/livez*", "/readyz*", "/healthz*"]
- level: Metadata
`;

describe('constrained impersonation (ConstrainedImpersonation on, --authorization-mode=Node,RBAC)', () => {
  let server: TestServer;
  let dir: string;
  let logPath: string;
  let keyPem: string;
  const identities = new Map<string, ReturnType<TestServer['certFor']>>();
  const id = (name: string) => {
    if (!identities.has(name)) identities.set(name, server.certFor(name));
    return identities.get(name)!;
  };
  const tokens: Record<string, string> = {};
  const as = (impersonator: string, headers: Record<string, string | string[]>) => ({
    as: tokens[impersonator] ? { token: tokens[impersonator] } : id(impersonator),
    headers: headers as Record<string, string>,
  });
  const whoami = (impersonator: string, headers: Record<string, string | string[]>) =>
    server.anonymous.post(WHOAMI, { apiVersion: `${AUTHN}/v1`, kind: 'SelfSubjectReview' }, as(impersonator, headers));
  const created = async (path: string, body: object) => {
    const res = await server.admin.post(path, body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const grant = async (name: string, rules: object[], subjects: object[], namespace?: string) => {
    const scope = namespace ? `${RBAC}/namespaces/${namespace}` : RBAC;
    await created(`${scope}/${namespace ? 'roles' : 'clusterroles'}`, { metadata: { name }, rules });
    await created(`${scope}/${namespace ? 'rolebindings' : 'clusterrolebindings'}`, { metadata: { name }, roleRef: roleRef(namespace ? 'Role' : 'ClusterRole', name), subjects });
  };

  /** A token of a service account bound to a node, as the service-account token issuer writes it. */
  async function nodeBoundToken(namespace: string, name: string, uid: string, node: { name: string; uid: string }): Promise<string> {
    const jose = await loadJose();
    const key = await jose.importPKCS8(keyPem, 'ES256');
    const now = Math.floor(Date.now() / 1000);
    const claims = { 'platform.io': { namespace, serviceaccount: { name, uid }, node } };
    return new jose.SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISSUER)
      .setSubject(`system:serviceaccount:${namespace}:${name}`)
      .setAudience([AUDIENCE])
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + 3600)
      .sign(key);
  }

  const events = (): any[] =>
    readFileSync(logPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  const completed = async (auditId: string): Promise<any> => {
    let event: any;
    await eventually(() => {
      event = events().find((e) => e.auditID === auditId && e.stage === 'ResponseComplete');
      expect(event).toBeDefined();
    });
    return event;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'constrained-impersonation-e2e-'));
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    writeFileSync(join(dir, 'sa.key'), keyPem);
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    logPath = join(dir, 'audit.log');
    server = await startTestServer({
      options: {
        authorizationModes: ['Node', 'RBAC'],
        audit: { ...defaultAuditOptions(), policyFile: join(dir, 'policy.yaml'), logPath },
        serviceAccounts: { issuers: [ISSUER], signingKeyFile: join(dir, 'sa.key'), keyFiles: [], apiAudiences: [AUDIENCE], maxTokenExpirationSeconds: 7200, lookup: true },
      },
    });
    for (const ns of ['ns1', 'ns2']) await created('/api/v1/namespaces', { metadata: { name: ns } });
    await created('/api/v1/namespaces/ns1/pods', { metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    const node1 = await created('/api/v1/nodes', { metadata: { name: 'node-1' } });
    await created('/api/v1/nodes', { metadata: { name: 'node-2' } });
    await created(`${RBAC}/namespaces/ns1/rolebindings`, { metadata: { name: 'bob-view' }, roleRef: roleRef('ClusterRole', 'view'), subjects: [userSubject('bob')] });

    // user-info: bob (with group devs and one extra) for listing and getting pods in ns1, and for discovery and /version.
    await grant(
      'deputy-identity',
      [
        { apiGroups: [AUTHN], resources: ['users'], resourceNames: ['bob'], verbs: ['impersonate:user-info'] },
        { apiGroups: [AUTHN], resources: ['groups'], resourceNames: ['devs'], verbs: ['impersonate:user-info'] },
        { apiGroups: [AUTHN], resources: ['userextras/example.com/team'], resourceNames: ['blue'], verbs: ['impersonate:user-info'] },
        { nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/version'], verbs: ['impersonate-on:user-info:get'] },
      ],
      [userSubject('deputy')],
    );
    await grant('deputy-pods', [{ apiGroups: [''], resources: ['pods'], verbs: ['impersonate-on:user-info:list', 'impersonate-on:user-info:get'] }], [userSubject('deputy')], 'ns1');

    // serviceaccount: builder in ns1, granted in its namespace, for listing pods there and asking who it is.
    await grant('sa-deputy', [{ apiGroups: [AUTHN], resources: ['serviceaccounts'], resourceNames: ['builder'], verbs: ['impersonate:serviceaccount'] }], [userSubject('sa-deputy')], 'ns1');
    await grant('sa-deputy-pods', [{ apiGroups: [''], resources: ['pods'], verbs: ['impersonate-on:serviceaccount:list'] }], [userSubject('sa-deputy')], 'ns1');
    await grant('sa-deputy-whoami', [{ apiGroups: [AUTHN], resources: ['selfsubjectreviews'], verbs: ['impersonate-on:serviceaccount:create'] }], [userSubject('sa-deputy')]);

    // arbitrary-node: node-1 only, to get nodes and ask who it is.
    await grant(
      'node-deputy',
      [
        { apiGroups: [AUTHN], resources: ['nodes'], resourceNames: ['node-1'], verbs: ['impersonate:arbitrary-node'] },
        { apiGroups: [''], resources: ['nodes'], verbs: ['impersonate-on:arbitrary-node:get'] },
        { apiGroups: [AUTHN], resources: ['selfsubjectreviews'], verbs: ['impersonate-on:arbitrary-node:create'] },
      ],
      [userSubject('node-deputy')],
    );

    // associated-node: node agents (service accounts whose tokens name node-1) for the node they run on.
    const agents = { agent: '', 'named-agent': '' };
    for (const name of Object.keys(agents) as Array<keyof typeof agents>) {
      const account = await created('/api/v1/namespaces/kube-system/serviceaccounts', { metadata: { name } });
      tokens[name] = await nodeBoundToken('kube-system', name, account.metadata.uid, { name: 'node-1', uid: node1.metadata.uid });
    }
    await grant(
      'node-agent',
      [
        { apiGroups: [AUTHN], resources: ['nodes'], verbs: ['impersonate:associated-node'] },
        { apiGroups: [''], resources: ['nodes'], verbs: ['impersonate-on:associated-node:get'] },
      ],
      [serviceAccountSubject('kube-system', 'agent')],
    );
    // Names do not narrow associated-node: it is asked about any node ("*").
    await grant(
      'named-node-agent',
      [
        { apiGroups: [AUTHN], resources: ['nodes'], resourceNames: ['node-1'], verbs: ['impersonate:associated-node'] },
        { apiGroups: [''], resources: ['nodes'], verbs: ['impersonate-on:associated-node:get'] },
      ],
      [serviceAccountSubject('kube-system', 'named-agent')],
    );

    // legacy: the `impersonate` verb, which keeps working.
    await grant('legacy-impersonator', [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'] }], [userSubject('legacy-impersonator')]);

    // The RBAC index follows writes within a second.
    await eventually(async () => expect((await server.anonymous.get('/api/v1/namespaces/ns1/pods', as('legacy-impersonator', { 'Impersonate-User': 'bob' }))).status).toBe(200));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('user-info', () => {
    it('runs the request as the user when both the identity and the action are granted, and audits the constraint', async () => {
      const res = await server.anonymous.get('/api/v1/namespaces/ns1/pods', as('deputy', { 'Impersonate-User': 'bob' }));
      expect(res.status).toBe(200);
      expect(res.body.items.map((p: any) => p.metadata.name)).toEqual(['web']);
      const event = await completed(res.headers['audit-id'] as string);
      expect(event).toMatchObject({
        verb: 'list',
        user: { username: 'deputy' },
        impersonatedUser: { username: 'bob', groups: ['system:authenticated'] },
        authenticationMetadata: { impersonationConstraint: 'impersonate:user-info' },
        responseStatus: { code: 200 },
      });
      // In kube's field order: right after impersonatedUser.
      expect(Object.keys(event).slice(Object.keys(event).indexOf('impersonatedUser'), Object.keys(event).indexOf('impersonatedUser') + 2)).toEqual([
        'impersonatedUser',
        'authenticationMetadata',
      ]);
      const received = events().find((e) => e.auditID === res.headers['audit-id'] && e.stage === 'RequestReceived');
      expect(received.authenticationMetadata).toBeUndefined();
    });

    it('takes granted groups and extras', async () => {
      const get = await server.anonymous.get('/api/v1/namespaces/ns1/pods/web', as('deputy', { 'Impersonate-User': 'bob', 'Impersonate-Group': 'devs', 'Impersonate-Extra-Example.com%2fteam': 'blue' }));
      expect(get.status).toBe(200);
      const event = await completed(get.headers['audit-id'] as string);
      expect(event.impersonatedUser).toEqual({ username: 'bob', groups: ['devs', 'system:authenticated'], extra: { 'example.com/team': ['blue'] } });
    });

    it.each([
      ['delete', 'DELETE', '/api/v1/namespaces/ns1/pods/web', 'pods "web" is forbidden: User "deputy" cannot impersonate-on:user-info:delete resource "pods" in API group "" in the namespace "ns1"', { name: 'web', kind: 'pods' }],
      ['list elsewhere', 'GET', '/api/v1/namespaces/ns2/pods', 'pods is forbidden: User "deputy" cannot impersonate-on:user-info:list resource "pods" in API group "" in the namespace "ns2"', { kind: 'pods' }],
      ['watch', 'GET', '/api/v1/namespaces/ns1/pods?watch=true', 'pods is forbidden: User "deputy" cannot impersonate-on:user-info:watch resource "pods" in API group "" in the namespace "ns1"', { kind: 'pods' }],
      [
        'create',
        'POST',
        WHOAMI,
        'selfsubjectreviews.authentication.platform.io is forbidden: User "deputy" cannot impersonate-on:user-info:create resource "selfsubjectreviews" in API group "authentication.platform.io" at the cluster scope',
        { group: AUTHN, kind: 'selfsubjectreviews' },
      ],
    ])('refuses an action not granted by impersonate-on (%s)', async (_what, method, path, message, details) => {
      const opts = as('deputy', { 'Impersonate-User': 'bob' });
      const res =
        method === 'DELETE' ? await server.anonymous.delete(path, opts) : method === 'POST' ? await server.anonymous.post(path, { apiVersion: `${AUTHN}/v1`, kind: 'SelfSubjectReview' }, opts) : await server.anonymous.get(path, opts);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });
    });

    it('asks impersonate-on about non-resource requests too', async () => {
      expect((await server.anonymous.get('/version', as('deputy', { 'Impersonate-User': 'bob' }))).status).toBe(200);
      const metrics = await server.anonymous.get('/metrics', as('deputy', { 'Impersonate-User': 'bob' }));
      expect(metrics.status).toBe(403);
      expect(metrics.body.message).toBe('forbidden: User "deputy" cannot impersonate-on:user-info:get path "/metrics"');
    });

    it.each([
      ['a user', { 'Impersonate-User': 'carol' }, 'users.authentication.platform.io "carol" is forbidden: User "deputy" cannot impersonate:user-info resource "users" in API group "authentication.platform.io" at the cluster scope'],
      [
        'a group',
        { 'Impersonate-User': 'bob', 'Impersonate-Group': 'ops' },
        'groups.authentication.platform.io "ops" is forbidden: User "deputy" cannot impersonate:user-info resource "groups" in API group "authentication.platform.io" at the cluster scope',
      ],
      [
        'an extra',
        { 'Impersonate-User': 'bob', 'Impersonate-Extra-Example.com%2fteam': 'red' },
        'userextras.authentication.platform.io "red" is forbidden: User "deputy" cannot impersonate:user-info resource "userextras/example.com/team" in API group "authentication.platform.io" at the cluster scope',
      ],
      [
        'system:masters',
        { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' },
        'groups.authentication.platform.io "system:masters" is forbidden: User "deputy" cannot impersonate:user-info resource "groups" in API group "authentication.platform.io" at the cluster scope: impersonating the system:masters group is not allowed',
      ],
      [
        'an extra key that is no domain-prefixed path',
        { 'Impersonate-User': 'bob', 'Impersonate-Extra-Scopes': 'view' },
        'userextras.authentication.platform.io is forbidden: User "deputy" cannot impersonate:user-info resource "userextras" in API group "authentication.platform.io" at the cluster scope: impersonating an invalid key in extra is not allowed: extra.key: Invalid value: "scopes": must be a domain-prefixed path (such as "acme.io/foo")',
      ],
    ])('refuses %s the caller may not impersonate (403)', async (_what, headers, message) => {
      const res = await server.anonymous.get('/api/v1/namespaces/ns1/pods', as('deputy', headers));
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403, message });
    });

    it('answers groups without a user with 400, in kube 1.36 words', async () => {
      const res = await server.anonymous.get('/api/v1/namespaces/ns1/pods', as('deputy', { 'Impersonate-Group': 'devs' }));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        reason: 'BadRequest',
        message: 'requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"devs"}, Extra:map[string][]string(nil)} without impersonating a user name',
      });
    });
  });

  describe('serviceaccount', () => {
    it('impersonates a service account granted in its namespace, with its groups', async () => {
      const list = await server.anonymous.get('/api/v1/namespaces/ns1/pods', as('sa-deputy', { 'Impersonate-User': 'system:serviceaccount:ns1:builder' }));
      // The service account itself may not list pods: impersonation passed, authorization of the request did not.
      expect(list.status).toBe(403);
      expect(list.body.message).toBe('pods is forbidden: User "system:serviceaccount:ns1:builder" cannot list resource "pods" in API group "" in the namespace "ns1"');
      const event = await completed(list.headers['audit-id'] as string);
      expect(event.authenticationMetadata).toEqual({ impersonationConstraint: 'impersonate:serviceaccount' });
      const me = await whoami('sa-deputy', { 'Impersonate-User': 'system:serviceaccount:ns1:builder' });
      expect(me.status).toBe(201);
      expect(me.body.status.userInfo).toEqual({
        username: 'system:serviceaccount:ns1:builder',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
      });
    });

    it('refuses another service account, and groups with one (legacy only)', async () => {
      const other = await server.anonymous.get('/api/v1/namespaces/ns1/pods', as('sa-deputy', { 'Impersonate-User': 'system:serviceaccount:ns1:deployer' }));
      expect(other.status).toBe(403);
      expect(other.body).toMatchObject({
        message:
          'serviceaccounts.authentication.platform.io "deployer" is forbidden: User "sa-deputy" cannot impersonate:serviceaccount resource "serviceaccounts" in API group "authentication.platform.io" in the namespace "ns1"',
        details: { name: 'deployer', group: AUTHN, kind: 'serviceaccounts' },
      });
      // With a group the serviceaccount mode does not apply; the legacy verb is asked.
      const withGroup = await server.anonymous.get('/api/v1/namespaces/ns1/pods', as('sa-deputy', { 'Impersonate-User': 'system:serviceaccount:ns1:builder', 'Impersonate-Group': 'g' }));
      expect(withGroup.status).toBe(403);
      expect(withGroup.body.message).toBe('serviceaccounts "builder" is forbidden: User "sa-deputy" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"');
    });
  });

  describe('arbitrary-node', () => {
    it('impersonates a granted node, in group system:nodes', async () => {
      const get = await server.anonymous.get('/api/v1/nodes/node-1', as('node-deputy', { 'Impersonate-User': 'system:node:node-1' }));
      expect(get.status).toBe(200);
      expect((await completed(get.headers['audit-id'] as string)).authenticationMetadata).toEqual({ impersonationConstraint: 'impersonate:arbitrary-node' });
      const me = await whoami('node-deputy', { 'Impersonate-User': 'system:node:node-1' });
      expect(me.body.status.userInfo).toEqual({ username: 'system:node:node-1', groups: ['system:nodes', 'system:authenticated'] });
    });

    it('refuses another node, and actions not granted', async () => {
      const other = await server.anonymous.get('/api/v1/nodes/node-2', as('node-deputy', { 'Impersonate-User': 'system:node:node-2' }));
      expect(other.status).toBe(403);
      expect(other.body.message).toBe(
        'nodes.authentication.platform.io "node-2" is forbidden: User "node-deputy" cannot impersonate:arbitrary-node resource "nodes" in API group "authentication.platform.io" at the cluster scope',
      );
      const list = await server.anonymous.get('/api/v1/nodes', as('node-deputy', { 'Impersonate-User': 'system:node:node-1' }));
      expect(list.status).toBe(403);
      expect(list.body.message).toBe('nodes is forbidden: User "node-deputy" cannot impersonate-on:arbitrary-node:list resource "nodes" in API group "" at the cluster scope');
    });
  });

  describe('associated-node', () => {
    it('lets a service account whose token names a node impersonate that node', async () => {
      const get = await server.anonymous.get('/api/v1/nodes/node-1', as('agent', { 'Impersonate-User': 'system:node:node-1' }));
      expect(get.status).toBe(200);
      const event = await completed(get.headers['audit-id'] as string);
      expect(event).toMatchObject({
        user: { username: 'system:serviceaccount:kube-system:agent', extra: { [NODE_NAME_EXTRA]: ['node-1'] } },
        impersonatedUser: { username: 'system:node:node-1', groups: ['system:nodes', 'system:authenticated'] },
        authenticationMetadata: { impersonationConstraint: 'impersonate:associated-node' },
      });
    });

    it('refuses another node: that one is an arbitrary node, whose action check comes first', async () => {
      const res = await server.anonymous.get('/api/v1/nodes/node-2', as('agent', { 'Impersonate-User': 'system:node:node-2' }));
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(
        'nodes "node-2" is forbidden: User "system:serviceaccount:kube-system:agent" cannot impersonate-on:arbitrary-node:get resource "nodes" in API group "" at the cluster scope',
      );
    });

    it('asks about any node ("*"), so a rule limited to names does not grant it', async () => {
      const res = await server.anonymous.get('/api/v1/nodes/node-1', as('named-agent', { 'Impersonate-User': 'system:node:node-1' }));
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        message:
          'nodes.authentication.platform.io "*" is forbidden: User "system:serviceaccount:kube-system:named-agent" cannot impersonate:associated-node resource "nodes" in API group "authentication.platform.io" at the cluster scope',
        details: { name: '*', group: AUTHN, kind: 'nodes' },
      });
    });
  });

  describe('the legacy impersonate verb', () => {
    it('keeps working, and its audit event has no authenticationMetadata', async () => {
      const res = await server.anonymous.get('/api/v1/namespaces/ns1/pods', as('legacy-impersonator', { 'Impersonate-User': 'bob' }));
      expect(res.status).toBe(200);
      const event = await completed(res.headers['audit-id'] as string);
      expect(event.impersonatedUser).toEqual({ username: 'bob', groups: ['system:authenticated'] });
      expect(event).not.toHaveProperty('authenticationMetadata');
    });

    it('answers a caller with no permission at all with the first refusal, the user-info action check', async () => {
      const res = await server.anonymous.get('/api/v1/namespaces/ns1/pods', as('tester', { 'Impersonate-User': 'bob' }));
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('pods is forbidden: User "tester" cannot impersonate-on:user-info:list resource "pods" in API group "" in the namespace "ns1"');
    });
  });

  describe('the consumers of decisions read the new verbs as verbs', () => {
    const sar = (user: string, resourceAttributes: object) => server.admin.post(`${AUTHZ}/subjectaccessreviews`, { spec: { user, resourceAttributes } });

    it('SubjectAccessReview answers impersonate:<mode> and impersonate-on:<mode>:<verb>', async () => {
      expect((await sar('deputy', { verb: 'impersonate:user-info', group: AUTHN, resource: 'users', name: 'bob' })).body.status).toEqual({
        allowed: true,
        reason: 'RBAC: allowed by ClusterRoleBinding "deputy-identity" of ClusterRole "deputy-identity" to User "deputy"',
      });
      expect((await sar('deputy', { verb: 'impersonate:user-info', group: AUTHN, resource: 'users', name: 'carol' })).body.status).toEqual({ allowed: false });
      expect((await sar('deputy', { namespace: 'ns1', verb: 'impersonate-on:user-info:list', resource: 'pods' })).body.status.allowed).toBe(true);
      expect((await sar('deputy', { namespace: 'ns1', verb: 'impersonate-on:user-info:delete', resource: 'pods' })).body.status).toEqual({ allowed: false });
      // `*` grants every verb, these too; a verb with `*` inside is just another verb to RBAC.
      await grant('any-impersonation', [{ apiGroups: [AUTHN], resources: ['nodes'], verbs: ['*'] }, { apiGroups: [''], resources: ['pods'], verbs: ['impersonate-on:user-info:*'] }], [userSubject('star')]);
      await eventually(async () => expect((await sar('star', { verb: 'impersonate:arbitrary-node', group: AUTHN, resource: 'nodes', name: 'node-9' })).body.status.allowed).toBe(true));
      expect((await sar('star', { namespace: 'ns1', verb: 'impersonate-on:user-info:list', resource: 'pods' })).body.status).toEqual({ allowed: false });
    });

    it('who-can (ResourceAccessReview) lists who may impersonate', async () => {
      const res = await server.admin.post(`${ACCESS}/resourceaccessreviews`, {
        spec: { resourceAttributes: { verb: 'impersonate:user-info', group: AUTHN, resource: 'users', name: 'bob' } },
      });
      expect(res.status).toBe(201);
      expect(res.body.status.users).toEqual(['deputy']);
      // cluster-admin's `*` grants the new verbs too.
      expect(res.body.status.grants.map((g: any) => g.binding.name)).toEqual(['cluster-admin', 'deputy-identity']);
      expect(res.body.status.grants[1]).toEqual({
        binding: { kind: 'ClusterRoleBinding', name: 'deputy-identity' },
        role: { kind: 'ClusterRole', name: 'deputy-identity' },
        subjects: [userSubject('deputy')],
      });
      const legacy = await server.admin.post(`${ACCESS}/resourceaccessreviews`, { spec: { resourceAttributes: { verb: 'impersonate', resource: 'users', name: 'bob' } } });
      expect(legacy.body.status.users).toEqual(['legacy-impersonator']);
    });

    it('AccessExplanation names the granting rule, and the near miss of an action not granted', async () => {
      const explain = (verb: string) => server.admin.post(`${ACCESS}/accessexplanations`, { spec: { user: 'deputy', resourceAttributes: { namespace: 'ns1', verb, resource: 'pods' } } });
      const granted = await explain('impersonate-on:user-info:get');
      expect(granted.body.status).toMatchObject({
        allowed: true,
        grants: [{ binding: { kind: 'RoleBinding', namespace: 'ns1', name: 'deputy-pods' }, role: { kind: 'Role', name: 'deputy-pods' }, ruleIndex: 0 }],
      });
      const refused = await explain('impersonate-on:user-info:delete');
      expect(refused.body.status.allowed).toBe(false);
      expect(refused.body.status.nearMisses[0]).toMatchObject({
        binding: { kind: 'RoleBinding', namespace: 'ns1', name: 'deputy-pods' },
        missing: ['verb "impersonate-on:user-info:delete" is not in verbs ["impersonate-on:user-info:list", "impersonate-on:user-info:get"]'],
      });
    });

    it('escalation checks cover the new verbs like any verb: the legacy one does not cover them', async () => {
      await grant('role-writer', [{ apiGroups: [RBAC_GROUP], resources: ['roles'], verbs: ['create'] }], [userSubject('role-writer')], 'ns1');
      await grant('role-writer-impersonates', [{ apiGroups: [AUTHN], resources: ['users'], verbs: ['impersonate'] }], [userSubject('role-writer')]);
      const role = (name: string, verbs: string[]) => ({ metadata: { name }, rules: [{ apiGroups: [AUTHN], resources: ['users'], verbs }] });
      await eventually(async () => expect((await server.anonymous.post(`${RBAC}/namespaces/ns1/roles`, role('legacy-only', ['impersonate']), { as: id('role-writer') })).status).toBe(201));
      const escalating = await server.anonymous.post(`${RBAC}/namespaces/ns1/roles`, role('constrained', ['impersonate:user-info']), { as: id('role-writer') });
      expect(escalating.status).toBe(403);
      expect(escalating.body.message).toContain('is attempting to grant RBAC permissions not currently held:');
      expect(escalating.body.message).toContain('Verbs:["impersonate:user-info"]');
      // cluster-admin's `*` holds them.
      expect((await server.admin.post(`${RBAC}/namespaces/ns1/roles`, role('constrained', ['impersonate:user-info', 'impersonate-on:user-info:get']))).status).toBe(201);
    });

    it('ships the default roles as kube 1.36 does: edit keeps the legacy verb on service accounts, no role names a constrained verb', async () => {
      const roles = (await server.admin.get(`${RBAC}/clusterroles`)).body.items;
      const edit = roles.find((r: any) => r.metadata.name === 'system:aggregate-to-edit');
      expect(edit.rules).toContainEqual({ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] });
      const constrainedVerbs = roles
        .filter((r: any) => r.metadata.labels?.['kubernetes.io/bootstrapping'] === 'rbac-defaults')
        .flatMap((r: any) => (r.rules ?? []).flatMap((rule: any) => rule.verbs))
        .filter((verb: string) => verb.startsWith('impersonate:') || verb.startsWith('impersonate-on:'));
      expect(constrainedVerbs).toEqual([]);
    });
  });

  describe('kubectl --as', () => {
    let deputy: Kubectl;
    beforeAll(() => {
      deputy = kubectlAs(server, 'deputy', id('deputy'));
    });

    it('runs the command as the user when the verbs are granted', async () => {
      const { stdout } = await deputy('get', 'pods', '-n', 'ns1', '--as', 'bob');
      expect(stdout).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n/);
      expect(stdout).toMatch(/^web\s/m);
      expect((await deputy('get', 'pod', 'web', '-n', 'ns1', '--as', 'bob', '-o', 'jsonpath={.metadata.name}')).stdout).toBe('web');
    });

    it('is refused an action or a user not granted', async () => {
      await expect(deputy('delete', 'pod', 'web', '-n', 'ns1', '--as', 'bob')).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(
          'Error from server (Forbidden): pods "web" is forbidden: User "deputy" cannot impersonate-on:user-info:delete resource "pods" in API group "" in the namespace "ns1"',
        ),
      });
      await expect(deputy('get', 'pods', '-n', 'ns1', '--as', 'carol')).rejects.toMatchObject({
        stderr: expect.stringContaining('users.authentication.platform.io "carol" is forbidden: User "deputy" cannot impersonate:user-info resource "users" in API group "authentication.platform.io" at the cluster scope'),
      });
      expect((await server.admin.get('/api/v1/namespaces/ns1/pods/web')).status).toBe(200);
    });

    it('can-i answers the new verbs', async () => {
      expect((await deputy('auth', 'can-i', 'impersonate-on:user-info:list', 'pods', '-n', 'ns1')).stdout).toBe('yes\n');
      await expect(deputy('auth', 'can-i', 'impersonate-on:user-info:delete', 'pods', '-n', 'ns1')).rejects.toMatchObject({ code: 1, stdout: 'no\n' });
    });
  });
});
