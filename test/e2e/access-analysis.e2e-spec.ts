import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

/**
 * access.platform.io/v1 over HTTPS with `--authorization-mode=Node,RBAC` (the default): who
 * may do something (ResourceAccessReview, LocalResourceAccessReview), what a subject may do
 * (SubjectRulesReview), why a decision came out so (AccessExplanation), each through the
 * request pipeline of every kind: permission, validation, other verbs, dry run, YAML.
 */
const ACCESS = '/apis/access.platform.io/v1';
const AUTHZ = '/apis/authorization.platform.io/v1';
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';

const ALICE = { token: 'alice-token' };
const AUDITOR = { token: 'auditor-token' };
const TEAM_LEAD = { token: 'lead-token' };

const subject = (kind: string, name: string, namespace?: string) => ({ kind, apiGroup: kind === 'ServiceAccount' ? '' : RBAC_GROUP, name, ...(namespace ? { namespace } : {}) });
const roleRef = (kind: string, name: string) => ({ apiGroup: RBAC_GROUP, kind, name });

const rar = (spec: object) => ({ apiVersion: 'access.platform.io/v1', kind: 'ResourceAccessReview', spec });
const lrar = (spec: object) => ({ apiVersion: 'access.platform.io/v1', kind: 'LocalResourceAccessReview', spec });
const srr = (spec: object) => ({ apiVersion: 'access.platform.io/v1', kind: 'SubjectRulesReview', spec });
const explanation = (spec: object) => ({ apiVersion: 'access.platform.io/v1', kind: 'AccessExplanation', spec });

