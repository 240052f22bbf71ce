import { startTestServer, TestServer } from '../support/test-server';

/**
 * Every RBAC validation rule, sent over HTTPS: the bad object must be refused with a 422
 * Invalid Status whose causes name the field and say why, as kube-apiserver does.
 */
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const GROUP = 'rbac.authorization.platform.io';
const ref = (kind: string, name = 'r') => ({ apiGroup: GROUP, kind, name });

interface Case {
  title: string;
  path: string;
  body: Record<string, unknown>;
  field: string;
  reason: string;
  message: string;
}

const cases: Case[] = [
  // Rule 1: names are path segments.
  { title: 'Role name with a slash', path: `${RBAC}/namespaces/default/roles`, body: { metadata: { name: 'a/b' }, rules: [] }, field: 'metadata.name', reason: 'FieldValueInvalid', message: "may not contain '/'" },
  { title: 'ClusterRole name ..', path: `${RBAC}/clusterroles`, body: { metadata: { name: '..' }, rules: [] }, field: 'metadata.name', reason: 'FieldValueInvalid', message: "may not be '..'" },
  { title: 'ClusterRoleBinding name with %', path: `${RBAC}/clusterrolebindings`, body: { metadata: { name: 'a%b' }, roleRef: ref('ClusterRole') }, field: 'metadata.name', reason: 'FieldValueInvalid', message: "may not contain '%'" },
  { title: 'RoleBinding without a name', path: `${RBAC}/namespaces/default/rolebindings`, body: { metadata: {}, roleRef: ref('Role') }, field: 'metadata.name', reason: 'FieldValueRequired', message: 'name or generateName is required' },
  // Rules need verbs.
  { title: 'rule without verbs', path: `${RBAC}/clusterroles`, body: { metadata: { name: 'v' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: [] }] }, field: 'rules[0].verbs', reason: 'FieldValueRequired', message: 'verbs must contain at least one value' },
  // A rule is for resources or non-resource URLs, not both.
  { title: 'rule with resources and nonResourceURLs', path: `${RBAC}/clusterroles`, body: { metadata: { name: 'both' }, rules: [{ apiGroups: [''], resources: ['pods'], nonResourceURLs: ['/x'], verbs: ['get'] }] }, field: 'rules[0].nonResourceURLs', reason: 'FieldValueInvalid', message: 'rules cannot apply to both regular resources and non-resource URLs' },
  { title: 'resource rule without apiGroups', path: `${RBAC}/clusterroles`, body: { metadata: { name: 'nogroup' }, rules: [{ resources: ['pods'], verbs: ['get'] }] }, field: 'rules[0].apiGroups', reason: 'FieldValueRequired', message: 'resource rules must supply at least one api group' },
  { title: 'resource rule without resources', path: `${RBAC}/clusterroles`, body: { metadata: { name: 'nores' }, rules: [{ apiGroups: [''], verbs: ['get'] }] }, field: 'rules[0].resources', reason: 'FieldValueRequired', message: 'resource rules must supply at least one resource' },
  // nonResourceURLs only in ClusterRoles; `*` only as the final segment.
  { title: 'Role with nonResourceURLs', path: `${RBAC}/namespaces/default/roles`, body: { metadata: { name: 'nr' }, rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] }, field: 'rules[0].nonResourceURLs', reason: 'FieldValueInvalid', message: 'namespaced rules cannot apply to non-resource URLs' },
  { title: 'nonResourceURL with an inner *', path: `${RBAC}/clusterroles`, body: { metadata: { name: 'star' }, rules: [{ nonResourceURLs: ['/api/*/x'], verbs: ['get'] }] }, field: 'rules[0].nonResourceURLs[0]', reason: 'FieldValueInvalid', message: '*' },
  // roleRef required, apiGroup/kind values, ClusterRoleBinding references only ClusterRoles.
  { title: 'RoleBinding without roleRef', path: `${RBAC}/namespaces/default/rolebindings`, body: { metadata: { name: 'noref' } }, field: 'roleRef.kind', reason: 'FieldValueNotSupported', message: 'supported values: "Role", "ClusterRole"' },
  { title: 'roleRef with a foreign apiGroup', path: `${RBAC}/namespaces/default/rolebindings`, body: { metadata: { name: 'grp' }, roleRef: { apiGroup: 'example.com', kind: 'Role', name: 'r' } }, field: 'roleRef.apiGroup', reason: 'FieldValueNotSupported', message: `supported values: "${GROUP}"` },
  { title: 'roleRef of an unknown kind', path: `${RBAC}/namespaces/default/rolebindings`, body: { metadata: { name: 'kind' }, roleRef: ref('Robot') }, field: 'roleRef.kind', reason: 'FieldValueNotSupported', message: 'supported values: "Role", "ClusterRole"' },
  { title: 'ClusterRoleBinding to a Role', path: `${RBAC}/clusterrolebindings`, body: { metadata: { name: 'crb-role' }, roleRef: ref('Role') }, field: 'roleRef.kind', reason: 'FieldValueNotSupported', message: 'supported values: "ClusterRole"' },
  { title: 'roleRef without a name', path: `${RBAC}/clusterrolebindings`, body: { metadata: { name: 'noname' }, roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: '' } }, field: 'roleRef.name', reason: 'FieldValueRequired', message: 'Required value' },
  // Subjects: kinds, apiGroup defaults and namespace rules.
  { title: 'subject of an unknown kind', path: `${RBAC}/clusterrolebindings`, body: { metadata: { name: 's1' }, roleRef: ref('ClusterRole'), subjects: [{ kind: 'Robot', name: 'r2' }] }, field: 'subjects[0].kind', reason: 'FieldValueNotSupported', message: '"ServiceAccount", "User", "Group"' },
  { title: 'subject without a name', path: `${RBAC}/clusterrolebindings`, body: { metadata: { name: 's2' }, roleRef: ref('ClusterRole'), subjects: [{ kind: 'User', name: '' }] }, field: 'subjects[0].name', reason: 'FieldValueRequired', message: 'Required value' },
  { title: 'ServiceAccount subject with an apiGroup', path: `${RBAC}/clusterrolebindings`, body: { metadata: { name: 's3' }, roleRef: ref('ClusterRole'), subjects: [{ kind: 'ServiceAccount', apiGroup: GROUP, name: 'sa', namespace: 'default' }] }, field: 'subjects[0].apiGroup', reason: 'FieldValueNotSupported', message: 'supported values: ""' },
  { title: 'ServiceAccount subject without namespace in a ClusterRoleBinding', path: `${RBAC}/clusterrolebindings`, body: { metadata: { name: 's4' }, roleRef: ref('ClusterRole'), subjects: [{ kind: 'ServiceAccount', name: 'sa' }] }, field: 'subjects[0].namespace', reason: 'FieldValueRequired', message: 'Required value' },
  { title: 'User subject with a foreign apiGroup', path: `${RBAC}/namespaces/default/rolebindings`, body: { metadata: { name: 's5' }, roleRef: ref('Role'), subjects: [{ kind: 'User', apiGroup: 'example.com', name: 'alice' }] }, field: 'subjects[0].apiGroup', reason: 'FieldValueNotSupported', message: `supported values: "${GROUP}"` },
  { title: 'Group subject with a foreign apiGroup', path: `${RBAC}/clusterrolebindings`, body: { metadata: { name: 's6' }, roleRef: ref('ClusterRole'), subjects: [{ kind: 'Group', apiGroup: 'v1', name: 'devs' }] }, field: 'subjects[0].apiGroup', reason: 'FieldValueNotSupported', message: `supported values: "${GROUP}"` },
  { title: 'ServiceAccount subject with a bad name', path: `${RBAC}/namespaces/default/rolebindings`, body: { metadata: { name: 's7' }, roleRef: ref('Role'), subjects: [{ kind: 'ServiceAccount', name: 'Not_Valid', namespace: 'default' }] }, field: 'subjects[0].name', reason: 'FieldValueInvalid', message: 'Not_Valid' },
  // Aggregation rule selectors.
  { title: 'aggregationRule without selectors', path: `${RBAC}/clusterroles`, body: { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [] } }, field: 'aggregationRule.clusterRoleSelectors', reason: 'FieldValueRequired', message: 'Required value' },
  { title: 'aggregation selector with a bad operator', path: `${RBAC}/clusterroles`, body: { metadata: { name: 'agg2' }, aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Near', values: ['b'] }] }] } }, field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator', reason: 'FieldValueInvalid', message: 'not a valid selector operator' },
  // Metadata rules shared by every kind.
  { title: 'a bad label key', path: `${RBAC}/clusterroles`, body: { metadata: { name: 'lbl', labels: { 'bad key!': 'x' } }, rules: [] }, field: 'metadata.labels', reason: 'FieldValueInvalid', message: "name part must consist of alphanumeric characters" },
];

