import fc from 'fast-check';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * ResourceAccessReview agrees with SubjectAccessReview on a randomised world of a few
 * hundred bindings (wildcards, resourceNames, subresources, Roles and ClusterRoles,
 * RoleBindings and ClusterRoleBindings, service accounts, malformed subjects, missing
 * roles): for any action, every listed user (without groups) and every listed group is
 * allowed by a SubjectAccessReview, and every other subject named in any binding is not.
 */
const ACCESS = '/apis/access.platform.io/v1';
const AUTHZ = '/apis/authorization.platform.io/v1';
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';

const SEED = Number(process.env.ACCESS_AGREEMENT_SEED ?? 20261124);
const NAMESPACES = ['ns-a', 'ns-b', 'ns-c'];
const USERS = Array.from({ length: 12 }, (_, i) => `user-${i}`);
const GROUPS = Array.from({ length: 6 }, (_, i) => `group-${i}`);
const SERVICE_ACCOUNTS = ['sa-0', 'sa-1', 'sa-2'];
const VERBS = ['get', 'list', 'delete', 'create'];
const RESOURCES = ['pods', 'secrets', 'configmaps'];
const API_GROUPS = ['', 'apps'];

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);
const someOf = <T>(values: readonly T[], wildcard?: T) =>
  fc.uniqueArray(wildcard === undefined ? pick(values) : fc.oneof({ weight: 6, arbitrary: pick(values) }, { weight: 1, arbitrary: fc.constant(wildcard) }), {
    minLength: 1,
    maxLength: 2,
  });

const ruleArb = fc.record({
  verbs: someOf(VERBS, '*'),
  apiGroups: someOf(API_GROUPS, '*'),
  resources: fc.uniqueArray(fc.constantFrom(...RESOURCES, 'pods/log', '*', '*/log'), { minLength: 1, maxLength: 2 }),
  resourceNames: fc.option(fc.constant(['obj-1']), { nil: undefined, freq: 4 }),
});

const subjectArb = fc.oneof(
  { weight: 5, arbitrary: pick(USERS).map((name) => ({ kind: 'User', apiGroup: RBAC_GROUP, name })) },
  { weight: 3, arbitrary: pick(GROUPS).map((name) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name })) },
  { weight: 2, arbitrary: fc.tuple(pick(SERVICE_ACCOUNTS), fc.option(pick(NAMESPACES), { nil: undefined })).map(([name, namespace]) => ({ kind: 'ServiceAccount', name, ...(namespace ? { namespace } : {}) })) },
  // Malformed: grants nothing.
  { weight: 1, arbitrary: fc.tuple(pick(USERS), pick(NAMESPACES)).map(([name, namespace]) => ({ kind: 'User', apiGroup: RBAC_GROUP, name, namespace })) },
);

const worldArb = fc.record({
  clusterRoles: fc.array(fc.array(ruleArb, { minLength: 1, maxLength: 3 }), { minLength: 8, maxLength: 8 }),
  roles: fc.array(fc.tuple(pick(NAMESPACES), fc.array(ruleArb, { minLength: 1, maxLength: 3 })), { minLength: 12, maxLength: 12 }),
  bindings: fc.array(
    fc.record({
      namespace: fc.option(pick(NAMESPACES), { nil: undefined, freq: 4 }),
      // Indexes into the roles; 99 is a role that does not exist.
      role: fc.oneof(fc.nat(7).map((i) => ({ kind: 'ClusterRole', i })), fc.nat(11).map((i) => ({ kind: 'Role', i })), fc.constant({ kind: 'ClusterRole', i: 99 })),
      subjects: fc.array(subjectArb, { minLength: 1, maxLength: 3 }),
    }),
    { minLength: 250, maxLength: 250 },
  ),
});

const actionArb = fc.record({
  verb: pick(VERBS),
  group: pick(API_GROUPS),
  resource: pick(RESOURCES),
  subresource: fc.option(fc.constant('log'), { nil: undefined, freq: 4 }),
  name: fc.option(fc.constantFrom('obj-1', 'obj-2'), { nil: undefined }),
  namespace: fc.option(pick(NAMESPACES), { nil: undefined, freq: 5 }),
});