describe('access analysis (access.platform.io/v1)', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'access-e2e-'));
    const tokens = writeTokenFile(dir, ['alice-token,alice,uid-alice,"devs"', 'auditor-token,auditor,uid-auditor', 'lead-token,lead,uid-lead']);
    server = await startTestServer({ options: { tokenAuthFile: tokens } });
    const admin = server.admin;
    const created = async (path: string, body: object) => expect((await admin.post(path, body)).status).toBe(201);
    for (const ns of ['prod', 'dev']) await created('/api/v1/namespaces', { metadata: { name: ns } });
    await created(`${RBAC}/clusterroles`, {
      metadata: { name: 'secret-deleter' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['delete', 'get'] }],
    });
    await created(`${RBAC}/namespaces/prod/roles`, {
      metadata: { name: 'pod-reader' },
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
        { apiGroups: [''], resources: ['pods/log'], verbs: ['get'], resourceNames: ['web-1'] },
      ],
    });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'ops-secrets' }, roleRef: roleRef('ClusterRole', 'secret-deleter'), subjects: [subject('Group', 'ops')] });
    await created(`${RBAC}/namespaces/prod/rolebindings`, {
      metadata: { name: 'prod-secrets' },
      roleRef: roleRef('ClusterRole', 'secret-deleter'),
      subjects: [subject('User', 'bob'), subject('ServiceAccount', 'deployer'), subject('User', 'mallory', 'prod')],
    });
    await created(`${RBAC}/namespaces/dev/rolebindings`, { metadata: { name: 'dev-secrets' }, roleRef: roleRef('ClusterRole', 'secret-deleter'), subjects: [subject('User', 'alice')] });
    await created(`${RBAC}/namespaces/prod/rolebindings`, { metadata: { name: 'read-pods' }, roleRef: roleRef('Role', 'pod-reader'), subjects: [subject('Group', 'devs')] });
    await created(`${RBAC}/namespaces/prod/rolebindings`, { metadata: { name: 'broken' }, roleRef: roleRef('Role', 'missing'), subjects: [subject('User', 'alice')] });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'auditor' }, roleRef: roleRef('ClusterRole', 'access-reviewer'), subjects: [subject('User', 'auditor')] });
    await created(`${RBAC}/clusterroles`, {
      metadata: { name: 'local-access-reviewer' },
      rules: [{ apiGroups: ['access.platform.io'], resources: ['localresourceaccessreviews'], verbs: ['create'] }],
    });
    await created(`${RBAC}/namespaces/dev/rolebindings`, { metadata: { name: 'lead-reviews' }, roleRef: roleRef('ClusterRole', 'local-access-reviewer'), subjects: [subject('User', 'lead')] });
    // The RBAC index follows writes within a second: wait until the last binding applies.
    await eventually(async () => {
      expect((await admin.post(`${ACCESS}/namespaces/dev/localresourceaccessreviews`, lrar({ resourceAttributes: { verb: 'get', resource: 'pods' } }), { as: TEAM_LEAD })).status).toBe(201);
    });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('in discovery and on the wire', () => {
    it('is a served group with four create-only kinds and the read-only bindingusages', async () => {
      const group = await server.admin.get(ACCESS);
      expect(group.status).toBe(200);
      // Other kinds of the group (access requests) are listed too; their own tests check them.
      expect(group.body.resources).toEqual(
        expect.arrayContaining([
        { name: 'accessexplanations', singularName: 'accessexplanation', namespaced: false, kind: 'AccessExplanation', verbs: ['create'] },
        { name: 'bindingusages', singularName: 'bindingusage', namespaced: false, kind: 'BindingUsage', verbs: ['get', 'list'] },
        { name: 'localresourceaccessreviews', singularName: 'localresourceaccessreview', namespaced: true, kind: 'LocalResourceAccessReview', verbs: ['create'] },
        { name: 'policychangereviews', singularName: 'policychangereview', namespaced: false, kind: 'PolicyChangeReview', verbs: ['create'] },
        { name: 'resourceaccessreviews', singularName: 'resourceaccessreview', namespaced: false, kind: 'ResourceAccessReview', verbs: ['create'] },
        { name: 'subjectrulesreviews', singularName: 'subjectrulesreview', namespaced: false, kind: 'SubjectRulesReview', verbs: ['create'] },
        ]),
      );
      const apis = await server.admin.get('/apis');
      expect(apis.body.groups.map((g: { name: string }) => g.name)).toContain('access.platform.io');
    });

    it('answers every other verb with 405', async () => {
      for (const res of [
        await server.admin.get(`${ACCESS}/resourceaccessreviews`),
        await server.admin.get(`${ACCESS}/subjectrulesreviews?watch=1`),
        await server.admin.delete(`${ACCESS}/accessexplanations`),
        await server.admin.put(`${ACCESS}/resourceaccessreviews`, rar({})),
        await server.admin.get(`${ACCESS}/namespaces/dev/localresourceaccessreviews`),
      ]) {
        expect(res.status).toBe(405);
        expect(res.body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
      }
    });

    it('stores nothing, answers a dry run the same, and speaks YAML', async () => {
      const question = rar({ resourceAttributes: { verb: 'delete', resource: 'secrets', namespace: 'prod' } });
      const real = await server.admin.post(`${ACCESS}/resourceaccessreviews`, question);
      const dry = await server.admin.post(`${ACCESS}/resourceaccessreviews?dryRun=All`, question);
      expect(real.status).toBe(201);
      expect(dry.status).toBe(201);
      expect(dry.body.status).toEqual(real.body.status);
      expect(real.body.metadata.name).toBeUndefined();
      expect(real.body.metadata.uid).toBeUndefined();
      const yaml = await server.admin.request('POST', `${ACCESS}/resourceaccessreviews`, {
        raw: toYaml(question),
        contentType: 'application/yaml',
        headers: { Accept: 'application/yaml' },
      });
      expect(yaml.status).toBe(201);
      expect(yaml.headers['content-type']).toMatch(/^application\/yaml/);
      expect(parseYaml(yaml.text).status).toEqual(real.body.status);
    });

    it('decodes like any kind: unknown fields fail with fieldValidation=Strict', async () => {
      const res = await server.admin.post(`${ACCESS}/resourceaccessreviews?fieldValidation=Strict`, rar({ resourceAttributes: { verb: 'get', resource: 'pods', colour: 'red' } }));
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('unknown field "spec.resourceAttributes.colour"');
    });
  });

  describe('permission', () => {
    it('needs create on each resource: 403 without it, as any request', async () => {
      for (const [path, body] of [
        [`${ACCESS}/resourceaccessreviews`, rar({ resourceAttributes: { verb: 'get', resource: 'pods' } })],
        [`${ACCESS}/subjectrulesreviews`, srr({ user: 'bob' })],
        [`${ACCESS}/accessexplanations`, explanation({ user: 'bob', resourceAttributes: { verb: 'get', resource: 'pods' } })],
        [`${ACCESS}/namespaces/prod/localresourceaccessreviews`, lrar({ resourceAttributes: { verb: 'get', resource: 'pods' } })],
      ] as const) {
        const res = await server.anonymous.post(path, body, { as: ALICE });
        expect(res.status).toBe(403);
        const resource = path.split('/').pop();
        expect(res.body.message).toMatch(new RegExp(`^${resource}\\.access\\.platform\\.io is forbidden: User "alice" cannot create resource "${resource}" in API group "access.platform.io"`));
      }
    });

    it('is granted by the default access-reviewer ClusterRole, and per namespace by a RoleBinding', async () => {
      expect((await server.anonymous.post(`${ACCESS}/resourceaccessreviews`, rar({ resourceAttributes: { verb: 'get', resource: 'pods' } }), { as: AUDITOR })).status).toBe(201);
      expect((await server.anonymous.post(`${ACCESS}/subjectrulesreviews`, srr({ user: 'bob' }), { as: AUDITOR })).status).toBe(201);
      expect((await server.anonymous.post(`${ACCESS}/accessexplanations`, explanation({ user: 'bob', nonResourceAttributes: { verb: 'get', path: '/x' } }), { as: AUDITOR })).status).toBe(201);
      const inDev = await server.anonymous.post(`${ACCESS}/namespaces/dev/localresourceaccessreviews`, lrar({ resourceAttributes: { verb: 'get', resource: 'pods' } }), { as: TEAM_LEAD });
      expect(inDev.status).toBe(201);
      const inProd = await server.anonymous.post(`${ACCESS}/namespaces/prod/localresourceaccessreviews`, lrar({ resourceAttributes: { verb: 'get', resource: 'pods' } }), { as: TEAM_LEAD });
      expect(inProd.status).toBe(403);
      const role = await server.admin.get(`${RBAC}/clusterroles/access-reviewer`);
      expect(role.body.metadata.labels).toEqual({ 'platform.io/bootstrapping': 'rbac-defaults' });
      expect(role.body.aggregationRule).toBeUndefined();
      expect(role.body.rules).toEqual([
        { verbs: ['create'], apiGroups: ['access.platform.io'], resources: ['resourceaccessreviews', 'localresourceaccessreviews', 'subjectrulesreviews', 'accessexplanations'] },
        { verbs: ['get', 'list'], apiGroups: ['access.platform.io'], resources: ['bindingusages'] },
        { verbs: ['create'], apiGroups: ['access.platform.io'], resources: ['policychangereviews'] },
        { verbs: ['get', 'list'], apiGroups: ['access.platform.io'], resources: ['ruleusages', 'accessdenials', 'accessfindings'] },
        { verbs: ['create'], apiGroups: ['access.platform.io'], resources: ['accesssuggestions'] },
        { verbs: ['create'], apiGroups: ['access.platform.io'], resources: ['escalationpathreviews'] },
        { verbs: ['get', 'list', 'watch'], apiGroups: ['access.platform.io'], resources: ['accessguardrails'] },
        { verbs: ['create'], apiGroups: ['access.platform.io'], resources: ['accessmatrixreviews'] },
        { verbs: ['get', 'list', 'watch'], apiGroups: ['access.platform.io'], resources: ['accesschanges'] },
      ]);
    });
  });

  describe('ResourceAccessReview', () => {
    it('lists who may act in a namespace: cluster-wide grants, that namespace\'s RoleBindings, service accounts by user name', async () => {
      const res = await server.admin.post(`${ACCESS}/resourceaccessreviews`, rar({ resourceAttributes: { verb: 'delete', resource: 'secrets', namespace: 'prod' } }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ apiVersion: 'access.platform.io/v1', kind: 'ResourceAccessReview', spec: { resourceAttributes: { verb: 'delete', resource: 'secrets', namespace: 'prod' } } });
      const { status } = res.body;
      // The namespace controller (a default binding) deletes everything in a namespace; the
      // tokens controller deletes service-account token Secrets.
      expect(status.users).toEqual(['bob', 'system:controller:namespace-controller', 'system:controller:tokens-controller', 'system:serviceaccount:prod:deployer']);
      expect(status.groups).toEqual(['ops', 'system:masters']);
      expect(status.grants).toEqual([
        { binding: { kind: 'ClusterRoleBinding', name: 'cluster-admin' }, role: { kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [subject('Group', 'system:masters')] },
        { binding: { kind: 'ClusterRoleBinding', name: 'ops-secrets' }, role: { kind: 'ClusterRole', name: 'secret-deleter' }, subjects: [subject('Group', 'ops')] },
        {
          binding: { kind: 'ClusterRoleBinding', name: 'system:controller:namespace-controller' },
          role: { kind: 'ClusterRole', name: 'system:controller:namespace-controller' },
          subjects: [subject('User', 'system:controller:namespace-controller')],
        },
        {
          binding: { kind: 'ClusterRoleBinding', name: 'system:controller:tokens-controller' },
          role: { kind: 'ClusterRole', name: 'system:controller:tokens-controller' },
          subjects: [subject('User', 'system:controller:tokens-controller')],
        },
        {
          binding: { kind: 'RoleBinding', namespace: 'prod', name: 'prod-secrets' },
          role: { kind: 'ClusterRole', name: 'secret-deleter' },
          subjects: [subject('User', 'bob'), subject('ServiceAccount', 'deployer')],
        },
      ]);
      // The default chain has the Node authorizer, whose subjects cannot be listed.
      expect(status.incomplete).toBe(true);
      expect(status.evaluationError).toBe('authorizer node (Node) cannot enumerate the nodes (group system:nodes) it allows');
    });

    it('reads an empty namespace as "in every namespace": only cluster-wide grants count', async () => {
      const res = await server.admin.post(`${ACCESS}/resourceaccessreviews`, rar({ resourceAttributes: { verb: 'delete', resource: 'secrets' } }));
      expect(res.body.status.users).toEqual(['system:controller:namespace-controller', 'system:controller:tokens-controller']);
      expect(res.body.status.groups).toEqual(['ops', 'system:masters']);
    });

    it('follows resourceNames and subresources as the RBAC authorizer does', async () => {
      const ask = async (attrs: object) => (await server.admin.post(`${ACCESS}/resourceaccessreviews`, rar({ resourceAttributes: { namespace: 'prod', ...attrs } }))).body.status.groups;
      expect(await ask({ verb: 'get', resource: 'pods', subresource: 'log', name: 'web-1' })).toEqual(['devs', 'system:masters']);
      expect(await ask({ verb: 'get', resource: 'pods', subresource: 'log', name: 'web-2' })).toEqual(['system:masters']);
      expect(await ask({ verb: 'list', resource: 'pods' })).toEqual(['devs', 'system:masters']);
      expect(await ask({ verb: 'delete', resource: 'pods' })).toEqual(['system:masters']);
    });

    it('answers non-resource questions from ClusterRoleBindings', async () => {
      const res = await server.admin.post(`${ACCESS}/resourceaccessreviews`, rar({ nonResourceAttributes: { verb: 'get', path: '/metrics' } }));
      expect(res.body.status.groups).toEqual(['system:masters', 'system:monitoring']);
    });

    it('refuses a bad question with 422 and causes', async () => {
      const res = await server.admin.post(`${ACCESS}/resourceaccessreviews`, rar({}));
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        reason: 'Invalid',
        details: {
          group: 'access.platform.io',
          causes: [{ reason: 'FieldValueInvalid', field: 'spec.resourceAttributes', message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified' }],
        },
      });
      const both = await server.admin.post(`${ACCESS}/resourceaccessreviews`, rar({ resourceAttributes: {}, nonResourceAttributes: {} }));
      expect(both.status).toBe(422);
      expect(both.body.details.causes[0].field).toBe('spec.nonResourceAttributes');
    });
  });

  describe('LocalResourceAccessReview', () => {
    it('defaults the namespace to the request\'s and answers for it', async () => {
      const res = await server.admin.post(`${ACCESS}/namespaces/prod/localresourceaccessreviews`, lrar({ resourceAttributes: { verb: 'delete', resource: 'secrets' } }));
      expect(res.status).toBe(201);
      expect(res.body.metadata.namespace).toBe('prod');
      expect(res.body.spec.resourceAttributes.namespace).toBe('prod');
      expect(res.body.status.users).toEqual(['bob', 'system:controller:namespace-controller', 'system:controller:tokens-controller', 'system:serviceaccount:prod:deployer']);
    });

    it('refuses another namespace and non-resource questions with 422', async () => {
      const other = await server.admin.post(`${ACCESS}/namespaces/prod/localresourceaccessreviews`, lrar({ resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'dev' } }));
      expect(other.status).toBe(422);
      expect(other.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.resourceAttributes.namespace', message: 'Invalid value: "dev": must match metadata.namespace' }]);
      const nonResource = await server.admin.post(`${ACCESS}/namespaces/prod/localresourceaccessreviews`, lrar({ nonResourceAttributes: { verb: 'get', path: '/x' } }));
      expect(nonResource.status).toBe(422);
      expect(nonResource.body.details.causes[0]).toMatchObject({ field: 'spec.nonResourceAttributes', message: expect.stringContaining('disallowed on this kind of request') });
    });
  });

  describe('SubjectRulesReview', () => {
    it('lists a subject\'s rules in a namespace, and only cluster-wide ones without a namespace', async () => {
      const inProd = await server.admin.post(`${ACCESS}/subjectrulesreviews`, srr({ user: 'bob', namespace: 'prod' }));
      expect(inProd.status).toBe(201);
      expect(inProd.body.spec).toEqual({ user: 'bob', namespace: 'prod' });
      expect(inProd.body.status.resourceRules).toEqual([{ verbs: ['delete', 'get'], apiGroups: [''], resources: ['secrets'] }]);
      expect(inProd.body.status.incomplete).toBe(false);
      const clusterWide = await server.admin.post(`${ACCESS}/subjectrulesreviews`, srr({ user: 'bob' }));
      expect(clusterWide.body.status.resourceRules).toEqual([]);
      const group = await server.admin.post(`${ACCESS}/subjectrulesreviews`, srr({ groups: ['ops'] }));
      expect(group.body.status.resourceRules).toEqual([{ verbs: ['delete', 'get'], apiGroups: [''], resources: ['secrets'] }]);
    });

    it('is incomplete for a node, whose rules the Node authorizer cannot list', async () => {
      const res = await server.admin.post(`${ACCESS}/subjectrulesreviews`, srr({ user: 'system:node:n1', groups: ['system:nodes'], namespace: 'prod' }));
      expect(res.body.status).toMatchObject({ incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' });
    });

    it('refuses a review without a subject with 422', async () => {
      const res = await server.admin.post(`${ACCESS}/subjectrulesreviews`, srr({ namespace: 'prod' }));
      expect(res.status).toBe(422);
      expect(res.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.user', message: 'Invalid value: "": at least one of user or group must be specified' }]);
    });
  });

  describe('AccessExplanation', () => {
    const explain = async (spec: object) => {
      const res = await server.admin.post(`${ACCESS}/accessexplanations`, explanation(spec));
      expect(res.status).toBe(201);
      return res.body.status;
    };
    const sar = async (spec: object) =>
      (await server.admin.post(`${AUTHZ}/subjectaccessreviews`, { apiVersion: 'authorization.platform.io/v1', kind: 'SubjectAccessReview', spec })).body.status;

    it('answers as a SubjectAccessReview does, with each authorizer\'s decision and every granting rule', async () => {
      const spec = { user: 'bob', groups: ['ops'], resourceAttributes: { verb: 'delete', resource: 'secrets', namespace: 'prod' } };
      const status = await explain(spec);
      const review = await sar(spec);
      expect({ allowed: status.allowed, reason: status.reason }).toEqual({ allowed: review.allowed, reason: review.reason });
      expect(status.allowed).toBe(true);
      expect(status.decisions).toEqual([
        { authorizer: { type: 'Privileged', name: 'system:masters' }, decision: 'NoOpinion' },
        { authorizer: { type: 'Guardrail', name: 'guardrail' }, decision: 'NoOpinion' },
        { authorizer: { type: 'Node', name: 'node' }, decision: 'NoOpinion' },
        { authorizer: { type: 'RBAC', name: 'rbac' }, decision: 'Allow', reason: review.reason },
      ]);
      expect(status.grants).toEqual([
        {
          binding: { kind: 'ClusterRoleBinding', name: 'ops-secrets' },
          role: { kind: 'ClusterRole', name: 'secret-deleter' },
          ruleIndex: 0,
          rule: { apiGroups: [''], resources: ['secrets'], verbs: ['delete', 'get'] },
        },
        {
          binding: { kind: 'RoleBinding', namespace: 'prod', name: 'prod-secrets' },
          role: { kind: 'ClusterRole', name: 'secret-deleter' },
          ruleIndex: 0,
          rule: { apiGroups: [''], resources: ['secrets'], verbs: ['delete', 'get'] },
        },
      ]);
      expect(status.nearMisses).toBeUndefined();
    });

    it('shows near misses, fewest missing first, and bindings that cannot be used', async () => {
      const spec = { user: 'alice', groups: ['devs'], resourceAttributes: { verb: 'delete', resource: 'secrets', namespace: 'prod' } };
      const status = await explain(spec);
      const review = await sar(spec);
      expect(status.allowed).toBe(false);
      expect(review.allowed).toBe(false);
      expect(status.reason).toBe(review.reason);
      expect(status.evaluationError).toBe(review.evaluationError);
      expect(status.grants).toEqual([]);
      expect(status.nearMisses[0]).toEqual({
        binding: { kind: 'RoleBinding', namespace: 'dev', name: 'dev-secrets' },
        role: { kind: 'ClusterRole', name: 'secret-deleter' },
        ruleIndex: 0,
        rule: { apiGroups: [''], resources: ['secrets'], verbs: ['delete', 'get'] },
        missing: ['RoleBinding "dev-secrets" grants only in namespace "dev", not in namespace "prod"'],
      });
      expect(status.nearMisses[1]).toMatchObject({
        binding: { kind: 'RoleBinding', namespace: 'prod', name: 'read-pods' },
        missing: ['verb "delete" is not in verbs ["get", "list"]', 'resource "secrets" is not in resources ["pods"]'],
      });
      const counts = status.nearMisses.map((m: { missing: string[] }) => m.missing.length);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      expect(status.unusableBindings).toEqual([
        { binding: { kind: 'RoleBinding', namespace: 'prod', name: 'broken' }, role: { kind: 'Role', name: 'missing' }, reason: 'role.rbac.authorization.platform.io "missing" not found' },
      ]);
    });

    it('names a malformed subject that would grant as unusable', async () => {
      const status = await explain({ user: 'mallory', resourceAttributes: { verb: 'delete', resource: 'secrets', namespace: 'prod' } });
      expect(status.allowed).toBe(false);
      expect(status.unusableBindings).toEqual([
        {
          binding: { kind: 'RoleBinding', namespace: 'prod', name: 'prod-secrets' },
          role: { kind: 'ClusterRole', name: 'secret-deleter' },
          reason: 'User subject "mallory" may not have a namespace, has "prod"',
        },
      ]);
    });

    it('refuses a bad question with 422 and causes', async () => {
      const res = await server.admin.post(`${ACCESS}/accessexplanations`, explanation({ resourceAttributes: { verb: 'get', resource: 'pods' } }));
      expect(res.status).toBe(422);
      expect(res.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.user', message: 'Invalid value: "": at least one of user or group must be specified' }]);
    });
  });
});
