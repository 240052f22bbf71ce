import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as YAML from 'yaml';
import { APISERVER_ID_HASH } from '../../src/metrics/apiserver-identity';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';
import { metricSample, reviewReply, startTestWebhook, TestWebhook } from '../support/webhook-server';

const RBAC = '/apis/rbac.authorization.platform.io/v1';

/**
 * `--authorization-config`: a webhook named `gate` (v1beta1, 1s timeout, failurePolicy Deny,
 * match conditions) and RBAC, reloaded from the file while the server runs.
 */
describe('the authorization configuration file', () => {
  let webhook: TestWebhook;
  let server: TestServer;
  let dir: string;
  let configPath: string;
  let kubeconfig: string;

  const gate = (overrides: Record<string, unknown> = {}) => ({
    type: 'Webhook',
    name: 'gate',
    webhook: {
      timeout: '1s',
      authorizedTTL: '1s',
      unauthorizedTTL: '1s',
      subjectAccessReviewVersion: 'v1beta1',
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy: 'Deny',
      connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
      matchConditions: [
        // system users (anonymous included) are not the webhook's business
        { expression: "!request.user.startsWith('system:')" },
        // errors for non-resource requests, which have no resourceAttributes
        { expression: "request.resourceAttributes.namespace != 'skip'" },
      ],
      ...overrides,
    },
  });
  const writeConfig = (authorizers: unknown[]) =>
    writeFileSync(configPath, YAML.stringify({ apiVersion: 'apiserver.config.platform.io/v1', kind: 'AuthorizationConfiguration', authorizers }));
  const metrics = async () => (await server.admin.get('/metrics', { headers: { Accept: 'text/plain' } })).text;
  const reloads = async (status: string) =>
    metricSample(await metrics(), `apiserver_authorization_config_controller_automatic_reloads_total{status="${status}",apiserver_id_hash="${APISERVER_ID_HASH}"}`) ?? 0;

  const identities = new Map<string, ReturnType<TestServer['certFor']>>();
  const as = (user: string) => {
    if (!identities.has(user)) identities.set(user, server.certFor(user, ['staff']));
    return { as: identities.get(user)! };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authz-config-e2e-'));
    webhook = await startTestWebhook((sar) => {
      const user = sar.spec.user as string;
      if (user === 'slow') return 'hang';
      if (user === 'alice') return reviewReply('v1beta1', { allowed: true });
      if (user === 'mallory') return reviewReply('v1beta1', { allowed: false, denied: true, reason: 'mallory is banned' });
      return reviewReply('v1beta1', { allowed: false });
    });
    kubeconfig = webhook.writeKubeconfig(dir);
    configPath = join(dir, 'authorization.yaml');
    writeConfig([gate(), { type: 'RBAC', name: 'rbac' }]);
    server = await startTestServer({ options: { authorizationConfigFile: configPath, authorizationConfigReloadIntervalMs: 300 } });
  });
  afterAll(async () => {
    await server?.close();
    await webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks the webhook with a v1beta1 review (groups in `group`) and follows it', async () => {
    expect((await server.anonymous.get(`${RBAC}/namespaces/ns1/roles`, as('alice'))).status).toBe(200);
    const sar = webhook.recorded[webhook.recorded.length - 1].body;
    expect(sar.apiVersion).toBe('authorization.platform.io/v1beta1');
    expect(sar.spec).toMatchObject({ user: 'alice', group: ['staff', 'system:authenticated'], resourceAttributes: { namespace: 'ns1', verb: 'list' } });
    const denied = await server.anonymous.get(`${RBAC}/namespaces/ns1/roles`, as('mallory'));
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/: mallory is banned$/);
  });

  it('skips the webhook when a match condition is false; the next authorizer (RBAC) decides', async () => {
    const before = webhook.recorded.length;
    const res = await server.anonymous.get(`${RBAC}/namespaces/skip/roles`, as('alice'));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(
      'roles.rbac.authorization.platform.io is forbidden: User "alice" cannot list resource "roles" in API group "rbac.authorization.platform.io" in the namespace "skip"',
    );
    expect((await server.anonymous.get('/metrics', { as: server.certFor('system:someone') })).status).toBe(403);
    expect(webhook.recorded.length).toBe(before);
  });

  it('applies the failure policy (Deny) when a match condition errs', async () => {
    const before = webhook.recorded.length;
    const res = await server.anonymous.get('/apis', as('alice'));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('forbidden: User "alice" cannot get path "/apis"');
    expect(webhook.recorded.length).toBe(before);
  });

  it('denies at the timeout (failurePolicy Deny) without waiting longer', async () => {
    as('slow');
    const started = Date.now();
    const res = await server.anonymous.get(`${RBAC}/namespaces/ns1/roles`, as('slow'));
    const took = Date.now() - started;
    expect(res.status).toBe(403);
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(3000);
  });

  it('reloads a changed file: reordering is allowed and takes effect', async () => {
    // mallory gets an RBAC grant; with the webhook first the webhook's deny still wins
    const binding = {
      apiVersion: 'rbac.authorization.platform.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'mallory-view', namespace: 'ns2' },
      roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'mallory-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.platform.io', kind: 'User', name: 'mallory' }],
    };
    const role = {
      apiVersion: 'rbac.authorization.platform.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'mallory-reader' },
      rules: [{ apiGroups: ['rbac.authorization.platform.io'], resources: ['roles'], verbs: ['list'] }],
    };
    expect((await server.admin.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns2' } })).status).toBe(201);
    expect((await server.admin.post(`${RBAC}/clusterroles`, role)).status).toBe(201);
    expect((await server.admin.post(`${RBAC}/namespaces/ns2/rolebindings`, binding)).status).toBe(201);
    expect((await server.anonymous.get(`${RBAC}/namespaces/ns2/roles`, as('mallory'))).status).toBe(403);

    const before = await reloads('success');
    writeConfig([{ type: 'RBAC', name: 'rbac' }, gate()]);
    await eventually(async () => expect(await reloads('success')).toBe(before + 1));
    await eventually(async () => expect((await server.anonymous.get(`${RBAC}/namespaces/ns2/roles`, as('mallory'))).status).toBe(200));
    // the webhook still answers for the rest
    expect((await server.anonymous.get(`${RBAC}/namespaces/ns1/roles`, as('alice'))).status).toBe(200);
  });

  it('refuses a reload that removes RBAC and keeps the configuration in force', async () => {
    const before = await reloads('failure');
    writeConfig([gate()]);
    await eventually(async () => expect(await reloads('failure')).toBe(before + 1));
    // still RBAC first: mallory's binding still applies
    expect((await server.anonymous.get(`${RBAC}/namespaces/ns2/roles`, as('mallory'))).status).toBe(200);
  });

  it('keeps the configuration in force when the file becomes invalid', async () => {
    const before = await reloads('failure');
    writeConfig([{ type: 'RBAC', name: 'rbac' }, gate({ timeout: '45s' })]);
    await eventually(async () => expect(await reloads('failure')).toBe(before + 1));
    writeFileSync(configPath, 'authorizers: [');
    await eventually(async () => expect(await reloads('failure')).toBe(before + 2));
    expect((await server.anonymous.get(`${RBAC}/namespaces/ns2/roles`, as('mallory'))).status).toBe(200);
    expect((await server.anonymous.get(`${RBAC}/namespaces/ns1/roles`, as('alice'))).status).toBe(200);
  });

  it('exposes reload, decision, webhook and match-condition metrics', async () => {
    const page = await metrics();
    expect(metricSample(page, `apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds{status="success",apiserver_id_hash="${APISERVER_ID_HASH}"}`)).toBeGreaterThan(
      Date.now() / 1000 - 120,
    );
    expect(metricSample(page, `apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds{status="failure",apiserver_id_hash="${APISERVER_ID_HASH}"}`)).toBeGreaterThan(
      Date.now() / 1000 - 120,
    );
    expect(metricSample(page, 'apiserver_authorization_decisions_total{type="Webhook",name="gate",decision="allowed"}')).toBeGreaterThanOrEqual(1);
    expect(metricSample(page, 'apiserver_authorization_decisions_total{type="Webhook",name="gate",decision="denied"}')).toBeGreaterThanOrEqual(2);
    expect(metricSample(page, 'apiserver_authorization_decisions_total{type="RBAC",name="rbac",decision="allowed"}')).toBeGreaterThanOrEqual(1);
    expect(metricSample(page, 'apiserver_authorization_webhook_evaluations_total{name="gate",result="timeout"}')).toBeGreaterThanOrEqual(1);
    expect(metricSample(page, 'apiserver_authorization_match_condition_exclusions_total{type="Webhook",name="gate"}')).toBeGreaterThanOrEqual(2);
    expect(metricSample(page, 'apiserver_authorization_match_condition_evaluation_errors_total{type="Webhook",name="gate"}')).toBeGreaterThanOrEqual(1);
    expect(page).toMatch(new RegExp(`^apiserver_authorization_config_controller_last_config_info\\{apiserver_id_hash="${APISERVER_ID_HASH}",hash="sha256:[0-9a-f]{64}"\\} 1$`, 'm'));
  });

  it('denies anonymous /metrics (no rule allows it)', async () => {
    const res = await server.anonymous.get('/metrics');
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('forbidden: User "system:anonymous" cannot get path "/metrics"');
  });
});

describe('the authorization configuration file at start', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'authz-config-start-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to start with an invalid file, with kube\'s message', async () => {
    const path = join(dir, 'bad.yaml');
    writeFileSync(
      path,
      YAML.stringify({ apiVersion: 'apiserver.config.platform.io/v1beta1', kind: 'AuthorizationConfiguration', authorizers: [{ type: 'RBAC', name: 'access' }] }),
    );
    await expect(startTestServer({ options: { authorizationConfigFile: path } })).rejects.toThrow('expected name rbac for authorizer RBAC instead of access');
  });

});
