import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as https from 'node:https';
import { protobufCodec } from '../../src/runtime/serializer/protobuf/protobuf-codec';
import { kubectlWith } from '../support/kubectl';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';
import { eventually } from '../support/eventually';

/**
 * The access reviews over HTTPS with `--authorization-mode=RBAC,Node` (AuthorizeWithSelectors
 * off): answers from the same chain as real requests, validation, who may ask, the
 * create-only kinds in discovery, and SelfSubjectRulesReview with an authorizer that cannot
 * list a node's rules.
 */
const AUTHZ = '/apis/authorization.platform.io/v1';
const AUTHN = '/apis/authentication.platform.io/v1';
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';

const ALICE = { token: 'alice-token' };
const BOB = { token: 'bob-token' };
const REVIEWER = { token: 'reviewer-token' };
const NODE = { token: 'node-token' };

function tokenFile(dir: string): string {
  return writeTokenFile(dir, [
    'alice-token,alice,uid-alice,"devs"',
    'bob-token,bob,uid-bob',
    'reviewer-token,reviewer,uid-reviewer',
    'node-token,system:node:n1,uid-node,"system:nodes"',
  ]);
}

const subject = (kind: string, name: string) => ({ kind, apiGroup: RBAC_GROUP, name });
const roleRef = (kind: string, name: string) => ({ apiGroup: RBAC_GROUP, kind, name });

const sar = (spec: object, extra: object = {}) => ({ apiVersion: 'authorization.platform.io/v1', kind: 'SubjectAccessReview', spec, ...extra });
const podsIn = (namespace: string, verb = 'get') => ({ namespace, verb, resource: 'pods' });

