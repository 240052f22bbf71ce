import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerOptions } from '../../src/config/options';
import { eventually } from '../support/eventually';
import { ClientIdentity } from '../support/https-client';
import { startTestServer, TestServer } from '../support/test-server';
import { metricSample, reviewReply, startTestWebhook, TestWebhook, WebhookReply } from '../support/webhook-server';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });

/**
 * An authorization webhook that allows everyone, but holds the reviews of users named
 * `held-*` until the test releases them: their requests stay in flight, past authentication
 * and the in-flight limit, for as long as the test needs.
 */
class HoldingWebhook {
  private readonly held: Array<() => void> = [];
  webhook!: TestWebhook;

  async start(): Promise<void> {
    this.webhook = await startTestWebhook((review): WebhookReply | Promise<WebhookReply> => {
      const allow = reviewReply('v1', { allowed: true });
      if (!String(review.spec.user).startsWith('held-')) return allow;
      return new Promise((resolve) => this.held.push(() => resolve(allow)));
    });
  }

  /** Reviews waiting for their answer. */
  get holding(): number {
    return this.held.length;
  }

  releaseAll(): void {
    for (const release of this.held.splice(0)) release();
  }

  options(dir: string): Partial<ServerOptions> {
    return {
      authorizationModes: ['Node', 'RBAC', 'Webhook'],
      // Nothing cached: every request not allowed by RBAC asks the webhook.
      authorizationWebhook: { configFile: this.webhook.writeKubeconfig(dir), version: 'v1', cacheAuthorizedTTLMs: 0, cacheUnauthorizedTTLMs: 0 },
    };
  }
}