describe('RBAC validation: 422 Invalid with causes', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each(cases.map((c) => [c.title, c] as const))('%s', async (_title, c) => {
    const res = await server.admin.post(c.path, c.body);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
    const cause = (res.body.details.causes as Array<{ field: string; reason: string; message: string }>).find((x) => x.field === c.field);
    expect(cause).toBeDefined();
    expect(cause!.reason).toBe(c.reason);
    expect(cause!.message).toContain(c.message);
    expect(res.body.message).toContain(`${c.field}: `);
    // Nothing was stored.
    const name = (c.body.metadata as { name?: string }).name;
    if (name && !/[/%]|^\.\.?$/.test(name)) expect((await server.admin.get(`${c.path}/${name}`)).status).toBe(404);
  });

  it('defaults subject apiGroups the way kube does', async () => {
    const res = await server.admin.post(`${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'defaults' },
      roleRef: ref('Role'),
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'builder', namespace: 'default' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.subjects).toEqual([
      { kind: 'User', apiGroup: GROUP, name: 'alice' },
      { kind: 'Group', apiGroup: GROUP, name: 'devs' },
      { kind: 'ServiceAccount', apiGroup: '', name: 'builder', namespace: 'default' },
    ]);
  });

  it('roleRef cannot change on update (PUT and patch)', async () => {
    const created = await server.admin.post(`${RBAC}/clusterrolebindings`, {
      metadata: { name: 'immutable' },
      roleRef: ref('ClusterRole', 'view'),
      subjects: [{ kind: 'User', name: 'bob' }],
    });
    expect(created.status).toBe(201);
    const put = await server.admin.put(`${RBAC}/clusterrolebindings/immutable`, { ...created.body, roleRef: ref('ClusterRole', 'edit') });
    expect(put.status).toBe(422);
    expect(put.body.details.causes).toEqual([
      expect.objectContaining({ field: 'roleRef', reason: 'FieldValueInvalid', message: expect.stringContaining('cannot change roleRef') }),
    ]);
    const patch = await server.admin.patch(`${RBAC}/clusterrolebindings/immutable`, { roleRef: { name: 'edit' } }, 'application/merge-patch+json');
    expect(patch.status).toBe(422);
    // Subjects may still change.
    const subjects = await server.admin.patch(
      `${RBAC}/clusterrolebindings/immutable`,
      { subjects: [{ kind: 'Group', name: 'ops' }] },
      'application/merge-patch+json',
    );
    expect(subjects.status).toBe(200);
    expect(subjects.body.roleRef.name).toBe('view');
  });

  it('reports every error of an object at once', async () => {
    const res = await server.admin.post(`${RBAC}/clusterrolebindings`, {
      metadata: { name: 'many' },
      roleRef: { apiGroup: 'x', kind: 'Role', name: '' },
      subjects: [{ kind: 'Robot', name: '' }],
    });
    expect(res.status).toBe(422);
    const fields = res.body.details.causes.map((c: { field: string }) => c.field);
    expect(fields).toEqual(expect.arrayContaining(['roleRef.apiGroup', 'roleRef.kind', 'roleRef.name', 'subjects[0].kind']));
    expect(res.body.message).toMatch(/^ClusterRoleBinding\.rbac\.authorization\.platform\.io "many" is invalid: \[/);
  });
});
