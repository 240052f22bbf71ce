import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestClock } from '../support/test-clock';
import { startTestServer, TestServer } from '../support/test-server';
import { metricSample, reviewReply, startTestWebhook, TestWebhook } from '../support/webhook-server';

const RBAC = '/apis/rbac.authorization.platform.io/v1';

/** `--authorization-mode=Webhook` with the `--authorization-webhook-*` flags. */
describe('webhook authorizer from flags', () => {
  let webhook: TestWebhook;
  let server: TestServer;
  let dir: string;
  const broken = { value: false };
  const clock = new TestClock();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-e2e-'));
    webhook = await startTestWebhook((sar) => {
      if (broken.value) return { status: 500, body: { message: 'down' } };
      const user = sar.spec.user as string;
      if (user === 'alice') return reviewReply('v1', { allowed: true, reason: 'alice may' });
      if (user === 'mallory') return reviewReply('v1', { allowed: false, denied: true, reason: 'mallory is banned' });
      if (user === 'both') return reviewReply('v1', { allowed: true, denied: true });
      return reviewReply('v1', { allowed: false, reason: 'not my call' });
    });
    server = await startTestServer({
      options: {
        authorizationModes: ['Webhook'],
        authorizationWebhook: {
          configFile: webhook.writeKubeconfig(dir),
          version: 'v1',
          cacheAuthorizedTTLMs: 5 * 60_000,
          cacheUnauthorizedTTLMs: 30_000,
        },
      },
      clock,
    });
  });
  afterAll(async () => {
    await server?.close();
    await webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Issuing a certificate takes a while: one per user.
  const identities = new Map<string, ReturnType<TestServer['certFor']>>();
  const as = (user: string, groups: string[] = []) => {
    const key = `${user}/${groups.join(',')}`;
    if (!identities.has(key)) identities.set(key, server.certFor(user, groups));
    return { as: identities.get(key)! };
  };

  it('asks the webhook with a v1 SubjectAccessReview and follows its allow', async () => {
    const res = await server.anonymous.get(`${RBAC}/namespaces/ns1/roles?limit=5`, as('alice', ['dev']));
    expect(res.status).toBe(200);
    const last = webhook.recorded[webhook.recorded.length - 1];
    expect(last.authorization).toBe('Bearer webhook-token');
    expect(last.body).toEqual({
      kind: 'SubjectAccessReview',
      apiVersion: 'authorization.platform.io/v1',
      metadata: { creationTimestamp: null },
      spec: {
        resourceAttributes: { namespace: 'ns1', verb: 'list', group: 'rbac.authorization.platform.io', version: 'v1', resource: 'roles' },
        user: 'alice',
        groups: ['dev', 'system:authenticated'],
      },
      status: { allowed: false },
    });
  });

  it('denies with the webhook reason in kube\'s Forbidden message', async () => {
    const res = await server.anonymous.get(`${RBAC}/clusterroles/view`, as('mallory'));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message:
        'clusterroles.rbac.authorization.platform.io "view" is forbidden: User "mallory" cannot get resource "clusterroles" in API group "rbac.authorization.platform.io" at the cluster scope: mallory is banned',
    });
    expect((await server.anonymous.get(`${RBAC}/clusterroles`, as('both'))).status).toBe(403);
  });

  it('treats allowed=false without denied as no opinion (the chain then denies)', async () => {
    const res = await server.anonymous.get('/apis', as('carol'));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('forbidden: User "carol" cannot get path "/apis": not my call');
    const sar = webhook.recorded[webhook.recorded.length - 1].body;
    expect(sar.spec.nonResourceAttributes).toEqual({ path: '/apis', verb: 'get' });
  });

  it('caches allow answers for the authorized TTL and other answers for the unauthorized TTL', async () => {
    const path = `${RBAC}/namespaces/cache/rolebindings`;
    const asked = () => webhook.recorded.filter((r) => r.body.spec.resourceAttributes?.namespace === 'cache').length;
    expect((await server.anonymous.get(path, as('alice'))).status).toBe(200);
    expect((await server.anonymous.get(path, as('alice'))).status).toBe(200);
    expect((await server.anonymous.get(path, as('mallory'))).status).toBe(403);
    expect((await server.anonymous.get(path, as('mallory'))).status).toBe(403);
    expect(asked()).toBe(2);
    // Past the unauthorized TTL (30 s) the deny is asked again ...
    clock.advance(30_000);
    expect((await server.anonymous.get(path, as('mallory'))).status).toBe(403);
    expect(asked()).toBe(3);
    // ... while the allow, within its TTL (5 min), is still answered from the cache.
    expect((await server.anonymous.get(path, as('alice'))).status).toBe(200);
    expect(asked()).toBe(3);
    // Past the authorized TTL the allow is asked again.
    clock.advance(5 * 60_000 - 30_000);
    expect((await server.anonymous.get(path, as('alice'))).status).toBe(200);
    expect(asked()).toBe(4);
  });

  it('has no opinion when the webhook fails (kube fails open from flags): the chain denies', async () => {
    broken.value = true;
    const before = webhook.recorded.length;
    try {
      const res = await server.anonymous.get(`${RBAC}/namespaces/down/roles`, as('alice'));
      // a 500 is transient for kube: five tries with backoff before giving up
      expect(webhook.recorded.length - before).toBe(5);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(
        'roles.rbac.authorization.platform.io is forbidden: User "alice" cannot list resource "roles" in API group "rbac.authorization.platform.io" in the namespace "down"',
      );
    } finally {
      broken.value = false;
    }
  });

  it('counts decisions and webhook calls in /metrics', async () => {
    const res = await server.admin.get('/metrics', { headers: { Accept: 'text/plain' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const value = (series: string) => metricSample(res.text, series);
    expect(value('apiserver_authorization_decisions_total{type="Webhook",name="webhook",decision="allowed"}')).toBeGreaterThanOrEqual(4);
    expect(value('apiserver_authorization_decisions_total{type="Webhook",name="webhook",decision="denied"}')).toBeGreaterThanOrEqual(2);
    expect(value('apiserver_authorization_webhook_evaluations_total{name="webhook",result="success"}')).toBeGreaterThanOrEqual(5);
    expect(value('apiserver_authorization_webhook_evaluations_total{name="webhook",result="error"}')).toBeGreaterThanOrEqual(1);
    expect(value('apiserver_authorization_webhook_evaluations_fail_open_total{name="webhook",result="error"}')).toBeGreaterThanOrEqual(1);
    expect(res.text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(res.text).toMatch(/^nodejs_heap_size_total_bytes \d/m);
  });

  it('authorizes /metrics as the non-resource path it is', async () => {
    const res = await server.anonymous.get('/metrics');
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('forbidden: User "system:anonymous" cannot get path "/metrics": not my call');
    expect((await server.anonymous.get('/metrics', as('alice'))).status).toBe(200);
  });
});
