import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlagError } from '../../src/config/flags';
import { defaultOptions } from '../../src/config/options';
import { startTestServer, TestServer } from '../support/test-server';
import { startTestWebhook, TestWebhook, tokenReviewReply } from '../support/webhook-server';

const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';

/** --authentication-token-webhook-version=v1beta1, a webhook that stops answering. */
describe('webhook token authentication, v1beta1', () => {
  let dir: string;
  let webhook: TestWebhook;
  let server: TestServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'token-webhook-v1beta1-e2e-'));
    webhook = await startTestWebhook((review) => {
      if (review.spec.token === 'tok-hang') return 'hang';
      return tokenReviewReply('v1beta1', { authenticated: true, user: { username: 'frank', groups: ['ops'] } });
    });
    server = await startTestServer({ options: { authenticationTokenWebhook: { configFile: webhook.writeKubeconfig(dir), version: 'v1beta1', cacheTtlMs: 120_000 } } });
  });
  afterAll(async () => {
    await server?.close();
    await webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const whoami = (token: string) => server.anonymous.post(SSR, { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' }, { as: { token } });

  it('sends and reads v1beta1 TokenReviews', async () => {
    const res = await whoami('tok-frank');
    expect(res.body.status.userInfo).toEqual({ username: 'frank', groups: ['ops', 'system:authenticated'] });
    expect(webhook.recorded[0].body).toMatchObject({ apiVersion: 'authentication.platform.io/v1beta1', kind: 'TokenReview', spec: { token: 'tok-frank' } });
  });

  it('a webhook that does not answer within 10 s refuses the token (401) while other requests go on', async () => {
    const started = Date.now();
    const hung = whoami('tok-hang');
    expect((await server.admin.get('/api/v1/namespaces')).status).toBe(200);
    expect((await whoami('tok-frank')).status).toBe(201);
    const res = await hung;
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_500);
  }, 30_000);
});

describe('token webhook and proxy start-up errors', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'token-webhook-flags-e2e-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const start = async (overrides: Parameters<typeof defaultOptions>[0]) => {
    const err = await startTestServer({ options: overrides }).then(
      async (started) => started.close(),
      (error: unknown) => error,
    );
    expect(err).toBeInstanceOf(FlagError);
    return (err as Error).message;
  };
  const webhookFile = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return { configFile: join(dir, name), version: 'v1' as const, cacheTtlMs: 1000 };
  };
  const proxy = (clientCaFile: string) => ({ ...defaultOptions().requestHeader, clientCaFile });

  it('stops the start with one line naming the flag', async () => {
    const missing = join(dir, 'none.kubeconfig');
    expect(await start({ authenticationTokenWebhook: { configFile: missing, version: 'v1', cacheTtlMs: 1000 } })).toBe(
      `--authentication-token-webhook-config-file: invalid configuration: cannot load kubeconfig ${missing}: open ${missing}: no such file or directory`,
    );
    expect(await start({ authenticationTokenWebhook: webhookFile('garbage.kubeconfig', 'clusters: [unclosed') })).toMatch(
      /^--authentication-token-webhook-config-file: invalid configuration: cannot load kubeconfig /,
    );
    expect(await start({ authenticationTokenWebhook: webhookFile('empty.kubeconfig', 'apiVersion: v1\nkind: Config\n') })).toBe(
      `--authentication-token-webhook-config-file: invalid configuration: no configuration has been provided in ${join(dir, 'empty.kubeconfig')}`,
    );
    expect(await start({ authenticationTokenWebhook: webhookFile('ftp.kubeconfig', 'clusters: [{name: c, cluster: {server: "ftp://hook"}}]\n') })).toBe(
      '--authentication-token-webhook-config-file: invalid configuration: server URL "ftp://hook" must use https or http',
    );
    writeFileSync(join(dir, 'not-a-ca.crt'), 'hello');
    expect(await start({ requestHeader: proxy(join(dir, 'not-a-ca.crt')) })).toBe(
      `--requestheader-client-ca-file: unable to load client CA file "${join(dir, 'not-a-ca.crt')}": data does not contain any valid RSA or ECDSA certificates`,
    );
    expect(await start({ requestHeader: proxy(join(dir, 'none.crt')) })).toMatch(/^--requestheader-client-ca-file: unable to load client CA file .*none\.crt/);
  });
});