describe('access reviews (--authorization-mode=RBAC,Node)', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reviews-e2e-'));
    server = await startTestServer({ options: { authorizationModes: ['RBAC', 'Node'], tokenAuthFile: tokenFile(dir) } });
    const admin = server.admin;
    const created = async (path: string, body: object) => expect((await admin.post(path, body)).status).toBe(201);
    await created('/api/v1/namespaces', { metadata: { name: 'team-a' } });
    await created(`${RBAC}/namespaces/team-a/roles`, {
      metadata: { name: 'pod-reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    });
    await created(`${RBAC}/namespaces/team-a/rolebindings`, { metadata: { name: 'read-pods' }, roleRef: roleRef('Role', 'pod-reader'), subjects: [subject('User', 'alice')] });
    await created(`${RBAC}/namespaces/team-a/rolebindings`, { metadata: { name: 'devs-view' }, roleRef: roleRef('ClusterRole', 'view'), subjects: [subject('Group', 'devs')] });
    await created(`${RBAC}/namespaces/team-a/rolebindings`, { metadata: { name: 'broken' }, roleRef: roleRef('Role', 'missing'), subjects: [subject('User', 'carol')] });
    await created(`${RBAC}/clusterroles`, {
      metadata: { name: 'sar-reviewer' },
      rules: [{ apiGroups: ['authorization.platform.io'], resources: ['subjectaccessreviews', 'localsubjectaccessreviews'], verbs: ['create'] }],
    });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'sar-reviewer' }, roleRef: roleRef('ClusterRole', 'sar-reviewer'), subjects: [subject('User', 'reviewer')] });
    // The RBAC index follows writes within a second; wait until the last binding applies.
    await eventually(
      async () => expect((await server.anonymous.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'x', resourceAttributes: {} }), { as: REVIEWER })).status).toBe(201),
      5000,
      50,
    );
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('in discovery and on the wire', () => {
    it('lists the review kinds with the create verb only, and no storage version', async () => {
      const authz = await server.admin.get(AUTHZ);
      expect(authz.status).toBe(200);
      expect(authz.body.resources).toEqual([
        { name: 'localsubjectaccessreviews', singularName: 'localsubjectaccessreview', namespaced: true, kind: 'LocalSubjectAccessReview', verbs: ['create'] },
        { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
        { name: 'selfsubjectrulesreviews', singularName: 'selfsubjectrulesreview', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
        { name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] },
      ]);
      const authn = await server.admin.get(AUTHN);
      expect(authn.body.resources).toEqual([
        { name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] },
        { name: 'tokenreviews', singularName: 'tokenreview', namespaced: false, kind: 'TokenReview', verbs: ['create'] },
      ]);
    });

    it('answers every other method with kube\'s 405, and paths below a review with 404', async () => {
      const notAllowed = { kind: 'Status', status: 'Failure', reason: 'MethodNotAllowed', code: 405, message: 'the server does not allow this method on the requested resource' };
      for (const res of [
        await server.admin.get(`${AUTHZ}/subjectaccessreviews`),
        await server.admin.get(`${AUTHZ}/selfsubjectrulesreviews?watch=1`),
        await server.admin.delete(`${AUTHZ}/subjectaccessreviews`),
        await server.admin.put(`${AUTHZ}/subjectaccessreviews`, sar({})),
        await server.admin.get(`${AUTHZ}/namespaces/team-a/localsubjectaccessreviews`),
        await server.admin.get(`${AUTHN}/selfsubjectreviews`),
      ]) {
        expect(res.status).toBe(405);
        expect(res.body).toMatchObject(notAllowed);
      }
      for (const res of [
        await server.admin.get(`${AUTHZ}/subjectaccessreviews/x`),
        await server.admin.delete(`${AUTHZ}/selfsubjectaccessreviews/x`),
        await server.admin.post(`${AUTHZ}/localsubjectaccessreviews`, {}),
        await server.admin.post(`${AUTHZ}/namespaces/team-a/subjectaccessreviews`, sar({ user: 'a', resourceAttributes: {} })),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ reason: 'NotFound', message: 'the server could not find the requested resource' });
      }
    });

    it('stores nothing: a review is answered with 201 and leaves no trace', async () => {
      const res = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'alice', resourceAttributes: podsIn('team-a') }));
      expect(res.status).toBe(201);
      expect(res.body.metadata.name).toBeUndefined();
      expect(res.body.metadata.uid).toBeUndefined();
      expect(res.body.metadata.resourceVersion).toBeUndefined();
    });

    it('reads and answers protobuf (kube\'s messages), and has no Table', async () => {
      const codec = protobufCodec();
      const message = 'platform.io.api.authorization.v1.SubjectAccessReview';
      const body = codec.encode(message, 'authorization.platform.io/v1', 'SubjectAccessReview', {
        spec: { user: 'alice', resourceAttributes: podsIn('team-a') },
      });
      const PROTOBUF = 'application/vnd.platform.protobuf';
      const answer = await new Promise<{ status: number; type?: string; body: Buffer }>((resolve, reject) => {
        const admin = server.certFor('proto-admin', ['system:masters']);
        const req = https.request(
          new URL(`${AUTHZ}/subjectaccessreviews`, server.url),
          {
            method: 'POST',
            headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF, 'Content-Length': String(body.length) },
            ca: server.running.material.caCertPem,
            cert: admin.cert,
            key: admin.key,
            agent: false,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(answer.status).toBe(201);
      expect(answer.type).toBe(PROTOBUF);
      expect(codec.decode(message, answer.body)).toMatchObject({
        spec: { user: 'alice', resourceAttributes: podsIn('team-a') },
        status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "read-pods/team-a" of Role "pod-reader" to User "alice"' },
      });
      const table = await server.admin.post(`${AUTHZ}/selfsubjectaccessreviews`, { spec: { resourceAttributes: podsIn('team-a') } }, {
        headers: { Accept: 'application/json;as=Table;g=meta.platform.io;v=v1' },
      });
      expect(table.status).toBe(406);
    });
  });

  describe('SubjectAccessReview', () => {
    it('allows with RBAC\'s reason and echoes the question, as kube answers', async () => {
      const res = await server.admin.post(`${AUTHZ}/subjectaccessreviews?fieldManager=tester`, sar({ user: 'alice', resourceAttributes: podsIn('team-a') }));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        kind: 'SubjectAccessReview',
        apiVersion: 'authorization.platform.io/v1',
        metadata: {
          creationTimestamp: null,
          managedFields: [
            {
              manager: 'tester',
              operation: 'Update',
              apiVersion: 'authorization.platform.io/v1',
              time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:spec': { 'f:resourceAttributes': { '.': {}, 'f:namespace': {}, 'f:resource': {}, 'f:verb': {} }, 'f:user': {} } },
            },
          ],
        },
        spec: { resourceAttributes: { namespace: 'team-a', verb: 'get', resource: 'pods' }, user: 'alice' },
        status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "read-pods/team-a" of Role "pod-reader" to User "alice"' },
      });
    });

    it('has no opinion (allowed and denied false, no reason) when nothing allows and nothing denies', async () => {
      const res = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'bob', resourceAttributes: podsIn('team-a') }));
      expect(res.body.status).toEqual({ allowed: false });
    });

    it('reads a user without groups as a member of no group', async () => {
      const configmaps = { namespace: 'team-a', verb: 'list', resource: 'configmaps' };
      const withGroup = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'alice', groups: ['devs'], resourceAttributes: configmaps }));
      expect(withGroup.body.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "devs-view/team-a" of ClusterRole "view" to Group "devs"' });
      const withoutGroups = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'alice', resourceAttributes: configmaps }));
      expect(withoutGroups.body.status).toEqual({ allowed: false });
    });

    it('reports RBAC\'s errors in reason and evaluationError', async () => {
      const res = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'carol', resourceAttributes: podsIn('team-a') }));
      expect(res.body.status).toEqual({
        allowed: false,
        reason: 'RBAC: role.rbac.authorization.platform.io "missing" not found',
        evaluationError: 'role.rbac.authorization.platform.io "missing" not found',
      });
    });

    it('answers non-resource questions, and lets system:masters do anything', async () => {
      const version = await server.admin.post(
        `${AUTHZ}/subjectaccessreviews`,
        sar({ user: 'system:anonymous', groups: ['system:unauthenticated'], nonResourceAttributes: { path: '/version', verb: 'get' } }),
      );
      expect(version.body.status).toEqual({
        allowed: true,
        reason: 'RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"',
      });
      const masters = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'x', groups: ['system:masters'], resourceAttributes: { verb: 'delete', resource: 'nodes' } }));
      expect(masters.body.status).toEqual({ allowed: true });
    });

    it('echoes uid and extra (keys sorted) and drops selectors while AuthorizeWithSelectors is off', async () => {
      const res = await server.admin.post(
        `${AUTHZ}/subjectaccessreviews`,
        sar({
          user: 'alice',
          uid: 'u-1',
          extra: { 'z-key': ['1'], 'a-key': ['2', '3'] },
          resourceAttributes: { ...podsIn('team-a', 'list'), fieldSelector: { rawSelector: 'spec.nodeName=n1', requirements: [{ key: 'x', operator: 'In', values: ['y'] }] } },
        }),
      );
      expect(res.status).toBe(201);
      expect(res.body.spec).toEqual({ resourceAttributes: { namespace: 'team-a', verb: 'list', resource: 'pods' }, user: 'alice', extra: { 'a-key': ['2', '3'], 'z-key': ['1'] }, uid: 'u-1' });
      expect(Object.keys(res.body.spec.extra)).toEqual(['a-key', 'z-key']);
      expect(res.body.status.allowed).toBe(true);
    });

    it('refuses a bad question with kube\'s 422', async () => {
      const neither = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'alice' }));
      expect(neither.status).toBe(422);
      expect(neither.body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: '.authorization.platform.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
        reason: 'Invalid',
        details: {
          group: 'authorization.platform.io',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
              field: 'spec.resourceAttributes',
            },
          ],
        },
        code: 422,
      });
      const nobody = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar({ resourceAttributes: podsIn('team-a') }));
      expect(nobody.body.message).toBe('.authorization.platform.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified');
      const named = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'alice', resourceAttributes: {} }, { metadata: { name: 'question' } }));
      expect(named.status).toBe(422);
      expect(named.body.message).toMatch(/^\.authorization\.platform\.io "" is invalid: metadata: Invalid value: v1\.ObjectMeta\{Name:"question", .*ManagedFields:\[\]v1\.ManagedFieldsEntry\{v1\.ManagedFieldsEntry\{Manager:"unknown", Operation:"Update", .*\}\}\}: must be empty$/);
    });

    it('decodes the body like any kind: unknown fields warn or fail, wrong types and kinds are 400', async () => {
      const warned = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'alice', resourceAttributes: podsIn('team-a'), color: 'red' }));
      expect(warned.status).toBe(201);
      expect(warned.headers.warning).toBe('299 - "unknown field \\"spec.color\\""');
      const strict = await server.admin.post(`${AUTHZ}/subjectaccessreviews?fieldValidation=Strict`, sar({ user: 'alice', resourceAttributes: {}, color: 'red' }));
      expect(strict.status).toBe(400);
      expect(strict.body.message).toBe('SubjectAccessReview in version "v1" cannot be handled as a SubjectAccessReview: strict decoding error: unknown field "spec.color"');
      const typed = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'alice', groups: 'devs', resourceAttributes: {} }));
      expect(typed.status).toBe(400);
      expect(typed.body.message).toContain('json: cannot unmarshal string into Go struct field SubjectAccessReviewSpec.spec.groups of type []string');
      const kind = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, { ...sar({ user: 'a', resourceAttributes: {} }), kind: 'SelfSubjectAccessReview' });
      expect(kind.status).toBe(400);
      expect(kind.body.message).toBe('the kind in the data (SelfSubjectAccessReview) does not match the expected kind (SubjectAccessReview)');
    });

    it('answers a dry run the same way', async () => {
      const res = await server.admin.post(`${AUTHZ}/subjectaccessreviews?dryRun=All`, sar({ user: 'alice', resourceAttributes: podsIn('team-a') }));
      expect(res.status).toBe(201);
      expect(res.body.status.allowed).toBe(true);
    });

    it('needs create on subjectaccessreviews', async () => {
      const res = await server.anonymous.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'alice', resourceAttributes: podsIn('team-a') }), { as: BOB });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(
        'subjectaccessreviews.authorization.platform.io is forbidden: User "bob" cannot create resource "subjectaccessreviews" in API group "authorization.platform.io" at the cluster scope',
      );
      const allowed = await server.anonymous.post(`${AUTHZ}/subjectaccessreviews`, sar({ user: 'alice', resourceAttributes: podsIn('team-a') }), { as: REVIEWER });
      expect(allowed.status).toBe(201);
      expect(allowed.body.status.allowed).toBe(true);
    });
  });

  describe('LocalSubjectAccessReview', () => {
    const local = (namespace: string, body: object, as = REVIEWER) => server.anonymous.post(`${AUTHZ}/namespaces/${namespace}/localsubjectaccessreviews`, body, { as });
    const lsar = (spec: object, metadata: object = {}) => ({ apiVersion: 'authorization.platform.io/v1', kind: 'LocalSubjectAccessReview', metadata, spec });

    it('defaults the question\'s namespace to the request\'s', async () => {
      const res = await local('team-a', lsar({ user: 'alice', resourceAttributes: { verb: 'list', resource: 'pods' } }));
      expect(res.status).toBe(201);
      expect(res.body.metadata).toMatchObject({ namespace: 'team-a', creationTimestamp: null });
      expect(res.body.spec.resourceAttributes).toEqual({ namespace: 'team-a', verb: 'list', resource: 'pods' });
      expect(res.body.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "read-pods/team-a" of Role "pod-reader" to User "alice"' });
    });

    it('refuses another namespace in the question (422) or in metadata (400), and non-resource questions', async () => {
      const other = await local('team-a', lsar({ user: 'alice', resourceAttributes: podsIn('other') }));
      expect(other.status).toBe(422);
      expect(other.body.message).toBe('.authorization.platform.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace');
      const meta = await local('team-a', lsar({ user: 'alice', resourceAttributes: podsIn('team-a') }, { namespace: 'other' }));
      expect(meta.status).toBe(400);
      expect(meta.body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
      const nonResource = await local('team-a', lsar({ user: 'alice', nonResourceAttributes: { path: '/version', verb: 'get' } }));
      expect(nonResource.status).toBe(422);
      expect(nonResource.body.message).toBe(
        '.authorization.platform.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/version", Verb:"get"}: disallowed on this kind of request',
      );
    });

    it('answers for namespaces that do not exist (reviews must not reveal which do)', async () => {
      const res = await local('nowhere', lsar({ user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods' } }));
      expect(res.status).toBe(201);
      expect(res.body.status).toEqual({ allowed: false });
    });

    it('needs create on localsubjectaccessreviews in the namespace', async () => {
      const res = await local('team-a', lsar({ user: 'alice', resourceAttributes: podsIn('team-a') }), BOB);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(
        'localsubjectaccessreviews.authorization.platform.io is forbidden: User "bob" cannot create resource "localsubjectaccessreviews" in API group "authorization.platform.io" in the namespace "team-a"',
      );
    });
  });

  describe('SelfSubjectAccessReview', () => {
    const ssar = (spec: object) => ({ apiVersion: 'authorization.platform.io/v1', kind: 'SelfSubjectAccessReview', spec });

    it('answers about the caller, open to every authenticated caller (system:basic-user)', async () => {
      const alice = await server.anonymous.post(`${AUTHZ}/selfsubjectaccessreviews`, ssar({ resourceAttributes: podsIn('team-a') }), {
        as: ALICE,
        headers: { 'User-Agent': 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc' },
      });
      expect(alice.status).toBe(201);
      expect(alice.body.kind).toBe('SelfSubjectAccessReview');
      expect(alice.body.metadata.managedFields[0].manager).toBe('kubectl');
      expect(alice.body.spec).toEqual({ resourceAttributes: podsIn('team-a') });
      expect(alice.body.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "read-pods/team-a" of Role "pod-reader" to User "alice"' });
      const bob = await server.anonymous.post(`${AUTHZ}/selfsubjectaccessreviews`, ssar({ resourceAttributes: podsIn('team-a') }), { as: BOB });
      expect(bob.status).toBe(201);
      expect(bob.body.status).toEqual({ allowed: false });
    });

    it('has no subject fields and validates like the others', async () => {
      const res = await server.anonymous.post(`${AUTHZ}/selfsubjectaccessreviews?fieldValidation=Strict`, ssar({ user: 'root', resourceAttributes: podsIn('team-a') }), { as: BOB });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('unknown field "spec.user"');
      const both = await server.anonymous.post(`${AUTHZ}/selfsubjectaccessreviews`, ssar({ resourceAttributes: {}, nonResourceAttributes: { path: '/x', verb: 'get' } }), { as: BOB });
      expect(both.status).toBe(422);
      expect(both.body.message).toBe(
        '.authorization.platform.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes',
      );
    });

    it('is closed to anonymous callers', async () => {
      const res = await server.anonymous.post(`${AUTHZ}/selfsubjectaccessreviews`, ssar({ resourceAttributes: podsIn('team-a') }));
      expect(res.status).toBe(403);
      expect(res.body.message).toContain('User "system:anonymous" cannot create resource "selfsubjectaccessreviews"');
    });
  });

  describe('SelfSubjectRulesReview', () => {
    const ssrr = (namespace?: string) => ({ apiVersion: 'authorization.platform.io/v1', kind: 'SelfSubjectRulesReview', spec: namespace ? { namespace } : {} });

    it('lists the caller\'s rules in the namespace, complete when every authorizer can list them', async () => {
      const res = await server.anonymous.post(`${AUTHZ}/selfsubjectrulesreviews`, ssrr('team-a'), { as: ALICE });
      expect(res.status).toBe(201);
      expect(res.body.metadata).toEqual({ creationTimestamp: null });
      expect(res.body.spec).toEqual({});
      expect(res.body.status.incomplete).toBe(false);
      expect(res.body.status.evaluationError).toBeUndefined();
      expect(res.body.status.resourceRules).toEqual(
        expect.arrayContaining([
          { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
          { verbs: ['create'], apiGroups: ['authorization.platform.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
        ]),
      );
      expect(res.body.status.nonResourceRules).toEqual(expect.arrayContaining([expect.objectContaining({ nonResourceURLs: expect.arrayContaining(['/version']) })]));
      // The group binding (view for devs) applies too; another namespace has none of it.
      expect(res.body.status.resourceRules.some((r: { resources?: string[] }) => r.resources?.includes('configmaps'))).toBe(true);
      const elsewhere = await server.anonymous.post(`${AUTHZ}/selfsubjectrulesreviews`, ssrr('default'), { as: ALICE });
      expect(elsewhere.body.status.resourceRules).not.toContainEqual({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] });
    });

    it('is incomplete, naming the Node authorizer, for a node', async () => {
      const res = await server.anonymous.post(`${AUTHZ}/selfsubjectrulesreviews`, ssrr('team-a'), { as: NODE });
      expect(res.status).toBe(201);
      expect(res.body.status).toMatchObject({ incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' });
      expect(res.body.status.resourceRules).toContainEqual({
        verbs: ['create'],
        apiGroups: ['authorization.platform.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      });
    });

    it('needs a namespace', async () => {
      const res = await server.anonymous.post(`${AUTHZ}/selfsubjectrulesreviews`, ssrr(), { as: ALICE });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ reason: 'BadRequest', message: 'no namespace on request' });
    });
  });

  describe('with kubectl', () => {
    const kubectl = (...args: string[]) => kubectlWith(server.kubeconfigPath, dir)(...args);

    it('creates self reviews from manifests of the platform.io groups, and answers kubectl auth at the k8s.io paths', async () => {
      const ssar = join(dir, 'ssar.yaml');
      writeFileSync(ssar, ['apiVersion: authorization.platform.io/v1', 'kind: SelfSubjectAccessReview', 'spec:', '  resourceAttributes: {namespace: team-a, verb: get, resource: pods}', ''].join('\n'));
      const access = JSON.parse((await kubectl('create', '-o', 'json', '-f', ssar)).stdout);
      expect(access).toMatchObject({ kind: 'SelfSubjectAccessReview', status: { allowed: true } });
      const ssr = join(dir, 'ssr.json');
      writeFileSync(ssr, JSON.stringify({ apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' }));
      const whoami = JSON.parse((await kubectl('create', '-o', 'json', '-f', ssr)).stdout);
      expect(whoami.status.userInfo).toEqual({ username: 'platform-admin', groups: ['system:masters', 'system:authenticated'] });
      expect((await kubectl('auth', 'can-i', 'get', 'pods', '-n', 'team-a')).stdout).toBe('yes\n');
    });
  });

  describe('SelfSubjectReview', () => {
    it('tells the caller who it is', async () => {
      const res = await server.anonymous.post(`${AUTHN}/selfsubjectreviews`, { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' }, { as: ALICE });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        kind: 'SelfSubjectReview',
        apiVersion: 'authentication.platform.io/v1',
        metadata: { creationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
        status: { userInfo: { username: 'alice', uid: 'uid-alice', groups: ['devs', 'system:authenticated'] } },
      });
    });
  });
});
