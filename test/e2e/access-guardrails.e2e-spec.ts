import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as YAML from 'yaml';
import { defaultAuditOptions } from '../../src/config/options';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';
import { reviewReply, startTestWebhook } from '../support/webhook-server';

/**
 * AccessGuardrail (access.platform.io/v1): deny rules the Guardrail authorizer applies before
 * RBAC, to every request and every access review; written through the generic storage with
 * their conditions compiled at write time; refused when they would lock out every
 * administrator of guardrails.
 */
const ACCESS = '/apis/access.platform.io/v1';
const GUARDRAILS = `${ACCESS}/accessguardrails`;
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';
const AUTHZ = '/apis/authorization.platform.io/v1';
const TABLE = 'application/json;as=Table;v=v1;g=meta.platform.io';

const user = (name: string) => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const group = (name: string) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const roleRef = (name: string) => ({ apiGroup: RBAC_GROUP, kind: 'ClusterRole', name });

const guardrail = (name: string, spec: object) => ({ apiVersion: 'access.platform.io/v1', kind: 'AccessGuardrail', metadata: { name }, spec });

describe('access guardrails', () => {
  let server: TestServer;
  let dir: string;
  let auditLog: string;
  const as = (name: string, groups: string[] = []) => ({ as: server.certFor(name, groups) });
  const alice = () => as('alice', ['devs']);
  const bob = () => as('bob', ['devs', 'sre']);

  const created = async (path: string, body: object) => {
    const res = await server.admin.post(path, body);
    expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201, body: undefined });
    return res.body;
  };
  const removeGuardrail = async (name: string) => expect((await server.admin.delete(`${GUARDRAILS}/${name}`)).status).toBe(200);
  const sar = async (spec: object) =>
    (await server.admin.post(`${AUTHZ}/subjectaccessreviews`, { apiVersion: 'authorization.platform.io/v1', kind: 'SubjectAccessReview', spec })).body.status;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guardrails-e2e-'));
    const policyFile = join(dir, 'policy.yaml');
    writeFileSync(policyFile, 'apiVersion: audit.platform.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
    auditLog = join(dir, 'audit.log');
    server = await startTestServer({ options: { audit: { ...defaultAuditOptions(), policyFile, logPath: auditLog } } });
    await created('/api/v1/namespaces', { metadata: { name: 'prod', labels: { tier: 'prod' } } });
    await created('/api/v1/namespaces', { metadata: { name: 'dev', labels: { tier: 'dev' } } });
    for (const ns of ['prod', 'dev', 'kube-system']) {
      await created(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'db' }, stringData: { password: 'x' } });
      await created(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'prod-settings' }, data: { a: 'b' } });
    }
    await created(`${RBAC}/clusterroles`, {
      metadata: { name: 'reader' },
      rules: [
        { apiGroups: [''], resources: ['secrets', 'configmaps', 'pods'], verbs: ['get', 'list', 'delete'] },
        { nonResourceURLs: ['/metrics'], verbs: ['get'] },
      ],
    });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'devs-read' }, roleRef: roleRef('reader'), subjects: [group('devs')] });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'carol-admin' }, roleRef: roleRef('cluster-admin'), subjects: [user('carol')] });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('enforcement', () => {
    afterEach(async () => {
      const list = await server.admin.get(GUARDRAILS);
      for (const item of list.body.items) await removeGuardrail(item.metadata.name);
    });

    it('denies what it matches in the namespaces it names, whatever RBAC allows, with its message in the 403; exceptions pass', async () => {
      expect((await server.anonymous.get('/api/v1/namespaces/kube-system/secrets/db', alice())).status).toBe(200);
      await created(
        GUARDRAILS,
        guardrail('kube-system-secrets', {
          match: { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['secrets'], namespaces: ['kube-system'] },
          exceptions: [group('sre')],
          message: 'only SRE may read Secrets in kube-system',
        }),
      );
      const denied = await server.anonymous.get('/api/v1/namespaces/kube-system/secrets/db', alice());
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({
        kind: 'Status',
        reason: 'Forbidden',
        code: 403,
        message:
          'secrets "db" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "kube-system": access guardrail "kube-system-secrets": only SRE may read Secrets in kube-system',
      });
      // A list across all namespaces reaches kube-system too.
      expect((await server.anonymous.get('/api/v1/secrets', alice())).status).toBe(403);
      // Other namespaces, other resources and the exception are untouched.
      expect((await server.anonymous.get('/api/v1/namespaces/prod/secrets/db', alice())).status).toBe(200);
      expect((await server.anonymous.get('/api/v1/namespaces/kube-system/configmaps/prod-settings', alice())).status).toBe(200);
      expect((await server.anonymous.get('/api/v1/namespaces/kube-system/secrets/db', bob())).status).toBe(200);
      // system:masters stays the break-glass path.
      expect((await server.admin.get('/api/v1/namespaces/kube-system/secrets/db')).status).toBe(200);
      // Impersonating alice does not get around it.
      const impersonated = await server.admin.get('/api/v1/namespaces/kube-system/secrets/db', { headers: { 'Impersonate-User': 'alice', 'Impersonate-Group': 'devs' } });
      expect(impersonated.status).toBe(403);
    });

    it('escalation prevention: what a guardrail denies the caller is not held, so it cannot be granted to an identity the guardrail spares', async () => {
      await created(`${RBAC}/namespaces/prod/roles`, { metadata: { name: 'binder' }, rules: [{ apiGroups: [RBAC_GROUP], resources: ['rolebindings'], verbs: ['create'] }] });
      await created(`${RBAC}/namespaces/prod/rolebindings`, { metadata: { name: 'alice-binds' }, roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'binder' }, subjects: [user('alice')] });
      await created(GUARDRAILS, guardrail('devs-no-prod-secrets', { match: { verbs: ['get'], apiGroups: [''], resources: ['secrets'], namespaces: ['prod'] }, subjects: [group('devs')], message: 'devs do not read prod Secrets' }));
      const grantTo = (name: string, role: string) => ({ metadata: { name }, roleRef: roleRef(role), subjects: [{ kind: 'ServiceAccount', name: 'helper', namespace: 'prod' }] });
      // RBAC alone would let alice grant her reader role (she holds every rule of it in prod): the guardrail takes part of it away.
      const refused = await server.anonymous.post(`${RBAC}/namespaces/prod/rolebindings`, grantTo('helper-reads', 'reader'), alice());
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', details: { name: 'helper-reads', group: RBAC_GROUP, kind: 'rolebindings' } });
      expect(refused.body.message).toContain('is attempting to grant RBAC permissions it may not use: access guardrail "devs-no-prod-secrets": devs do not read prod Secrets');
      // A role the guardrail does not touch, she may still grant.
      await created(`${RBAC}/clusterroles`, { metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
      const granted = await server.anonymous.post(`${RBAC}/namespaces/prod/rolebindings`, grantTo('helper-pods', 'pod-reader'), alice());
      expect(granted.status).toBe(201);
      for (const name of ['helper-pods', 'alice-binds']) expect((await server.admin.delete(`${RBAC}/namespaces/prod/rolebindings/${name}`)).status).toBe(200);
    });

    it('answers SubjectAccessReviews with denied and its reason, and names itself in the audit log', async () => {
      await created(GUARDRAILS, guardrail('no-pod-deletes', { match: { verbs: ['delete'], apiGroups: [''], resources: ['pods'] }, message: 'pods are deleted by the deployer only' }));
      const status = await sar({ user: 'alice', groups: ['devs'], resourceAttributes: { verb: 'delete', resource: 'pods', namespace: 'dev', name: 'p' } });
      expect(status).toEqual({ allowed: false, denied: true, reason: 'access guardrail "no-pod-deletes": pods are deleted by the deployer only' });
      const del = await server.anonymous.delete('/api/v1/namespaces/dev/pods/p', alice());
      expect(del.status).toBe(403);
      await eventually(() => {
        const events = readFileSync(auditLog, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line));
        const event = events.find((e) => e.stage === 'ResponseComplete' && e.verb === 'delete' && e.user.username === 'alice' && e.objectRef?.resource === 'pods');
        expect(event?.annotations).toEqual({
          'authorization.platform.io/decision': 'forbid',
          'authorization.platform.io/reason': 'access guardrail "no-pod-deletes": pods are deleted by the deployer only',
          'access.platform.io/guardrail': 'no-pod-deletes',
        });
      });
    });

    it('applies only to its subjects, and limits namespaces by label selector', async () => {
      await created(
        GUARDRAILS,
        guardrail('prod-configmaps', {
          match: { verbs: ['*'], apiGroups: [''], resources: ['configmaps'], namespaceSelector: { matchLabels: { tier: 'prod' } } },
          subjects: [user('alice')],
        }),
      );
      expect((await server.anonymous.get('/api/v1/namespaces/prod/configmaps/prod-settings', alice())).status).toBe(403);
      expect((await server.anonymous.get('/api/v1/namespaces/dev/configmaps/prod-settings', alice())).status).toBe(200);
      expect((await server.anonymous.get('/api/v1/namespaces/prod/configmaps/prod-settings', as('dave', ['devs']))).status).toBe(200);
      // Labelling a namespace brings it under the guardrail.
      expect((await server.admin.patch('/api/v1/namespaces/dev', { metadata: { labels: { tier: 'prod' } } }, 'application/merge-patch+json')).status).toBe(200);
      await eventually(async () => expect((await server.anonymous.get('/api/v1/namespaces/dev/configmaps/prod-settings', alice())).status).toBe(403));
      expect((await server.admin.patch('/api/v1/namespaces/dev', { metadata: { labels: { tier: 'dev' } } }, 'application/merge-patch+json')).status).toBe(200);
    });

    it('matches resource names and non-resource URLs with RBAC rules', async () => {
      await created(GUARDRAILS, guardrail('db-secret', { match: { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['db'] } }));
      await created(GUARDRAILS, guardrail('metrics', { match: { verbs: ['get'], nonResourceURLs: ['/metrics'] }, subjects: [group('devs')] }));
      const denied = await server.anonymous.get('/api/v1/namespaces/prod/secrets/db', alice());
      expect(denied.status).toBe(403);
      expect(denied.body.message).toMatch(/: denied by access guardrail "db-secret"$/);
      expect((await server.anonymous.get('/api/v1/namespaces/prod/secrets', alice())).status).toBe(200);
      const metrics = await server.anonymous.get('/metrics', alice());
      expect(metrics.status).toBe(403);
      expect(metrics.body.message).toBe('forbidden: User "alice" cannot get path "/metrics": denied by access guardrail "metrics"');
    });

    it('denies only when its condition holds; a condition that fails denies under Deny and passes under NoOpinion', async () => {
      await created(
        GUARDRAILS,
        guardrail('prod-named', {
          match: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
          condition: "request.resourceAttributes.name.startsWith('prod-') && !('oncall' in request.groups)",
        }),
      );
      expect((await server.anonymous.get('/api/v1/namespaces/dev/configmaps/prod-settings', alice())).status).toBe(403);
      expect((await server.anonymous.get('/api/v1/namespaces/dev/configmaps/prod-settings', as('erin', ['devs', 'oncall']))).status).toBe(200);
      expect((await server.anonymous.get('/api/v1/namespaces/dev/configmaps/other', alice())).status).toBe(404);
      await removeGuardrail('prod-named');

      const failing = "request.extra['ticket'][0] == 'x'";
      await created(GUARDRAILS, guardrail('fails-closed', { match: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }, condition: failing }));
      const closed = await sar({ user: 'alice', groups: ['devs'], resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'dev', name: 'prod-settings' } });
      expect(closed).toMatchObject({ allowed: false, denied: true });
      expect(closed.reason).toContain('access guardrail "fails-closed"');
      expect(closed.evaluationError).toContain('access guardrail "fails-closed": condition');
      const open = guardrail('fails-closed', { match: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }, condition: failing, failurePolicy: 'NoOpinion' });
      const current = await server.admin.get(`${GUARDRAILS}/fails-closed`);
      expect(current.body.spec.failurePolicy).toBe('Deny');
      expect((await server.admin.put(`${GUARDRAILS}/fails-closed`, open)).status).toBe(200);
      const passed = await sar({ user: 'alice', groups: ['devs'], resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'dev', name: 'prod-settings' } });
      expect(passed).toMatchObject({ allowed: true });
    });

    it('lets a guardrail protect guardrails', async () => {
      await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'frank-admin' }, roleRef: roleRef('cluster-admin'), subjects: [user('frank')] });
      await created(GUARDRAILS, guardrail('guardrails-by-carol', { match: { verbs: ['update', 'patch', 'delete'], apiGroups: ['access.platform.io'], resources: ['accessguardrails'] }, exceptions: [user('carol')] }));
      const byFrank = await server.anonymous.delete(`${GUARDRAILS}/guardrails-by-carol`, as('frank'));
      expect(byFrank.status).toBe(403);
      expect((await server.anonymous.delete(`${GUARDRAILS}/guardrails-by-carol`, as('carol'))).status).toBe(200);
      expect((await server.admin.delete(`${RBAC}/clusterrolebindings/frank-admin`)).status).toBe(200);
    });
  });

  describe('in the access answers', () => {
    const whoCan = async (resourceAttributes: object) =>
      (await server.admin.post(`${ACCESS}/resourceaccessreviews`, { apiVersion: 'access.platform.io/v1', kind: 'ResourceAccessReview', spec: { resourceAttributes } })).body.status;
    const explain = async (spec: object) =>
      (await server.admin.post(`${ACCESS}/accessexplanations`, { apiVersion: 'access.platform.io/v1', kind: 'AccessExplanation', spec })).body.status;

    beforeAll(async () => {
      await created(`${RBAC}/namespaces/dev/rolebindings`, {
        metadata: { name: 'ci-read' },
        roleRef: roleRef('reader'),
        subjects: [{ kind: 'ServiceAccount', name: 'ci', namespace: 'dev' }, user('gina')],
      });
      await created(
        GUARDRAILS,
        guardrail('secrets-devs', {
          match: { verbs: ['get'], apiGroups: [''], resources: ['secrets'] },
          subjects: [group('devs'), { kind: 'ServiceAccount', name: 'ci', namespace: 'dev' }],
          message: 'developers read no Secrets',
        }),
      );
    });
    afterAll(async () => {
      await removeGuardrail('secrets-devs');
      await server.admin.delete(`${RBAC}/namespaces/dev/rolebindings/ci-read`);
    });

    it('who-can leaves out the subjects a guardrail denies and lists them apart', async () => {
      const status = await whoCan({ verb: 'get', resource: 'secrets', namespace: 'dev' });
      expect(status.groups).not.toContain('devs');
      expect(status.users).not.toContain('system:serviceaccount:dev:ci');
      expect(status.users).toEqual(expect.arrayContaining(['carol', 'gina']));
      expect(status.groups).toContain('system:masters');
      expect(status.blocked).toEqual([
        { kind: 'User', name: 'system:serviceaccount:dev:ci', guardrail: 'secrets-devs', reason: 'access guardrail "secrets-devs": developers read no Secrets' },
        { kind: 'Group', name: 'devs', guardrail: 'secrets-devs', reason: 'access guardrail "secrets-devs": developers read no Secrets' },
      ]);
      // Guardrails can say whom they deny: they add nothing to what is incomplete (the Node authorizer).
      expect(status.evaluationError).toBe('authorizer node (Node) cannot enumerate the nodes (group system:nodes) it allows');
      // The grants keep only the subjects still allowed: devs-read grants to nobody now.
      expect(status.grants.map((g: any) => g.binding.name)).not.toContain('devs-read');
      expect(status.grants.find((g: any) => g.binding.name === 'ci-read').subjects).toEqual([user('gina')]);
      // An action no guardrail touches lists them as before.
      const lists = await whoCan({ verb: 'list', resource: 'secrets', namespace: 'dev' });
      expect(lists.groups).toContain('devs');
      expect(lists.blocked).toBeUndefined();
    });

    it('an explanation names the guardrail that denied, and RBAC grants it would have had', async () => {
      const status = await explain({ user: 'alice', groups: ['devs'], resourceAttributes: { verb: 'get', resource: 'secrets', namespace: 'dev', name: 'db' } });
      expect(status).toMatchObject({ allowed: false, denied: true, reason: 'access guardrail "secrets-devs": developers read no Secrets', deniedByGuardrail: 'secrets-devs' });
      expect(status.decisions.slice(0, 2)).toEqual([
        { authorizer: { type: 'Privileged', name: 'system:masters' }, decision: 'NoOpinion' },
        { authorizer: { type: 'Guardrail', name: 'guardrail' }, decision: 'Deny', reason: 'access guardrail "secrets-devs": developers read no Secrets' },
      ]);
      expect(status.grants.map((g: any) => g.binding.name)).toEqual(['devs-read']);
    });

    it('a rules review says it is incomplete for a subject a guardrail applies to', async () => {
      const review = async (user: string, groups: string[]) =>
        (await server.admin.post(`${ACCESS}/subjectrulesreviews`, { apiVersion: 'access.platform.io/v1', kind: 'SubjectRulesReview', spec: { user, groups, namespace: 'dev' } })).body.status;
      expect(await review('alice', ['devs'])).toMatchObject({ incomplete: true, evaluationError: expect.stringContaining('access guardrails "secrets-devs"') });
      expect((await review('carol', [])).incomplete).toBe(false);
    });
  });

  it('is in discovery with every storage verb, and explained', async () => {
    const group = await server.admin.get(ACCESS);
    expect(group.body.resources).toContainEqual(expect.objectContaining({
      name: 'accessguardrails',
      singularName: 'accessguardrail',
      namespaced: false,
      kind: 'AccessGuardrail',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['guardrail'],
    }));
    const openapi = await server.admin.get('/openapi/v3/apis/access.platform.io/v1');
    expect(openapi.status).toBe(200);
    const schemas = openapi.body.components.schemas;
    const key = Object.keys(schemas).find((k) => k.endsWith('.AccessGuardrailSpec'));
    expect(schemas[key!].properties.failurePolicy.description).toContain('Deny');
  });

  it('is asked before any configured authorizer: AlwaysAllow after it cannot override a guardrail', async () => {
    const open = await startTestServer({ options: { authorizationModes: ['AlwaysAllow'] } });
    try {
      const guardrailRes = await open.admin.post(GUARDRAILS, guardrail('no-secrets', { match: { verbs: ['get'], apiGroups: [''], resources: ['secrets'] }, message: 'no Secrets' }));
      expect(guardrailRes.status).toBe(201);
      expect((await open.anonymous.get('/api/v1/namespaces/default/configmaps', { as: open.certFor('anyone') })).status).toBe(200);
      const denied = await open.anonymous.get('/api/v1/namespaces/default/secrets/x', { as: open.certFor('anyone') });
      expect(denied.status).toBe(403);
      expect(denied.body.message).toContain('access guardrail "no-secrets": no Secrets');
    } finally {
      await open.close();
    }
  });

  it('is asked before a webhook authorizer of --authorization-config: an allowing webhook after it cannot override it, and is not even asked', async () => {
    const webhook = await startTestWebhook(() => reviewReply('v1', { allowed: true }));
    const configPath = join(dir, 'authorization.yaml');
    const webhookAuthorizer = {
      type: 'Webhook',
      name: 'allow-all',
      webhook: {
        timeout: '1s',
        subjectAccessReviewVersion: 'v1',
        matchConditionSubjectAccessReviewVersion: 'v1',
        failurePolicy: 'Deny',
        connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: webhook.writeKubeconfig(dir) },
      },
    };
    writeFileSync(configPath, JSON.stringify({ apiVersion: 'apiserver.config.platform.io/v1', kind: 'AuthorizationConfiguration', authorizers: [webhookAuthorizer, { type: 'RBAC', name: 'rbac' }] }));
    const open = await startTestServer({ options: { authorizationConfigFile: configPath } });
    try {
      expect((await open.admin.post(GUARDRAILS, guardrail('no-secrets', { match: { verbs: ['get'], apiGroups: [''], resources: ['secrets'] }, message: 'no Secrets' }))).status).toBe(201);
      const anyone = { as: open.certFor('anyone') };
      expect((await open.anonymous.get('/api/v1/namespaces/default/configmaps', anyone)).status).toBe(200);
      const denied = await open.anonymous.get('/api/v1/namespaces/default/secrets/x', anyone);
      expect(denied.status).toBe(403);
      expect(denied.body.message).toContain('access guardrail "no-secrets": no Secrets');
      expect(webhook.recorded.map((r) => r.body.spec.resourceAttributes?.resource)).not.toContain('secrets');
    } finally {
      await open.close();
      await webhook.close();
    }
  });

  it('audits the deletion of a guardrail: who deleted which, and the outcome, refused or not', async () => {
    await created(GUARDRAILS, guardrail('to-delete', { match: { verbs: ['get'], apiGroups: [''], resources: ['nodes'] } }));
    expect((await server.anonymous.delete(`${GUARDRAILS}/to-delete`, alice())).status).toBe(403);
    await removeGuardrail('to-delete');
    const deletions = () =>
      readFileSync(auditLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .filter((e) => e.stage === 'ResponseComplete' && e.verb === 'delete' && e.objectRef?.resource === 'accessguardrails' && e.objectRef?.name === 'to-delete');
    await eventually(() => expect(deletions().map((e) => [e.user.username, e.objectRef.apiGroup, e.responseStatus.code])).toEqual([
      ['alice', 'access.platform.io', 403],
      [expect.any(String), 'access.platform.io', 200],
    ]));
  });

  describe('writes', () => {
    it('serves the kind like any other: Table, get, dry run, and a defaulted failurePolicy', async () => {
      const dry = await server.admin.post(`${GUARDRAILS}?dryRun=All`, guardrail('dry', { match: { verbs: ['get'], apiGroups: [''], resources: ['pods'] } }));
      expect(dry.status).toBe(201);
      expect(dry.body.spec.failurePolicy).toBe('Deny');
      expect((await server.admin.get(`${GUARDRAILS}/dry`)).status).toBe(404);
      await created(GUARDRAILS, guardrail('shown', { match: { verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'], namespaces: ['kube-system'] }, subjects: [group('devs')] }));
      const table = await server.admin.get(GUARDRAILS, { headers: { Accept: TABLE } });
      expect(table.status).toBe(200);
      expect(table.body.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Verbs', 'Resources', 'Namespaces', 'Subjects', 'Message', 'Age']);
      expect(table.body.rows.map((r: any) => r.cells.slice(0, 5))).toEqual([['shown', 'get,list', 'secrets', 'kube-system', 'Group/devs']]);
      await server.admin.delete(`${GUARDRAILS}/shown`);
    });

    it('accepts the example set of the Helm chart (helm/examples/guardrails.yaml) in a dry run', async () => {
      const examples = YAML.parseAllDocuments(readFileSync(join(__dirname, '..', '..', 'helm', 'examples', 'guardrails.yaml'), 'utf8')).map((d) => d.toJS());
      expect(examples.map((g) => g.metadata.name)).toEqual(['kube-system-secrets', 'no-impersonation-of-admins', 'prod-deletes-need-a-ticket']);
      for (const example of examples) {
        const res = await server.admin.post(`${GUARDRAILS}?dryRun=All`, example);
        expect({ name: example.metadata.name, status: res.status }).toEqual({ name: example.metadata.name, status: 201 });
      }
    });

    it.each([
      ['no match', {}, 'spec.match', 'Required value'],
      ['no verbs', { match: { apiGroups: [''], resources: ['pods'] } }, 'spec.match.verbs', 'Required value'],
      ['resources and URLs', { match: { verbs: ['get'], resources: ['pods'], apiGroups: [''], nonResourceURLs: ['/x'] } }, 'spec.match.nonResourceURLs', 'Invalid value'],
      ['a URL match in namespaces', { match: { verbs: ['get'], nonResourceURLs: ['/x'], namespaces: ['prod'] } }, 'spec.match.namespaces', 'Invalid value'],
      ['a bad namespace name', { match: { verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['Prod'] } }, 'spec.match.namespaces[0]', 'Invalid value'],
      ['a condition that does not compile', { match: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, condition: 'request.user ==' }, 'spec.condition', 'Invalid value'],
      ['a condition that is not boolean', { match: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, condition: 'request.user' }, 'spec.condition', 'Invalid value'],
      ['an unknown variable', { match: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, condition: 'object.x == 1' }, 'spec.condition', 'Invalid value'],
      ['an unknown failurePolicy', { match: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, failurePolicy: 'Allow' }, 'spec.failurePolicy', 'Unsupported value'],
      ['a service account without namespace', { match: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, subjects: [{ kind: 'ServiceAccount', name: 'x' }] }, 'spec.subjects[0].namespace', 'Required value'],
      ['an unknown subject kind', { match: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, exceptions: [{ kind: 'Robot', name: 'x' }] }, 'spec.exceptions[0].kind', 'Unsupported value'],
    ])('refuses %s with 422 naming the field', async (_what, spec, field, message) => {
      const res = await server.admin.post(GUARDRAILS, guardrail('bad', spec));
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422, details: { name: 'bad', group: 'access.platform.io', kind: 'AccessGuardrail' } });
      expect(res.body.details.causes).toEqual(expect.arrayContaining([expect.objectContaining({ field, message: expect.stringContaining(message) })]));
      expect((await server.admin.get(`${GUARDRAILS}/bad`)).status).toBe(404);
    });

    it('refuses a field of the wrong type as a Status, never a 500', async () => {
      const res = await server.admin.post(GUARDRAILS, guardrail('typed', { match: { verbs: 'get' }, condition: 3 }));
      expect([400, 422]).toContain(res.status);
      expect(res.body.kind).toBe('Status');
    });

    it('refuses a guardrail that locks out every administrator of guardrails, unless allowLockout; dry run shows it', async () => {
      const everything = { match: { verbs: ['*'], apiGroups: ['*'], resources: ['*'] } };
      for (const path of [GUARDRAILS, `${GUARDRAILS}?dryRun=All`]) {
        const res = await server.admin.post(path, guardrail('lockout', everything));
        expect(res.status).toBe(422);
        expect(res.body.details.causes).toEqual([
          expect.objectContaining({ field: 'spec.allowLockout', message: expect.stringContaining('User "carol"') }),
        ]);
      }
      // With an exception for one administrator it is no lock-out.
      const spared = await server.admin.post(`${GUARDRAILS}?dryRun=All`, guardrail('lockout', { ...everything, exceptions: [user('carol')] }));
      expect(spared.status).toBe(201);
      // Knowingly: written, carol is locked out, system:masters can still remove it.
      await created(GUARDRAILS, guardrail('lockout', { ...everything, allowLockout: true }));
      expect((await server.anonymous.delete(`${GUARDRAILS}/lockout`, as('carol'))).status).toBe(403);
      await removeGuardrail('lockout');
      expect((await server.anonymous.get('/api/v1/namespaces', as('carol'))).status).toBe(200);
    });
  });
});
