import { Logger } from '@nestjs/common';
import { AuthorizationAttributes } from '../../../src/authorization/authorizer';
import { MatchConditions } from '../../../src/authorization/webhook/match-conditions';
import { SubjectAccessReviewSpec, SubjectAccessReviewStatus } from '../../../src/authorization/webhook/subject-access-review';
import { WebhookAuthorizer, WebhookAuthorizerOptions } from '../../../src/authorization/webhook/webhook-authorizer';

const attrs = (overrides: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  user: { username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { 'example.org/team': ['a'] } },
  verb: 'get',
  isResourceRequest: true,
  path: '/api/v1/namespaces/ns/pods/p',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  namespace: 'ns',
  name: 'p',
  ...overrides,
});

/** A reviewer that answers from a script and records the specs it was asked. */
class ScriptedReviewer {
  readonly asked: SubjectAccessReviewSpec[] = [];
  constructor(public answer: SubjectAccessReviewStatus | Error) {}
  async review(spec: SubjectAccessReviewSpec): Promise<SubjectAccessReviewStatus> {
    this.asked.push(spec);
    if (this.answer instanceof Error) throw this.answer;
    return this.answer;
  }
}

function authorizer(reviewer: ScriptedReviewer, overrides: Partial<WebhookAuthorizerOptions> = {}) {
  return new WebhookAuthorizer({ name: 'w', reviewer, authorizedTTLMs: 300_000, unauthorizedTTLMs: 30_000, failurePolicy: 'NoOpinion', ...overrides });
}

beforeAll(() => Logger.overrideLogger(false));

describe('webhook decisions', () => {
  it.each([
    [{ allowed: true, reason: 'ok by policy' }, { decision: 'Allow', reason: 'ok by policy' }],
    [{ allowed: false, denied: true, reason: 'no way' }, { decision: 'Deny', reason: 'no way' }],
    [{ allowed: false, reason: 'not mine' }, { decision: 'NoOpinion', reason: 'not mine' }],
    [
      { allowed: true, denied: true, reason: 'confused' },
      { decision: 'Deny', reason: 'confused', evaluationError: 'webhook subject access review returned both allow and deny response' },
    ],
  ])('maps %j to %j', async (status, expected) => {
    expect(await authorizer(new ScriptedReviewer(status)).authorize(attrs())).toEqual(expected);
  });

  it('asks about the request: user, groups, uid, extra and resource or non-resource attributes', async () => {
    const reviewer = new ScriptedReviewer({ allowed: true });
    const w = authorizer(reviewer);
    await w.authorize(attrs());
    await w.authorize(attrs({ isResourceRequest: false, path: '/metrics', verb: 'get', resource: '', namespace: '', name: '', apiVersion: '' }));
    expect(reviewer.asked[0]).toEqual({
      user: 'alice',
      uid: 'u-1',
      groups: ['dev', 'system:authenticated'],
      extra: { 'example.org/team': ['a'] },
      resourceAttributes: { namespace: 'ns', verb: 'get', group: '', version: 'v1', resource: 'pods', subresource: '', name: 'p' },
    });
    expect(reviewer.asked[1].nonResourceAttributes).toEqual({ path: '/metrics', verb: 'get' });
    expect(reviewer.asked[1].resourceAttributes).toBeUndefined();
  });

  it('cannot list rules', () => {
    expect(authorizer(new ScriptedReviewer({ allowed: true })).rulesFor()).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: 'webhook authorizer does not support user rule resolution',
    });
  });
});

describe('the answer cache (fake clock)', () => {
  let now = 0;
  const clock = { now: () => now };
  beforeEach(() => (now = 1_000_000));

  it('keeps allow answers for authorizedTTL and others for unauthorizedTTL', async () => {
    const reviewer = new ScriptedReviewer({ allowed: true });
    const w = authorizer(reviewer, { clock, authorizedTTLMs: 300_000, unauthorizedTTLMs: 30_000 });
    await w.authorize(attrs());
    now += 299_000;
    expect((await w.authorize(attrs())).decision).toBe('Allow');
    expect(reviewer.asked).toHaveLength(1);
    now += 2000;
    await w.authorize(attrs());
    expect(reviewer.asked).toHaveLength(2);

    reviewer.answer = { allowed: false, denied: true };
    const other = attrs({ name: 'q' });
    await w.authorize(other);
    now += 29_000;
    expect((await w.authorize(other)).decision).toBe('Deny');
    expect(reviewer.asked).toHaveLength(3);
    now += 2000;
    await w.authorize(other);
    expect(reviewer.asked).toHaveLength(4);
  });

  it('keys answers by the whole review: another user, verb or name is asked again', async () => {
    const reviewer = new ScriptedReviewer({ allowed: true });
    const w = authorizer(reviewer, { clock });
    await w.authorize(attrs());
    await w.authorize(attrs({ verb: 'delete' }));
    await w.authorize(attrs({ user: { username: 'bob', groups: [] } }));
    await w.authorize(attrs());
    expect(reviewer.asked).toHaveLength(3);
  });

  it('caches nothing with a zero TTL, and never caches failures', async () => {
    const reviewer = new ScriptedReviewer({ allowed: true });
    const w = authorizer(reviewer, { clock, authorizedTTLMs: 0 });
    await w.authorize(attrs());
    await w.authorize(attrs());
    expect(reviewer.asked).toHaveLength(2);
    const failing = new ScriptedReviewer(new Error('Post "https://x": connection refused'));
    const f = authorizer(failing, { clock });
    await f.authorize(attrs());
    await f.authorize(attrs());
    expect(failing.asked).toHaveLength(2);
  });

  it('does not cache requests with very long attributes', async () => {
    const reviewer = new ScriptedReviewer({ allowed: true });
    const w = authorizer(reviewer, { clock });
    const long = attrs({ name: 'x'.repeat(10_000) });
    await w.authorize(long);
    await w.authorize(long);
    expect(reviewer.asked).toHaveLength(2);
  });
});