/** Serves requests and watches with the limits given, behind a webhook that can hold requests in flight. */
async function serverBehindWebhook(options: Partial<ServerOptions>): Promise<{ server: TestServer; hold: HoldingWebhook; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'limits-e2e-'));
  const hold = new HoldingWebhook();
  await hold.start();
  const server = await startTestServer({ options: { ...hold.options(dir), ...options } });
  return {
    server,
    hold,
    async close() {
      hold.releaseAll();
      await server.close();
      await hold.webhook.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('--max-requests-inflight and --max-mutating-requests-inflight', () => {
  let server: TestServer;
  let hold: HoldingWebhook;
  let close: () => Promise<void>;
  const identities = new Map<string, ClientIdentity>();
  const as = (user: string) => {
    if (!identities.has(user)) identities.set(user, server.certFor(user));
    return { as: identities.get(user)! };
  };

  beforeAll(async () => {
    ({ server, hold, close } = await serverBehindWebhook({ maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1 }));
  });
  afterAll(() => close?.());

  it("refuses reads and writes beyond their limits with kube's 429, exempting watches, health probes and system:masters", async () => {
    // One read and one write, held at authorization: both limits are reached.
    const heldRead = server.anonymous.get(CONFIGMAPS, as('held-reader'));
    const heldWrite = server.anonymous.post(CONFIGMAPS, configMap('held-write'), as('held-writer'));
    await eventually(() => expect(hold.holding).toBe(2));

    const tooMany = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Too many requests, please try again later.',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
      code: 429,
    };
    const read = await server.anonymous.get(CONFIGMAPS, as('reader'));
    expect(read.status).toBe(429);
    expect(read.headers['retry-after']).toBe('1');
    expect(read.body).toEqual(tooMany);
    const nonResourceRead = await server.anonymous.get('/api', as('reader'));
    expect(nonResourceRead.status).toBe(429);
    const write = await server.anonymous.post(CONFIGMAPS, configMap('refused'), as('writer'));
    expect(write.status).toBe(429);
    expect(write.body).toEqual(tooMany);

    // Not counted, never refused.
    const watch = await server.anonymous.stream(`${CONFIGMAPS}?watch=true&timeoutSeconds=30`, as('reader').as);
    expect(watch.status).toBe(200);
    watch.close();
    expect((await server.anonymous.get('/healthz')).status).toBe(200);
    expect((await server.anonymous.get('/readyz')).status).toBe(200);
    expect((await server.admin.get(CONFIGMAPS)).status).toBe(200);
    expect((await server.admin.post(CONFIGMAPS, configMap('by-admin'))).status).toBe(201);

    const metrics = (await server.admin.get('/metrics')).text;
    expect(metrics).toContain("# HELP apiserver_dropped_requests_total [ALPHA] Number of requests dropped with 'Try again later' response");
    expect(metricSample(metrics, 'apiserver_dropped_requests_total{request_kind="readOnly"}')).toBeGreaterThanOrEqual(2);
    expect(metricSample(metrics, 'apiserver_dropped_requests_total{request_kind="mutating"}')).toBeGreaterThanOrEqual(1);
    expect(metricSample(metrics, 'apiserver_current_inflight_requests{request_kind="readOnly"}')).toBeGreaterThanOrEqual(1);
    expect(metricSample(metrics, 'apiserver_current_inflight_requests{request_kind="mutating"}')).toBeGreaterThanOrEqual(1);
    expect(
      metricSample(metrics, 'apiserver_request_total{verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="429"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      metricSample(metrics, 'apiserver_request_terminations_total{verb="POST",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="429"}'),
    ).toBeGreaterThanOrEqual(1);

    // Released, the held requests finish and their places are free again.
    hold.releaseAll();
    expect((await heldRead).status).toBe(200);
    expect((await heldWrite).status).toBe(201);
    await eventually(async () => expect((await server.anonymous.get(CONFIGMAPS, as('reader'))).status).toBe(200));
    expect((await server.anonymous.post(CONFIGMAPS, configMap('now-allowed'), as('writer'))).status).toBe(201);
  });
});

describe('--request-timeout, ?timeout= and --min-request-timeout', () => {
  const REQUEST_TIMEOUT_MS = 3000;
  let server: TestServer;
  let hold: HoldingWebhook;
  let close: () => Promise<void>;
  const identities = new Map<string, ClientIdentity>();
  const as = (user: string) => {
    if (!identities.has(user)) identities.set(user, server.certFor(user));
    return { as: identities.get(user)! };
  };
  const timedOut = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Timeout: request did not complete within the allotted timeout',
    reason: 'Timeout',
    details: {},
    code: 504,
  };

  beforeAll(async () => {
    ({ server, hold, close } = await serverBehindWebhook({ requestTimeoutMs: REQUEST_TIMEOUT_MS, minRequestTimeoutSeconds: 1 }));
  });
  afterAll(() => close?.());

  /** Runs a request and says how long it took. */
  async function timed<T>(request: Promise<T>): Promise<{ answer: T; ms: number }> {
    const started = Date.now();
    const answer = await request;
    return { answer, ms: Date.now() - started };
  }

  it("answers kube's 504 Timeout for a request still held after --request-timeout, and the held write never lands", async () => {
    const { answer, ms } = await timed(server.anonymous.post(CONFIGMAPS, configMap('late-write'), as('held-writer')));
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual(timedOut);
    expect(ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    // Allowed only now: the request's work goes on, but past its deadline it writes nothing
    // (kube's storage calls carry the request's context). A write started after the release
    // lands behind anything the released one would have written.
    hold.releaseAll();
    expect((await server.anonymous.post(CONFIGMAPS, configMap('after-release'), as('writer'))).status).toBe(201);
    expect((await server.admin.get(`${CONFIGMAPS}/late-write`)).status).toBe(404);
    expect((await server.admin.get(`${CONFIGMAPS}/after-release`)).status).toBe(200);

    const metrics = (await server.admin.get('/metrics')).text;
    expect(
      metricSample(metrics, 'apiserver_request_total{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="504"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      metricSample(metrics, 'apiserver_request_terminations_total{verb="POST",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="504"}'),
    ).toBeGreaterThanOrEqual(1);
  });

  it('takes a shorter ?timeout=, caps a longer one at --request-timeout, and refuses a bad one with 400 before authentication', async () => {
    const [short, long] = await Promise.all([
      timed(server.anonymous.get(`${CONFIGMAPS}?timeout=200ms`, as('held-reader'))),
      timed(server.anonymous.get(`${CONFIGMAPS}?timeout=1h`, as('held-reader'))),
    ]);
    expect(short.answer.status).toBe(504);
    expect(short.answer.body).toEqual(timedOut);
    expect(short.ms).toBeLessThan(REQUEST_TIMEOUT_MS - 500);
    expect(long.answer.status).toBe(504);
    expect(long.ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    hold.releaseAll();

    // A bad token is 401, unless the timeout is bad: that is checked first, as kube's filters run.
    expect((await server.anonymous.get(CONFIGMAPS, { as: { token: 'no-such-token' } })).status).toBe(401);
    const bad = await server.anonymous.get(`${CONFIGMAPS}?timeout=10`, { as: { token: 'no-such-token' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message: 'invalid timeout specified in the request URL - time: missing unit in duration "10"' });
    expect((await server.admin.get(`${CONFIGMAPS}?timeout=0s`)).status).toBe(200);
  });

  it('lets a watch outlive --request-timeout, and ends one without timeoutSeconds between --min-request-timeout and twice it', async () => {
    const long = await server.admin.stream(`${CONFIGMAPS}?watch=true&timeoutSeconds=30`);
    // A held request timing out tells the request timeout has passed, with the watch still open.
    expect((await server.anonymous.get(CONFIGMAPS, as('held-reader'))).status).toBe(504);
    hold.releaseAll();
    expect((await server.admin.post(CONFIGMAPS, configMap('seen-by-watch'))).status).toBe(201);
    await eventually(() => expect(long.events.map((e) => e.object?.metadata?.name)).toContain('seen-by-watch'));
    long.close();

    const started = Date.now();
    const watches = await Promise.all([server.admin.stream(`${CONFIGMAPS}?watch=true`), server.admin.stream(`${CONFIGMAPS}?watch=true&timeoutSeconds=0`)]);
    const lasted = await Promise.all(watches.map((w) => w.ended.then(() => Date.now() - started)));
    for (const ms of lasted) {
      expect(ms).toBeGreaterThanOrEqual(990);
      // Twice the minimum, and room for a loaded machine.
      expect(ms).toBeLessThan(3000);
    }
  });
});