describe('ResourceAccessReview agrees with SubjectAccessReview (--authorization-mode=RBAC)', () => {
  let server: TestServer;
  /** Every user name and group named by any binding of the world (default bindings included). */
  const namedUsers = new Set<string>();
  const namedGroups = new Set<string>();

  beforeAll(async () => {
    server = await startTestServer({ options: { authorizationModes: ['RBAC'] } });
    const admin = server.admin;
    const world = fc.sample(worldArb, { seed: SEED, numRuns: 1 })[0];
    const writes: Array<[string, object]> = [];
    for (const ns of NAMESPACES) writes.push(['/api/v1/namespaces', { metadata: { name: ns } }]);
    world.clusterRoles.forEach((rules, i) => writes.push([`${RBAC}/clusterroles`, { metadata: { name: `cr-${i}` }, rules }]));
    world.roles.forEach(([ns, rules], i) => writes.push([`${RBAC}/namespaces/${ns}/roles`, { metadata: { name: `role-${i}` }, rules }]));
    world.bindings.forEach((b, i) => {
      const roleName = b.role.i === 99 ? 'missing' : b.role.kind === 'Role' ? `role-${b.role.i}` : `cr-${b.role.i}`;
      // A Role is only usable from its own namespace: bind it there most of the time.
      const namespace = b.role.kind === 'Role' && b.role.i !== 99 ? (i % 5 ? world.roles[b.role.i][0] : b.namespace ?? 'ns-a') : b.namespace;
      const roleRef = { apiGroup: RBAC_GROUP, kind: b.role.kind, name: roleName };
      if (namespace) writes.push([`${RBAC}/namespaces/${namespace}/rolebindings`, { metadata: { name: `rb-${i}` }, roleRef, subjects: b.subjects }]);
      else if (b.role.kind === 'ClusterRole') writes.push([`${RBAC}/clusterrolebindings`, { metadata: { name: `crb-${i}` }, roleRef, subjects: b.subjects }]);
    });
    // Namespaces first; then the rest a few at a time.
    for (const [path, body] of writes.slice(0, NAMESPACES.length)) expect((await admin.post(path, body)).status).toBe(201);
    const rest = writes.slice(NAMESPACES.length);
    for (let i = 0; i < rest.length; i += 8) {
      const results = await Promise.all(rest.slice(i, i + 8).map(([path, body]) => admin.post(path, body)));
      for (const r of results) expect(r.status).toBe(201);
    }
    const bindings = [...(await admin.get(`${RBAC}/rolebindings`)).body.items, ...(await admin.get(`${RBAC}/clusterrolebindings`)).body.items];
    expect(bindings.length).toBeGreaterThan(200);
    for (const b of bindings) {
      for (const s of b.subjects ?? []) {
        if (s.kind === 'User') namedUsers.add(s.name);
        if (s.kind === 'Group') namedGroups.add(s.name);
        if (s.kind === 'ServiceAccount') namedUsers.add(`system:serviceaccount:${s.namespace || b.metadata.namespace || 'ns-a'}:${s.name}`);
      }
    }
    // The index applies changes in revision order: once a binding written last grants, all do.
    expect((await admin.post(`${RBAC}/clusterroles`, { metadata: { name: 'sentinel' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }] })).status).toBe(201);
    const sentinel = { kind: 'User', apiGroup: RBAC_GROUP, name: 'sentinel' };
    expect((await admin.post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'sentinel' }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'sentinel' }, subjects: [sentinel] })).status).toBe(201);
    namedUsers.add('sentinel');
    await eventually(async () => expect(await allowed('sentinel', [], { verb: 'get', resource: 'nodes' })).toBe(true));
  }, 240_000);
  afterAll(async () => {
    await server?.close();
  });

  const allowed = async (user: string, groups: string[], attrs: object) => {
    const res = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, {
      apiVersion: 'authorization.platform.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user, groups, resourceAttributes: attrs },
    });
    expect(res.status).toBe(201);
    return res.body.status.allowed as boolean;
  };

  it('lists exactly the subjects a SubjectAccessReview allows, for random actions', async () => {
    await fc.assert(
      fc.asyncProperty(actionArb, async (action) => {
        const attrs = Object.fromEntries(Object.entries(action).filter(([, v]) => v !== undefined));
        const res = await server.admin.post(`${ACCESS}/resourceaccessreviews`, { apiVersion: 'access.platform.io/v1', kind: 'ResourceAccessReview', spec: { resourceAttributes: attrs } });
        expect(res.status).toBe(201);
        const { users, groups, incomplete } = res.body.status as { users: string[]; groups: string[]; incomplete: boolean };
        expect(incomplete).toBe(false);
        expect(users).toEqual([...new Set(users)].sort());
        expect(groups).toEqual([...new Set(groups)].sort());
        expect(groups).toContain('system:masters');
        for (const user of new Set([...users, ...namedUsers])) {
          expect({ user, attrs, allowed: await allowed(user, [], attrs) }).toEqual({ user, attrs, allowed: users.includes(user) });
        }
        for (const group of new Set([...groups, ...namedGroups])) {
          expect({ group, attrs, allowed: await allowed('', [group], attrs) }).toEqual({ group, attrs, allowed: groups.includes(group) });
        }
      }),
      { numRuns: 20, seed: SEED },
    );
  }, 300_000);
});
