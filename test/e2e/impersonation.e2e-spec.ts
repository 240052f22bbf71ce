import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeatureGates } from '../../src/config/feature-gates';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';
import { eventually } from '../support/eventually';

/**
 * Impersonation with `--authorization-mode=RBAC` and `--feature-gates=ConstrainedImpersonation=false`
 * (kube's legacy filter): each impersonated part (user, group, extra, uid, service account)
 * needs `impersonate` permission on it; the request then runs as the impersonated identity,
 * which the self reviews report. The constrained modes are in constrained-impersonation.e2e-spec.ts.
 */
const AUTHZ = '/apis/authorization.platform.io/v1';
const AUTHN = '/apis/authentication.platform.io/v1';
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';

const IMPERSONATOR = { token: 'impersonator-token' };
const ALICE = { token: 'alice-token' };
const DEPUTY = { token: 'deputy-token' };

const roleRef = (kind: string, name: string) => ({ apiGroup: RBAC_GROUP, kind, name });
const user = (name: string) => ({ kind: 'User', apiGroup: RBAC_GROUP, name });

describe('legacy impersonation (--authorization-mode=RBAC, ConstrainedImpersonation off)', () => {
  let server: TestServer;
  let dir: string;
  const as = (headers: Record<string, string>, identity = IMPERSONATOR) => ({ as: identity, headers });
  const whoami = (headers: Record<string, string>, identity = IMPERSONATOR) =>
    server.anonymous.post(`${AUTHN}/selfsubjectreviews`, { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' }, as(headers, identity));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'impersonation-e2e-'));
    const tokens = writeTokenFile(dir, ['impersonator-token,impersonator,uid-imp', 'alice-token,alice,uid-alice', 'deputy-token,deputy,uid-dep']);
    server = await startTestServer({
      options: { authorizationModes: ['RBAC'], tokenAuthFile: tokens, featureGates: FeatureGates.from({ ConstrainedImpersonation: false }) },
    });
    const created = async (path: string, body: object) => expect((await server.admin.post(path, body)).status).toBe(201);
    await created('/api/v1/namespaces', { metadata: { name: 'ns1' } });
    await created(`${RBAC}/clusterroles`, {
      metadata: { name: 'impersonator' },
      rules: [
        { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['bob', 'system:anonymous'] },
        { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: ['devs', 'qa'] },
        { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'], resourceNames: ['builder'] },
        { apiGroups: ['authentication.platform.io'], resources: ['userextras/scopes'], verbs: ['impersonate'], resourceNames: ['view'] },
        { apiGroups: ['authentication.platform.io'], resources: ['userextras/__proto__', 'userextras/constructor'], verbs: ['impersonate'] },
        { apiGroups: ['authentication.platform.io'], resources: ['uids'], verbs: ['impersonate'], resourceNames: ['u-1'] },
      ],
    });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'impersonator' }, roleRef: roleRef('ClusterRole', 'impersonator'), subjects: [user('impersonator')] });
    // Grants only constrained impersonation would use.
    await created(`${RBAC}/clusterroles`, {
      metadata: { name: 'constrained-deputy' },
      rules: [
        { apiGroups: ['authentication.platform.io'], resources: ['users'], verbs: ['impersonate:user-info'], resourceNames: ['bob'] },
        { apiGroups: ['authentication.platform.io'], resources: ['selfsubjectreviews'], verbs: ['impersonate-on:user-info:create'] },
      ],
    });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'constrained-deputy' }, roleRef: roleRef('ClusterRole', 'constrained-deputy'), subjects: [user('deputy')] });
    await created(`${RBAC}/namespaces/ns1/roles`, { metadata: { name: 'role-reader' }, rules: [{ apiGroups: [RBAC_GROUP], resources: ['roles'], verbs: ['list'] }] });
    await created(`${RBAC}/namespaces/ns1/rolebindings`, { metadata: { name: 'bob-reads-roles' }, roleRef: roleRef('Role', 'role-reader'), subjects: [user('bob')] });
    // The RBAC index follows writes within a second.
    await eventually(async () => expect((await server.anonymous.get(`${RBAC}/namespaces/ns1/roles`, as({ 'Impersonate-User': 'bob' }))).status).toBe(200), 5000, 50);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the request as the impersonated user, who gets system:authenticated', async () => {
    const res = await whoami({ 'Impersonate-User': 'bob' });
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo).toEqual({ username: 'bob', groups: ['system:authenticated'] });
    const own = await whoami({});
    expect(own.body.status.userInfo).toEqual({ username: 'impersonator', uid: 'uid-imp', groups: ['system:authenticated'] });
  });

  it('takes groups, extras and a uid the caller may impersonate', async () => {
    const res = await whoami({ 'Impersonate-User': 'bob', 'Impersonate-Group': 'devs', 'Impersonate-Extra-Scopes': 'view', 'Impersonate-Uid': 'u-1' });
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo).toEqual({ username: 'bob', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['view'] } });
  });

  it('keeps extra keys named like Object members as ordinary keys', async () => {
    const res = await whoami({ 'Impersonate-User': 'bob', 'Impersonate-Extra-__proto__': 'p', 'Impersonate-Extra-Constructor': 'c' });
    expect(res.status).toBe(201);
    expect(Object.entries(res.body.status.userInfo.extra).sort()).toEqual([['__proto__', ['p']], ['constructor', ['c']]]);
  });

  it('reads each Impersonate-Group header line as one group', async () => {
    // node's https client sends an array value as repeated header lines.
    const repeated = ['devs', 'qa'] as unknown as string;
    const res = await whoami({ 'Impersonate-User': 'bob', 'Impersonate-Group': repeated });
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo.groups).toEqual(['devs', 'qa', 'system:authenticated']);
  });

  it('impersonates a service account with its groups', async () => {
    const res = await whoami({ 'Impersonate-User': 'system:serviceaccount:ns1:builder' });
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo).toEqual({
      username: 'system:serviceaccount:ns1:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
    });
  });

  it.each([
    [
      'a user',
      { 'Impersonate-User': 'carol' },
      'users "carol" is forbidden: User "impersonator" cannot impersonate resource "users" in API group "" at the cluster scope',
      { name: 'carol', kind: 'users' },
    ],
    [
      'a group',
      { 'Impersonate-User': 'bob', 'Impersonate-Group': 'ops' },
      'groups "ops" is forbidden: User "impersonator" cannot impersonate resource "groups" in API group "" at the cluster scope',
      { name: 'ops', kind: 'groups' },
    ],
    [
      'an extra',
      { 'Impersonate-User': 'bob', 'Impersonate-Extra-Scopes': 'admin' },
      'userextras.authentication.platform.io "admin" is forbidden: User "impersonator" cannot impersonate resource "userextras/scopes" in API group "authentication.platform.io" at the cluster scope',
      { name: 'admin', group: 'authentication.platform.io', kind: 'userextras' },
    ],
    [
      'a uid',
      { 'Impersonate-User': 'bob', 'Impersonate-Uid': 'u-2' },
      'uids.authentication.platform.io "u-2" is forbidden: User "impersonator" cannot impersonate resource "uids" in API group "authentication.platform.io" at the cluster scope',
      { name: 'u-2', group: 'authentication.platform.io', kind: 'uids' },
    ],
    [
      'a service account',
      { 'Impersonate-User': 'system:serviceaccount:ns1:deployer' },
      'serviceaccounts "deployer" is forbidden: User "impersonator" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"',
      { name: 'deployer', kind: 'serviceaccounts' },
    ],
  ])('refuses %s the caller may not impersonate (403)', async (_what, headers, message, details) => {
    const res = await whoami(headers);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });
  });

  it('refuses callers without any impersonate permission', async () => {
    const res = await whoami({ 'Impersonate-User': 'bob' }, ALICE);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('ignores the constrained verbs: only `impersonate` is asked', async () => {
    const res = await whoami({ 'Impersonate-User': 'bob' }, DEPUTY);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('users "bob" is forbidden: User "deputy" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('refuses groups, extras or a uid without a user (400)', async () => {
    const res = await whoami({ 'Impersonate-Group': 'devs' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ reason: 'BadRequest', message: 'requested [{Group  devs    }] without impersonating a user' });
  });

  it('authorizes the request as the impersonated identity', async () => {
    expect((await server.anonymous.get(`${RBAC}/namespaces/ns1/roles`, { as: IMPERSONATOR })).status).toBe(403);
    expect((await server.anonymous.get(`${RBAC}/namespaces/ns1/roles`, as({ 'Impersonate-User': 'bob' }))).status).toBe(200);
    const elsewhere = await server.anonymous.get(`${RBAC}/namespaces/default/roles`, as({ 'Impersonate-User': 'bob' }));
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.message).toBe(
      'roles.rbac.authorization.platform.io is forbidden: User "bob" cannot list resource "roles" in API group "rbac.authorization.platform.io" in the namespace "default"',
    );
  });

  it('makes self access and rules reviews answer about the impersonated user', async () => {
    const ssar = await server.anonymous.post(
      `${AUTHZ}/selfsubjectaccessreviews`,
      { spec: { resourceAttributes: { namespace: 'ns1', verb: 'list', group: RBAC_GROUP, resource: 'roles' } } },
      as({ 'Impersonate-User': 'bob' }),
    );
    expect(ssar.status).toBe(201);
    expect(ssar.body.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "bob-reads-roles/ns1" of Role "role-reader" to User "bob"' });
    const mine = await server.anonymous.post(
      `${AUTHZ}/selfsubjectaccessreviews`,
      { spec: { resourceAttributes: { namespace: 'ns1', verb: 'list', group: RBAC_GROUP, resource: 'roles' } } },
      { as: IMPERSONATOR },
    );
    expect(mine.body.status).toEqual({ allowed: false });
    const rules = await server.anonymous.post(`${AUTHZ}/selfsubjectrulesreviews`, { spec: { namespace: 'ns1' } }, as({ 'Impersonate-User': 'bob' }));
    expect(rules.body.status.resourceRules).toContainEqual({ verbs: ['list'], apiGroups: [RBAC_GROUP], resources: ['roles'] });
  });

  it('gives an impersonated system:anonymous the group system:unauthenticated', async () => {
    const version = await server.anonymous.get('/version', as({ 'Impersonate-User': 'system:anonymous' }));
    expect(version.status).toBe(200);
    const whoamiAnonymous = await whoami({ 'Impersonate-User': 'system:anonymous' });
    expect(whoamiAnonymous.status).toBe(403);
    expect(whoamiAnonymous.body.message).toBe(
      'selfsubjectreviews.authentication.platform.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.platform.io" at the cluster scope',
    );
  });
});
