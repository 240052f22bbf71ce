import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

/**
 * PolicyChangeReview over HTTPS: what a proposed set of RBAC objects would grant and take
 * away (creates, replacements, deletions, aggregation, time windows), whether the caller
 * could make it, assertions with counterexamples, and bad input as 422/400 Status.
 */
const ACCESS = '/apis/access.platform.io/v1';
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';
const API = `${RBAC_GROUP}/v1`;

const AUDITOR = { token: 'auditor-token' };
const ALICE = { token: 'alice-token' };

const subject = (kind: string, name: string, namespace?: string) => ({ kind, ...(kind === 'ServiceAccount' ? {} : { apiGroup: RBAC_GROUP }), name, ...(namespace ? { namespace } : {}) });
const roleRef = (kind: string, name: string) => ({ apiGroup: RBAC_GROUP, kind, name });
const review = (spec: object) => ({ apiVersion: 'access.platform.io/v1', kind: 'PolicyChangeReview', spec });
const roleBinding = (namespace: string, name: string, ref: object, subjects: object[], annotations?: Record<string, string>) => ({
  apiVersion: API,
  kind: 'RoleBinding',
  metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
  roleRef: ref,
  subjects,
});
const clusterRole = (name: string, rules: object[], labels?: Record<string, string>) => ({ apiVersion: API, kind: 'ClusterRole', metadata: { name, ...(labels ? { labels } : {}) }, rules });

