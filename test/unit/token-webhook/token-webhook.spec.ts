import { Logger } from '@nestjs/common';
import type { AuthenticationInfo, CredentialRequest } from '../../../src/authentication/strategy/authentication-strategy';
import { parseTokenReviewResponse, tokenReviewBody } from '../../../src/authentication/token-webhook/token-review';
import { TokenWebhookStrategy } from '../../../src/authentication/token-webhook/token-webhook.strategy';
import { WebhookCallError } from '../../../src/webhook-client/webhook-transport';

const review = (status: unknown, version = 'v1') => JSON.stringify({ apiVersion: `authentication.platform.io/${version}`, kind: 'TokenReview', status });

describe('TokenReview wire format', () => {
  it('sends the token and the audiences, as kube serialises a new review', () => {
    expect(tokenReviewBody('t0k', ['api'], 'v1beta1')).toEqual({
      kind: 'TokenReview',
      apiVersion: 'authentication.platform.io/v1beta1',
      metadata: { creationTimestamp: null },
      spec: { token: 't0k', audiences: ['api'] },
      status: { user: {} },
    });
    expect(tokenReviewBody('t0k', [], 'v1')).toMatchObject({ spec: { token: 't0k' } });
  });

  it('maps status.user (username, uid, groups, extra) and status.audiences', () => {
    const status = parseTokenReviewResponse(
      review({ authenticated: true, user: { username: 'alice', uid: 'u-1', groups: ['dev'], extra: { 'example.org/team': ['a', 'b'] } }, audiences: ['api'] }),
      'v1',
    );
    expect(status).toEqual({ authenticated: true, audiences: ['api'], user: { username: 'alice', uid: 'u-1', groups: ['dev'], extra: { 'example.org/team': ['a', 'b'] } } });
  });

  it('an unauthenticated answer carries no user, and its error', () => {
    expect(parseTokenReviewResponse(review({ authenticated: false, error: 'expired', user: { username: 'x' } }), 'v1')).toEqual({ authenticated: false, audiences: [], error: 'expired' });
    expect(parseTokenReviewResponse(review({}, 'v1beta1'), 'v1beta1')).toEqual({ authenticated: false, audiences: [] });
  });

  it.each([
    ['not json', /json parse error: the webhook's answer is not JSON$/],
    ['[]', /not a JSON object/],
    [JSON.stringify({ apiVersion: 'authentication.platform.io/v1', status: {} }), /Object 'Kind' is missing/],
    [JSON.stringify({ kind: 'TokenReview', status: {} }), /Object 'apiVersion' is missing/],
    [review({ authenticated: true }, 'v1beta1'), /no kind "TokenReview" is registered for version "authentication.platform.io\/v1beta1"; expected TokenReview authentication.platform.io\/v1/],
    [review({ authenticated: 'yes' }), /cannot unmarshal string into Go struct field TokenReviewStatus.status.authenticated of type bool/],
    [review({ authenticated: true, user: { username: 7 } }), /cannot unmarshal number into Go struct field TokenReviewStatus.status.user.username of type string/],
    [review({ authenticated: true, user: { groups: 'dev' } }), /of type \[\]string/],
    [review({ authenticated: true, user: { extra: { k: [1] } } }), /cannot unmarshal number/],
    [review({ authenticated: true, audiences: 'api' }), /status.audiences of type \[\]string/],
    [review([]), /cannot unmarshal array/],
  ])('refuses the malformed answer %s', (body, message) => {
    expect(() => parseTokenReviewResponse(body, 'v1')).toThrow(message);
  });
});

/** A transport that answers from a script and counts the calls. */
class ScriptedTransport {
  calls: any[] = [];
  constructor(public answer: string | Error) {}
  async post<T>(body: string, _timeoutMs: number, decode: (text: string) => T): Promise<T> {
    this.calls.push(JSON.parse(body));
    if (this.answer instanceof Error) throw this.answer;
    return decode(this.answer);
  }
  close() {}
}

type Outcome = { kind: 'success'; user: any; audiences?: string[] } | { kind: 'fail'; message: string } | { kind: 'pass' };

function run(strategy: TokenWebhookStrategy, token: string | undefined, audiences?: string[]): Promise<Outcome> {
  const req = { headers: token ? { authorization: `Bearer ${token}` } : {}, headersDistinct: {}, audiences } as unknown as CredentialRequest;
  return new Promise((resolve, reject) => {
    const s = Object.create(strategy) as Record<string, unknown> & { authenticate(req: CredentialRequest): void };
    s.success = (user: unknown, info?: AuthenticationInfo) => resolve({ kind: 'success', user, audiences: info?.audiences });
    s.fail = (message: string) => resolve({ kind: 'fail', message });
    s.pass = () => resolve({ kind: 'pass' });
    s.error = reject;
    s.authenticate(req);
  });
}

describe('webhook token strategy', () => {
  let now = 1_000_000;
  const strategy = (transport: ScriptedTransport, ttl = 120_000) =>
    new TokenWebhookStrategy({ transport, version: 'v1', cacheTtlMs: ttl, apiAudiences: ['https://api'], clock: { now: () => now } });

  beforeAll(() => Logger.overrideLogger(false));

  it('passes without a bearer token', async () => {
    const transport = new ScriptedTransport(review({ authenticated: true }));
    expect(await run(strategy(transport), undefined)).toEqual({ kind: 'pass' });
    expect(transport.calls).toHaveLength(0);
  });

  it('asks for the API audiences, accepts the user, and reuses the answer for the TTL only', async () => {
    const transport = new ScriptedTransport(review({ authenticated: true, user: { username: 'alice', groups: ['dev'] } }));
    const s = strategy(transport, 60_000);
    expect(await run(s, 'tok-1')).toEqual({ kind: 'success', user: { username: 'alice', groups: ['dev'] }, audiences: ['https://api'] });
    expect(transport.calls[0].spec).toEqual({ token: 'tok-1', audiences: ['https://api'] });
    expect(await run(s, 'tok-1')).toMatchObject({ kind: 'success' });
    expect(transport.calls).toHaveLength(1);
    now += 60_001;
    expect(await run(s, 'tok-1')).toMatchObject({ kind: 'success' });
    expect(transport.calls).toHaveLength(2);
  });

  it('caches refusals too, separately per audience set', async () => {
    const transport = new ScriptedTransport(review({ authenticated: false }));
    const s = strategy(transport);
    expect(await run(s, 'tok-2')).toMatchObject({ kind: 'fail' });
    expect(await run(s, 'tok-2')).toMatchObject({ kind: 'fail' });
    expect(transport.calls).toHaveLength(1);
    await run(s, 'tok-2', ['other']);
    expect(transport.calls).toHaveLength(2);
  });

  it('grants the requested audiences the answer names; none in common is a refusal', async () => {
    const transport = new ScriptedTransport(review({ authenticated: true, user: { username: 'bob' }, audiences: ['a', 'b'] }));
    const s = strategy(transport);
    expect(await run(s, 'tok-3', ['b', 'c'])).toMatchObject({ kind: 'success', audiences: ['b'] });
    expect(await run(s, 'tok-3', ['c'])).toMatchObject({ kind: 'fail' });
    // Without audiences in the answer, the API's own are assumed.
    transport.answer = review({ authenticated: true, user: { username: 'bob' } });
    expect(await run(s, 'tok-4', ['c'])).toMatchObject({ kind: 'fail' });
    expect(await run(s, 'tok-4', ['https://api'])).toMatchObject({ kind: 'success', audiences: ['https://api'] });
  });

  it('a failed call or a stated error refuses for this request only (not cached)', async () => {
    const transport = new ScriptedTransport(new WebhookCallError('Post "https://hook": context deadline exceeded', 'timeout', false));
    const s = strategy(transport);
    expect(await run(s, 'tok-5')).toEqual({ kind: 'fail', message: 'Post "https://hook": context deadline exceeded' });
    transport.answer = review({ authenticated: false, error: 'backend down' });
    expect(await run(s, 'tok-5')).toEqual({ kind: 'fail', message: 'backend down' });
    transport.answer = review({ authenticated: true, user: { username: 'carol' } });
    expect(await run(s, 'tok-5')).toMatchObject({ kind: 'success', user: { username: 'carol' } });
    expect(transport.calls).toHaveLength(3);
  });
});
