import {
  reviewAttributes,
  reviewEvaluationError,
  subjectAccessReviewAttributes,
} from '../../../src/reviews/access-review-attributes';

const gateOn = { authorizeWithSelectors: true };
const gateOff = { authorizeWithSelectors: false };

describe('access review attributes', () => {
  it('turn resource attributes into the attributes of the same request', () => {
    const attrs = subjectAccessReviewAttributes(
      {
        user: 'alice',
        groups: ['devs'],
        uid: 'u-1',
        extra: { scopes: ['a', 'b'] },
        resourceAttributes: { namespace: 'ns', verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: 'web' },
      },
      gateOff,
    );
    expect(attrs).toEqual({
      user: { username: 'alice', groups: ['devs'], uid: 'u-1', extra: { scopes: ['a', 'b'] } },
      verb: 'get',
      isResourceRequest: true,
      path: '',
      apiGroup: 'apps',
      apiVersion: 'v1',
      resource: 'deployments',
      subresource: 'scale',
      namespace: 'ns',
      name: 'web',
    });
  });

  it('read an empty version as every version, keep `*` and empty namespace as they are', () => {
    const attrs = subjectAccessReviewAttributes({ user: 'bob', resourceAttributes: { verb: '*', group: '*', resource: '*' } }, gateOff);
    expect(attrs).toMatchObject({ verb: '*', apiGroup: '*', resource: '*', apiVersion: '*', namespace: '', name: '', subresource: '' });
  });

  it('give a user without groups no groups, and no uid or extra unless asked', () => {
    expect(subjectAccessReviewAttributes({ user: 'bob', resourceAttributes: {} }, gateOff).user).toEqual({ username: 'bob', groups: [] });
    expect(subjectAccessReviewAttributes({ groups: ['ops'], resourceAttributes: {} }, gateOff).user).toEqual({ username: '', groups: ['ops'] });
  });

  it('turn non-resource attributes into a non-resource request', () => {
    const attrs = subjectAccessReviewAttributes({ user: 'bob', nonResourceAttributes: { path: '/metrics', verb: 'get' } }, gateOff);
    expect(attrs).toEqual({
      user: { username: 'bob', groups: [] },
      verb: 'get',
      isResourceRequest: false,
      path: '/metrics',
      apiGroup: '',
      apiVersion: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
    });
  });

  it('ask self reviews about the given caller', () => {
    const caller = { username: 'carol', groups: ['system:authenticated'] };
    expect(reviewAttributes(caller, { resourceAttributes: { verb: 'list', resource: 'pods' } }, gateOff).user).toBe(caller);
  });

  it('carry selectors only with the AuthorizeWithSelectors gate', () => {
    const spec = {
      user: 'bob',
      resourceAttributes: {
        verb: 'list',
        resource: 'pods',
        fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] },
        labelSelector: { rawSelector: 'app=web,tier notin (db)' },
      },
    };
    const off = subjectAccessReviewAttributes(spec, gateOff);
    expect(off.fieldSelector).toBeUndefined();
    expect(off.labelSelector).toBeUndefined();
    const on = subjectAccessReviewAttributes(spec, gateOn);
    expect(on.fieldSelector).toEqual({ requirements: [{ field: 'spec.nodeName', operator: 'Equals', value: 'n1' }] });
    expect(on.labelSelector).toEqual({
      requirements: [
        { key: 'app', operator: 'Equals', values: ['web'] },
        { key: 'tier', operator: 'NotIn', values: ['db'] },
      ],
    });
  });

  it('report the chain error and every selector that could not be used in evaluationError', () => {
    const attrs = subjectAccessReviewAttributes(
      {
        user: 'bob',
        resourceAttributes: {
          verb: 'list',
          resource: 'pods',
          fieldSelector: { requirements: [{ key: 'a', operator: 'In', values: ['1'] }, { key: 'b', operator: 'Exists' }] },
          labelSelector: { rawSelector: 'a in (' },
        },
      },
      gateOn,
    );
    expect(reviewEvaluationError('role "x" not found', attrs)).toBe(
      'role "x" not found; spec.resourceAttributes.fieldSelector partially ignored due to parse error; spec.resourceAttributes.labelSelector ignored due to parse error',
    );
    expect(reviewEvaluationError(undefined, subjectAccessReviewAttributes({ user: 'bob', resourceAttributes: {} }, gateOn))).toBeUndefined();
  });
});
