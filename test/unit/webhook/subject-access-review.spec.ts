import { AuthorizationAttributes } from '../../../src/authorization/authorizer';
import { parseReviewResponse, reviewRequestBody, reviewSpecFor } from '../../../src/authorization/webhook/subject-access-review';

const base: AuthorizationAttributes = {
  user: { username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { 'z.org/b': ['2'], 'a.org/a': ['1'] } },
  verb: 'list',
  isResourceRequest: true,
  path: '/apis/rbac.authorization.platform.io/v1/namespaces/ns/roles',
  apiGroup: 'rbac.authorization.platform.io',
  apiVersion: 'v1',
  resource: 'roles',
  subresource: '',
  namespace: 'ns',
  name: '',
};

describe('SubjectAccessReview request bodies', () => {
  it('v1 carries groups as `groups`, omits empty fields as Go does', () => {
    expect(reviewRequestBody(reviewSpecFor(base), 'v1')).toEqual({
      kind: 'SubjectAccessReview',
      apiVersion: 'authorization.platform.io/v1',
      metadata: { creationTimestamp: null },
      spec: {
        resourceAttributes: { namespace: 'ns', verb: 'list', group: 'rbac.authorization.platform.io', version: 'v1', resource: 'roles' },
        user: 'alice',
        groups: ['dev', 'system:authenticated'],
        extra: { 'a.org/a': ['1'], 'z.org/b': ['2'] },
        uid: 'u-1',
      },
      status: { allowed: false },
    });
  });

  it('v1beta1 carries groups as `group`', () => {
    const body = reviewRequestBody(reviewSpecFor(base), 'v1beta1');
    expect(body.apiVersion).toBe('authorization.platform.io/v1beta1');
    expect(body.spec).toMatchObject({ user: 'alice', group: ['dev', 'system:authenticated'], uid: 'u-1' });
    expect(body.spec).not.toHaveProperty('groups');
  });

  it('puts non-resource requests in nonResourceAttributes', () => {
    const spec = reviewSpecFor({ ...base, isResourceRequest: false, path: '/healthz', verb: 'get', user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } });
    expect(reviewRequestBody(spec, 'v1').spec).toEqual({ nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('carries parsed selectors, mapped to In/NotIn/Exists/DoesNotExist and dropping the rest', () => {
    const spec = reviewSpecFor({
      ...base,
      fieldSelector: { requirements: [{ field: 'metadata.name', operator: 'Equals', value: 'a' }, { field: 'spec.x', operator: 'NotEquals', value: 'b' }] },
      labelSelector: {
        requirements: [
          { key: 'team', operator: 'In', values: ['a', 'b'] },
          { key: 'tier', operator: 'Exists', values: [] },
          { key: 'gen', operator: 'GreaterThan', values: ['3'] },
        ],
      },
    });
    expect(reviewRequestBody(spec, 'v1').spec).toMatchObject({
      resourceAttributes: {
        fieldSelector: {
          requirements: [
            { key: 'metadata.name', operator: 'In', values: ['a'] },
            { key: 'spec.x', operator: 'NotIn', values: ['b'] },
          ],
        },
        labelSelector: {
          requirements: [
            { key: 'team', operator: 'In', values: ['a', 'b'] },
            { key: 'tier', operator: 'Exists' },
          ],
        },
      },
    });
  });
});

describe('SubjectAccessReview answers', () => {
  const answer = (status: unknown, version = 'v1', kind = 'SubjectAccessReview') =>
    JSON.stringify({ apiVersion: `authorization.platform.io/${version}`, kind, status });

  it('reads allowed, denied, reason and evaluationError', () => {
    expect(parseReviewResponse(answer({ allowed: true, reason: 'ok' }), 'v1')).toEqual({ allowed: true, reason: 'ok' });
    expect(parseReviewResponse(answer({ allowed: false, denied: true }, 'v1beta1'), 'v1beta1')).toEqual({ allowed: false, denied: true });
    expect(parseReviewResponse(answer(undefined), 'v1')).toEqual({ allowed: false });
  });

  it.each([
    ['not JSON', 'oops', /^couldn't get version\/kind; json parse error: /],
    ['no kind', JSON.stringify({ apiVersion: 'authorization.platform.io/v1', status: { allowed: true } }), /^Object 'Kind' is missing in /],
    ['another version', answer({ allowed: true }, 'v1beta1'), /^no kind "SubjectAccessReview" is registered for version "authorization.platform.io\/v1beta1"/],
    ['another kind', answer({ allowed: true }, 'v1', 'Status'), /^no kind "Status" is registered/],
    [
      'a non-boolean allowed',
      answer({ allowed: 'yes' }),
      'json: cannot unmarshal string into Go struct field SubjectAccessReviewStatus.status.allowed of type bool',
    ],
  ])('rejects a malformed answer: %s', (_what, body, message) => {
    expect(() => parseReviewResponse(body, 'v1')).toThrow(message);
  });
});