describe('failure policy', () => {
  const failure = new Error('Post "https://127.0.0.1:1/authorize": context deadline exceeded');
  it('NoOpinion: a failed call has no opinion and reports the error', async () => {
    expect(await authorizer(new ScriptedReviewer(failure)).authorize(attrs())).toEqual({ decision: 'NoOpinion', reason: '', evaluationError: failure.message });
  });
  it('Deny: a failed call denies', async () => {
    expect(await authorizer(new ScriptedReviewer(failure), { failurePolicy: 'Deny' }).authorize(attrs())).toEqual({
      decision: 'Deny',
      reason: '',
      evaluationError: failure.message,
    });
  });
});

describe('match conditions', () => {
  const expressions = ['request.resourceAttributes.namespace == "ns"', '!request.user.startsWith("system:")'];
  const errorExpression = 'request.resourceAttributes.namespace != ""';

  it.each(['NoOpinion', 'Deny'] as const)('all true: the webhook is called (%s)', async (failurePolicy) => {
    const reviewer = new ScriptedReviewer({ allowed: true });
    const w = authorizer(reviewer, { failurePolicy, matchConditions: await MatchConditions.compile(expressions, false) });
    expect((await w.authorize(attrs())).decision).toBe('Allow');
    expect(reviewer.asked).toHaveLength(1);
  });

  it.each(['NoOpinion', 'Deny'] as const)('any false: the webhook is skipped with no opinion (%s)', async (failurePolicy) => {
    const reviewer = new ScriptedReviewer({ allowed: true });
    const w = authorizer(reviewer, { failurePolicy, matchConditions: await MatchConditions.compile(expressions, false) });
    expect(await w.authorize(attrs({ namespace: 'other' }))).toEqual({ decision: 'NoOpinion', reason: '' });
    expect(await w.authorize(attrs({ user: { username: 'system:admin', groups: [] } }))).toEqual({ decision: 'NoOpinion', reason: '' });
    expect(reviewer.asked).toHaveLength(0);
  });

  it('a false condition wins over an erroring one', async () => {
    const reviewer = new ScriptedReviewer({ allowed: true });
    const w = authorizer(reviewer, { failurePolicy: 'Deny', matchConditions: await MatchConditions.compile([errorExpression, 'request.user == "nobody"'], false) });
    const nonResource = attrs({ isResourceRequest: false, path: '/metrics' });
    expect(await w.authorize(nonResource)).toEqual({ decision: 'NoOpinion', reason: '' });
  });

  it.each([
    ['NoOpinion', 'NoOpinion'],
    ['Deny', 'Deny'],
  ] as const)('an error applies the failure policy %s', async (failurePolicy, decision) => {
    const reviewer = new ScriptedReviewer({ allowed: true });
    const w = authorizer(reviewer, { failurePolicy, matchConditions: await MatchConditions.compile([errorExpression], false) });
    const result = await w.authorize(attrs({ isResourceRequest: false, path: '/metrics' }));
    expect(result.decision).toBe(decision);
    expect(result.evaluationError).toMatch(/^cel evaluation error: expression 'request\.resourceAttributes\.namespace != ""' resulted in error: .*resourceAttributes/);
    expect(reviewer.asked).toHaveLength(0);
  });

  it('sees selectors only when AuthorizeWithSelectors is on', async () => {
    await expect(MatchConditions.compile(['request.resourceAttributes.fieldSelector.rawSelector == ""'], false)).rejects.toThrow(/compilation failed/);
    const conditions = await MatchConditions.compile(['request.resourceAttributes.labelSelector.requirements.exists(r, r.key == "team")'], true);
    const reviewer = new ScriptedReviewer({ allowed: true });
    const w = authorizer(reviewer, { matchConditions: conditions });
    const listing = attrs({
      verb: 'list',
      name: '',
      labelSelector: { requirements: [{ key: 'team', operator: 'Equals', values: ['a'] }] },
    });
    expect((await w.authorize(listing)).decision).toBe('Allow');
    expect(reviewer.asked[0].resourceAttributes?.labelSelector).toEqual({ requirements: [{ key: 'team', operator: 'In', values: ['a'] }] });
  });
});