describe('PolicyChangeReview (access.platform.io/v1)', () => {
  let server: TestServer;
  let dir: string;
  const ask = (spec: object, as?: { token: string }, query = '') => server.admin.post(`${ACCESS}/policychangereviews${query}`, review(spec), as ? { as } : {});

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'policy-change-e2e-'));
    const tokens = writeTokenFile(dir, ['auditor-token,auditor,uid-auditor', 'alice-token,alice,uid-alice,"devs"']);
    server = await startTestServer({ options: { tokenAuthFile: tokens } });
    const admin = server.admin;
    const created = async (path: string, body: object) => expect((await admin.post(path, body)).status).toBe(201);
    for (const ns of ['prod', 'dev']) await created('/api/v1/namespaces', { metadata: { name: ns } });
    await created(`${RBAC}/clusterroles`, { metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }] });
    await created(`${RBAC}/namespaces/prod/rolebindings`, { metadata: { name: 'bob-secrets' }, roleRef: roleRef('ClusterRole', 'secret-reader'), subjects: [subject('User', 'bob')] });
    await created(`${RBAC}/namespaces/dev/rolebindings`, { metadata: { name: 'carol-view' }, roleRef: roleRef('ClusterRole', 'view'), subjects: [subject('User', 'carol')] });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'auditor' }, roleRef: roleRef('ClusterRole', 'access-reviewer'), subjects: [subject('User', 'auditor')] });
    await eventually(async () => expect((await ask({}, AUDITOR)).status).toBe(201));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is served as a create-only kind, in discovery and OpenAPI', async () => {
    const group = await server.admin.get(ACCESS);
    expect(group.body.resources).toContainEqual({ name: 'policychangereviews', singularName: 'policychangereview', namespaced: false, kind: 'PolicyChangeReview', verbs: ['create'] });
    expect((await server.admin.get(`${ACCESS}/policychangereviews`)).status).toBe(405);
    const openapi = await server.admin.get('/openapi/v3/apis/access.platform.io/v1');
    expect(JSON.stringify(openapi.body)).toContain('PolicyChangeReview answers what a proposed set of RBAC changes would grant');
  });

  it('answers what a new binding grants, stores nothing, and answers a dry run the same', async () => {
    const binding = roleBinding('prod', 'alice-secrets', roleRef('ClusterRole', 'secret-reader'), [subject('User', 'alice')]);
    const res = await ask({ changes: [{ object: binding }] });
    expect(res.status).toBe(201);
    const via = [{ binding: { kind: 'RoleBinding', namespace: 'prod', name: 'alice-secrets' }, role: { kind: 'ClusterRole', name: 'secret-reader' } }];
    expect(res.body.status).toEqual({
      gained: [
        { subject: subject('User', 'alice'), namespace: 'prod', verb: 'get', apiGroup: '', resource: 'secrets', via },
        { subject: subject('User', 'alice'), namespace: 'prod', verb: 'list', apiGroup: '', resource: 'secrets', via },
      ],
      lost: [],
      incomplete: false,
    });
    const dry = await ask({ changes: [{ object: binding }] }, undefined, '?dryRun=All');
    expect(dry.body.status).toEqual(res.body.status);
    expect((await server.admin.get(`${RBAC}/namespaces/prod/rolebindings/alice-secrets`)).status).toBe(404);
  });

  it('answers replacements and deletions: a narrowed role loses, a deleted binding loses all', async () => {
    const narrowed = clusterRole('secret-reader', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['tls'] }]);
    const res = await ask({ changes: [{ object: narrowed }] });
    expect(res.status).toBe(201);
    // bob keeps get on the secret "tls" and loses every other get, and every list.
    expect(res.body.status.gained).toEqual([]);
    expect(res.body.status.lost).toEqual([
      expect.objectContaining({ subject: subject('User', 'bob'), namespace: 'prod', verb: 'get', resource: 'secrets', except: { resourceNames: ['tls'] } }),
      expect.objectContaining({ subject: subject('User', 'bob'), namespace: 'prod', verb: 'list', resource: 'secrets' }),
    ]);
    expect(res.body.status.lost[1].except).toBeUndefined();
    const deleted = await ask({ changes: [{ delete: true, object: { apiVersion: API, kind: 'RoleBinding', metadata: { name: 'bob-secrets', namespace: 'prod' } } }] });
    expect(deleted.body.status.gained).toEqual([]);
    expect(deleted.body.status.lost.map((e: { verb: string }) => e.verb)).toEqual(['get', 'list']);
  });

  it('follows ClusterRole aggregation: a role labelled aggregate-to-view changes view and everyone bound to it', async () => {
    const widgets = clusterRole('widget-viewer', [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['list'] }], { [`${RBAC_GROUP}/aggregate-to-view`]: 'true' });
    const res = await ask({ changes: [{ object: widgets }], scope: { subjects: [subject('User', 'carol')] } });
    expect(res.body.status.gained).toEqual([
      {
        subject: subject('User', 'carol'),
        namespace: 'dev',
        verb: 'list',
        apiGroup: 'example.com',
        resource: 'widgets',
        via: [{ binding: { kind: 'RoleBinding', namespace: 'dev', name: 'carol-view' }, role: { kind: 'ClusterRole', name: 'view' } }],
      },
    ]);
  });

  it('honours time windows: a binding valid only in the future grants nothing now', async () => {
    const later = roleBinding('prod', 'later', roleRef('ClusterRole', 'secret-reader'), [subject('User', 'dave')], {
      [`${RBAC_GROUP}/valid-from`]: '2999-01-01T00:00:00Z',
    });
    expect((await ask({ changes: [{ object: later }] })).body.status.gained).toEqual([]);
    const now = roleBinding('prod', 'now', roleRef('ClusterRole', 'secret-reader'), [subject('User', 'dave')], { [`${RBAC_GROUP}/valid-until`]: '2999-01-01T00:00:00Z' });
    expect((await ask({ changes: [{ object: now }] })).body.status.gained).toHaveLength(2);
  });

  it('reads manifests written for kube (rbac.authorization.k8s.io), as helm template prints them', async () => {
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'ci' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'secret-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'ci', namespace: 'dev' }],
    };
    const res = await ask({ changes: [{ object: binding }] });
    expect(res.status).toBe(201);
    expect(res.body.status.gained.map((e: { subject: object; verb: string }) => [e.subject, e.verb])).toEqual([
      [{ kind: 'ServiceAccount', name: 'ci', namespace: 'dev' }, 'get'],
      [{ kind: 'ServiceAccount', name: 'ci', namespace: 'dev' }, 'list'],
    ]);
  });

  it("says when the caller could not make the change, and why", async () => {
    const grab = { apiVersion: API, kind: 'ClusterRoleBinding', metadata: { name: 'grab' }, roleRef: roleRef('ClusterRole', 'cluster-admin'), subjects: [subject('User', 'auditor')] };
    const res = await ask({ changes: [{ object: grab }] }, AUDITOR);
    expect(res.status).toBe(201);
    expect(res.body.status.denied).toEqual([
      { change: 0, kind: 'ClusterRoleBinding', name: 'grab', reason: expect.stringContaining('User "auditor" cannot create resource "clusterrolebindings"') },
    ]);
    expect((await ask({ changes: [{ object: grab }] })).body.status.denied).toBeUndefined();
  });

  it('checks assertions after the changes, with counterexamples for failures', async () => {
    const binding = roleBinding('prod', 'alice-secrets', roleRef('ClusterRole', 'secret-reader'), [subject('User', 'alice')]);
    const res = await ask({
      changes: [{ object: binding }],
      assertions: [
        { name: 'bob reads prod secrets', can: { subject: { kind: 'User', name: 'bob' }, verb: 'get', resource: 'secrets', namespace: 'prod' } },
        { name: 'alice never reads secrets', cannot: { subject: { kind: 'User', name: 'alice' }, verb: 'get', resource: 'secrets', namespace: 'prod' } },
        { name: 'only bob', onlySubjects: { subjects: [{ kind: 'User', name: 'bob' }], verb: 'list', resource: 'secrets', namespace: 'prod' } },
        { can: { subject: { kind: 'Group', name: 'devs' }, verb: 'delete', resource: 'secrets', namespace: 'prod' } },
      ],
    });
    expect(res.status).toBe(201);
    const binding2 = { kind: 'RoleBinding', namespace: 'prod', name: 'alice-secrets' };
    expect(res.body.status.assertions).toEqual([
      { index: 0, name: 'bob reads prod secrets', passed: true, message: 'User bob can get secrets in namespace prod' },
      {
        index: 1,
        name: 'alice never reads secrets',
        passed: false,
        message: 'User alice can get secrets in namespace prod',
        counterexamples: [{ subject: subject('User', 'alice'), binding: binding2, role: { kind: 'ClusterRole', name: 'secret-reader' } }],
      },
      expect.objectContaining({
        index: 2,
        name: 'only bob',
        passed: false,
        // The default policy's controllers and system:masters read secrets too: the answer is exact.
        message: expect.stringContaining('also allowed: Group system:masters, User alice, User system:controller:'),
        counterexamples: expect.arrayContaining([{ subject: subject('User', 'alice'), binding: binding2, role: { kind: 'ClusterRole', name: 'secret-reader' } }]),
      }),
      { index: 3, passed: false, message: 'Group devs cannot delete secrets in namespace prod', counterexamples: [{ subject: subject('Group', 'devs') }] },
    ]);
    // Without changes the assertions run against the current policy.
    const now = await ask({ assertions: [{ cannot: { subject: { kind: 'User', name: 'alice' }, verb: 'get', resource: 'secrets', namespace: 'prod' } }] });
    expect(now.body.status.assertions[0].passed).toBe(true);
  });

  it('needs create on policychangereviews (access-reviewer has it)', async () => {
    const res = await ask({}, ALICE);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect((await ask({}, AUDITOR)).status).toBe(201);
  });

  it('refuses bad input with a 422 Status naming each field, or 400 for what cannot be decoded', async () => {
    const res = await ask({
      changes: [
        { object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } } },
        { object: clusterRole('bad', [{ apiGroups: [''], resources: ['pods'], verbs: [] }]) },
        { object: clusterRole('twice', []) },
        { object: clusterRole('twice', []) },
        { object: { apiVersion: API, kind: 'RoleBinding', metadata: { name: 'nons' }, roleRef: roleRef('ClusterRole', 'view'), subjects: [] } },
      ],
      assertions: [{ can: { subject: { kind: 'User', name: 'bob' }, verb: 'get', resource: 'pods' }, cannot: { subject: { kind: 'User', name: 'bob' }, verb: 'get', resource: 'pods' } }, { can: { subject: { kind: 'Robot', name: 'r2' }, resource: 'pods' } }],
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
    const fields = res.body.details.causes.map((c: { field: string }) => c.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'spec.changes[0].object.apiVersion',
        'spec.changes[1].object.rules[0].verbs',
        'spec.changes[3].object.metadata.name',
        'spec.changes[4].object.metadata.namespace',
        'spec.assertions[0]',
        'spec.assertions[1].can.verb',
        'spec.assertions[1].can.subject.kind',
      ]),
    );
    const strict = await server.admin.post(`${ACCESS}/policychangereviews?fieldValidation=Strict`, review({ colour: 'red' }));
    expect(strict.status).toBe(400);
    expect(strict.body).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
    const garbage = await server.admin.request('POST', `${ACCESS}/policychangereviews`, { raw: '{"spec": ', contentType: 'application/json' });
    expect(garbage.status).toBe(400);
  });

  it('follows guardrails: what one denies the subject is not gained but reported as blocked, and assertions see it', async () => {
    const guardrails = `${ACCESS}/accessguardrails`;
    const spec = { match: { verbs: ['*'], apiGroups: [''], resources: ['secrets'] }, subjects: [subject('User', 'alice')], message: 'secrets are for the SRE group' };
    expect((await server.admin.post(guardrails, { metadata: { name: 'alice-no-secrets' }, spec })).status).toBe(201);
    try {
      const binding = roleBinding('prod', 'alice-secrets', roleRef('ClusterRole', 'secret-reader'), [subject('User', 'alice')]);
      const cluster = { apiVersion: API, kind: 'ClusterRoleBinding', metadata: { name: 'alice-all-secrets' }, roleRef: roleRef('ClusterRole', 'secret-reader'), subjects: [subject('User', 'alice')] };
      const alice = { kind: 'User', name: 'alice' };
      const question = { verb: 'get', resource: 'secrets', namespace: 'prod' };
      const body = {
        changes: [{ object: binding }],
        assertions: [
          { can: { subject: alice, ...question } },
          { cannot: { subject: alice, ...question } },
          { onlySubjects: { subjects: [subject('User', 'bob')], ...question } },
        ],
      };
      // The guardrail reaches the review's authorizer through its informer.
      let status: { blockedByGuardrails?: unknown[]; assertions: { passed: boolean; message: string; counterexamples?: unknown[] }[] } = { assertions: [] };
      await eventually(async () => {
        const res = await ask(body);
        expect(res.status).toBe(201);
        expect(res.body.status.gained).toEqual([]);
        status = res.body.status;
      });
      const reason = 'access guardrail "alice-no-secrets": secrets are for the SRE group';
      const blocked = (verb: string, namespace?: string) => ({
        direction: 'Gained',
        entry: expect.objectContaining({ subject: subject('User', 'alice'), verb, resource: 'secrets', ...(namespace ? { namespace } : {}) }),
        guardrail: 'alice-no-secrets',
        reason,
      });
      expect(status.blockedByGuardrails).toEqual([blocked('get', 'prod'), blocked('list', 'prod')]);
      expect(status.assertions[0]).toMatchObject({
        passed: false,
        message: 'User alice cannot get secrets in namespace prod: access guardrail "alice-no-secrets" denies it',
        counterexamples: [expect.objectContaining({ subject: subject('User', 'alice'), guardrail: 'alice-no-secrets' })],
      });
      expect(status.assertions[1]).toMatchObject({ passed: true });
      expect(status.assertions[2].passed).toBe(false);
      expect(status.assertions[2].message).not.toContain('User alice');
      expect(status.assertions[2].counterexamples).not.toContainEqual(expect.objectContaining({ subject: subject('User', 'alice') }));
      // A cluster-wide grant is denied everywhere too (the collection and any name, cluster-wide and in any namespace).
      const everywhere = (await ask({ changes: [{ object: cluster }] })).body.status;
      expect(everywhere.gained).toEqual([]);
      expect(everywhere.blockedByGuardrails).toEqual([blocked('get'), blocked('list')]);
      expect(everywhere.blockedByGuardrails[0].entry.namespace).toBeUndefined();
    } finally {
      expect((await server.admin.delete(`${guardrails}/alice-no-secrets`)).status).toBe(200);
    }
  });
});
