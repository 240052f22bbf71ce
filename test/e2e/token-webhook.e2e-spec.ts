import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as YAML from 'yaml';
import { kubectlWith } from '../support/kubectl';
import { TestClock } from '../support/test-clock';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';
import { startTestWebhook, TestWebhook, tokenReviewReply, WebhookReply } from '../support/webhook-server';

const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const TOKEN_REVIEWS = '/apis/authentication.platform.io/v1/tokenreviews';
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
const ALICE = { username: 'alice', uid: 'uid-alice', groups: ['dev'], extra: { 'example.org/team': ['blue'] } };

/** --authentication-token-webhook-*: bearer tokens reviewed by a remote service, v1 TokenReviews. */
describe('webhook token authentication', () => {
  let dir: string;
  let webhook: TestWebhook;
  let server: TestServer;
  const outage = { value: false };
  const clock = new TestClock();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'token-webhook-e2e-'));
    webhook = await startTestWebhook((review): WebhookReply => {
      if (outage.value) return { status: 503, body: { kind: 'Status', message: 'token service down' } };
      switch (review.spec.token as string) {
        case 'tok-alice':
        case 'tok-kubectl':
          return tokenReviewReply('v1', { authenticated: true, user: ALICE });
        case 'tok-ttl':
          return tokenReviewReply('v1', { authenticated: true, user: { username: 'ttl-user' } });
        case 'tok-other-audience':
          return tokenReviewReply('v1', { authenticated: true, user: { username: 'dave' }, audiences: ['other-api'] });
        case 'tok-error':
          return tokenReviewReply('v1', { authenticated: false, error: 'backend says no' });
        case 'tok-wrong-version':
          return tokenReviewReply('v1beta1', { authenticated: true, user: { username: 'eve' } });
        case 'tok-bad-user':
          return tokenReviewReply('v1', { authenticated: true, user: { username: 'eve', groups: 'admins' } });
        case 'tok-not-an-object':
          return { status: 200, body: 'authenticated' };
        default:
          return tokenReviewReply('v1', { authenticated: false });
      }
    });
    server = await startTestServer({
      options: {
        authenticationTokenWebhook: { configFile: webhook.writeKubeconfig(dir), version: 'v1', cacheTtlMs: 120_000 },
        tokenAuthFile: writeTokenFile(dir, ['static-token,static-user,uid-s']),
        // The union's own short cache off, so the webhook's cache alone decides the calls.
        tokenCacheTtlMs: 0,
      },
      clock,
    });
  });
  afterAll(async () => {
    await server?.close();
    await webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const calls = (token: string) => webhook.recorded.filter((r) => r.body.spec.token === token).length;
  const whoami = (token: string) => server.anonymous.post(SSR, { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' }, { as: { token } });

  it('sends a v1 TokenReview with the API audiences and maps status.user', async () => {
    const res = await whoami('tok-alice');
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo).toEqual({ ...ALICE, groups: ['dev', 'system:authenticated'] });
    const sent = webhook.recorded.find((r) => r.body.spec.token === 'tok-alice')!;
    expect(sent.authorization).toBe('Bearer webhook-token');
    expect(sent.body).toEqual({
      kind: 'TokenReview',
      apiVersion: 'authentication.platform.io/v1',
      metadata: { creationTimestamp: null },
      spec: { token: 'tok-alice', audiences: [server.url] },
      status: { user: {} },
    });
  });

  it('reuses answers (accepted and refused) from its cache, and asks again after the TTL', async () => {
    expect((await whoami('tok-ttl')).status).toBe(201);
    expect((await whoami('tok-ttl')).status).toBe(201);
    expect(calls('tok-ttl')).toBe(1);
    expect((await whoami('tok-unknown')).status).toBe(401);
    expect((await whoami('tok-unknown')).status).toBe(401);
    expect(calls('tok-unknown')).toBe(1);
    clock.advance(120_000);
    expect((await whoami('tok-ttl')).status).toBe(201);
    expect(calls('tok-ttl')).toBe(2);
  });

  it('checks audiences: a token for another audience is refused by the API and granted to a TokenReview asking for it', async () => {
    expect((await whoami('tok-other-audience')).body).toEqual(UNAUTHORIZED);
    const asked = await server.admin.post(TOKEN_REVIEWS, { apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', spec: { token: 'tok-other-audience', audiences: ['other-api', 'third'] } });
    expect(asked.status).toBe(201);
    expect(asked.body.status).toEqual({ authenticated: true, user: { username: 'dave', groups: ['system:authenticated'] }, audiences: ['other-api'] });
    const sent = webhook.recorded.filter((r) => r.body.spec.token === 'tok-other-audience').map((r) => r.body.spec.audiences);
    expect(sent).toEqual([[server.url], ['other-api', 'third']]);
  });

  it('TokenReviews of our API consult the webhook with the API audiences by default', async () => {
    const res = await server.admin.post(TOKEN_REVIEWS, { apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', spec: { token: 'tok-alice' } });
    expect(res.body.status).toEqual({ authenticated: true, user: { ...ALICE, groups: ['dev', 'system:authenticated'] }, audiences: [server.url] });
  });

  it.each(['tok-error', 'tok-wrong-version', 'tok-bad-user', 'tok-not-an-object'])('refuses %s (a stated error or a malformed answer) with 401', async (token) => {
    const res = await whoami(token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('in an outage refuses webhook tokens with 401, logs without the token, and other methods keep working', async () => {
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: any[]) => {
      lines.push(String(chunk));
      return write(chunk, ...rest);
    });
    outage.value = true;
    try {
      expect((await whoami('tok-outage-secret')).body).toEqual(UNAUTHORIZED);
      expect((await whoami('static-token')).body.status.userInfo.username).toBe('static-user');
      expect((await server.admin.get('/api/v1/namespaces')).status).toBe(200);
    } finally {
      outage.value = false;
      spy.mockRestore();
    }
    const logged = lines.join('');
    expect(logged).toContain('Failed to make webhook authenticator request: token service down');
    expect(logged).not.toContain('tok-outage-secret');
    // A failure is not cached: once the service is back, the token is reviewed again.
    webhook.recorded.length = 0;
    expect((await whoami('tok-outage-secret')).status).toBe(401);
    expect(calls('tok-outage-secret')).toBe(1);
  });

  it('kubectl --token=... auth whoami goes through the webhook', async () => {
    const config = YAML.parse(require('node:fs').readFileSync(server.kubeconfigPath, 'utf8'));
    config.users = [{ name: 'nobody', user: {} }];
    config.contexts = [{ name: 'plain', context: { cluster: config.clusters[0].name, user: 'nobody' } }];
    config['current-context'] = 'plain';
    const path = join(dir, 'plain.kubeconfig');
    writeFileSync(path, YAML.stringify(config), { mode: 0o600 });
    const { stdout } = await kubectlWith(path, dir)('--token=tok-kubectl', 'auth', 'whoami', '-o', 'json');
    expect(JSON.parse(stdout).status.userInfo).toEqual({ ...ALICE, groups: ['dev', 'system:authenticated'] });
  });
});
