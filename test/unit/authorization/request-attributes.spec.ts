import { resolveRequestInfo } from '../../../src/endpoints/request/request-info';
import { attributesOf } from '../../../src/endpoints/filters/request-attributes';
import {
  fieldSelectorAttribute,
  labelSelectorAttribute,
  nonResourceAttributes,
  resourceAttributes,
} from '../../../src/authorization/request-attributes';

const alice = { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } };
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const withSelectors = { authorizeWithSelectors: true };

function attrs(method: string, path: string, query: Record<string, string> = {}, options = { authorizeWithSelectors: false }) {
  return attributesOf(resolveRequestInfo(method, path, query), alice, query, options);
}

describe('request attributes', () => {
  it('carry the caller and every resource attribute', () => {
    expect(attrs('GET', `${RBAC}/namespaces/ns/roles/r`)).toEqual({
      user: alice,
      verb: 'get',
      isResourceRequest: true,
      path: `${RBAC}/namespaces/ns/roles/r`,
      apiGroup: 'rbac.authorization.platform.io',
      apiVersion: 'v1',
      resource: 'roles',
      subresource: '',
      namespace: 'ns',
      name: 'r',
    });
  });

  it.each([
    ['GET', '/api/v1/namespaces/ns/pods', {}, { verb: 'list', apiGroup: '', resource: 'pods', namespace: 'ns', name: '' }],
    ['GET', '/api/v1/pods', { watch: 'true' }, { verb: 'watch', namespace: '', name: '' }],
    ['HEAD', '/api/v1/namespaces/ns/pods/p', {}, { verb: 'get', name: 'p' }],
    ['POST', `${RBAC}/clusterroles`, {}, { verb: 'create', resource: 'clusterroles', name: '' }],
    ['PUT', '/api/v1/namespaces/ns/pods/p/status', {}, { verb: 'update', subresource: 'status', name: 'p' }],
    ['PATCH', `${RBAC}/clusterroles/x`, {}, { verb: 'patch', name: 'x' }],
    ['DELETE', `${RBAC}/clusterroles/x`, {}, { verb: 'delete', name: 'x' }],
    ['DELETE', `${RBAC}/namespaces/ns/roles`, {}, { verb: 'deletecollection', namespace: 'ns' }],
    ['GET', `${RBAC}/namespaces/ns/roles`, { fieldSelector: 'metadata.name=r1' }, { verb: 'list', name: 'r1' }],
    ['GET', `${RBAC}/roles`, { watch: '1', fieldSelector: 'metadata.name==r2' }, { verb: 'watch', name: 'r2' }],
    ['GET', `${RBAC}/roles`, { fieldSelector: 'metadata.namespace=a,metadata.name=r3' }, { name: 'r3' }],
    ['GET', `${RBAC}/roles`, { fieldSelector: 'metadata.name=a\\,b' }, { name: 'a,b' }],
    ['GET', `${RBAC}/roles`, { fieldSelector: 'metadata.name!=r' }, { name: '' }],
    ['GET', `${RBAC}/roles`, { fieldSelector: 'metadata.name=r,oops' }, { name: '' }],
    ['GET', `${RBAC}/roles`, { fieldSelector: 'metadata.name=a/b' }, { name: '' }],
    ['GET', `${RBAC}/roles`, { fieldSelector: 'metadata.name=..' }, { name: '' }],
    ['DELETE', `${RBAC}/namespaces/ns/roles`, { fieldSelector: 'metadata.name=r' }, { verb: 'deletecollection', name: '' }],
  ])('%s %s %j', (method, path, query, expected) => {
    expect(attrs(method, path, query as Record<string, string>)).toMatchObject({ isResourceRequest: true, ...expected });
  });

  it('non-resource requests: lowercase HTTP method and path', () => {
    expect(attrs('GET', '/healthz')).toEqual(nonResourceAttributes(alice, 'get', '/healthz'));
    expect(attrs('POST', '/apis')).toMatchObject({ isResourceRequest: false, verb: 'post', path: '/apis', resource: '' });
    expect(attrs('HEAD', '/version')).toMatchObject({ verb: 'head' });
  });

  describe('selectors (AuthorizeWithSelectors)', () => {
    const query = { fieldSelector: 'spec.nodeName=n1,metadata.name!=x', labelSelector: 'app in (a,b),!legacy' };

    it('are left out without the gate', () => {
      const a = attrs('GET', '/api/v1/pods', query);
      expect(a.fieldSelector).toBeUndefined();
      expect(a.labelSelector).toBeUndefined();
    });

    it.each([
      ['GET', '/api/v1/pods', {}],
      ['GET', '/api/v1/pods', { watch: 'true' }],
      ['DELETE', '/api/v1/namespaces/ns/pods', {}],
    ])('are parsed for %s %s %j', (method, path, extra) => {
      const a = attrs(method, path, { ...query, ...extra }, withSelectors);
      expect(a.fieldSelector).toEqual({
        requirements: [
          { field: 'spec.nodeName', operator: 'Equals', value: 'n1' },
          { field: 'metadata.name', operator: 'NotEquals', value: 'x' },
        ],
      });
      expect(a.labelSelector).toEqual({
        requirements: [
          { key: 'app', operator: 'In', values: ['a', 'b'] },
          { key: 'legacy', operator: 'DoesNotExist', values: [] },
        ],
      });
    });

    it.each([
      ['GET', '/api/v1/namespaces/ns/pods/p'],
      ['POST', '/api/v1/namespaces/ns/pods'],
      ['DELETE', '/api/v1/namespaces/ns/pods/p'],
    ])('are not passed for %s %s (not list, watch or deletecollection)', (method, path) => {
      const a = attrs(method, path, query, withSelectors);
      expect(a.fieldSelector).toBeUndefined();
      expect(a.labelSelector).toBeUndefined();
    });

    it('carry a parse failure as an error instead of failing the request', () => {
      const a = attrs('GET', '/api/v1/pods', { fieldSelector: 'nonsense', labelSelector: 'a in (' }, withSelectors);
      expect(a.fieldSelector).toEqual({ requirements: [], error: "invalid selector: 'nonsense'; can't understand 'nonsense'" });
      expect(a.labelSelector?.requirements).toEqual([]);
      expect(a.labelSelector?.error).toEqual(expect.any(String));
    });

    it('are absent when empty', () => {
      expect(fieldSelectorAttribute('')).toBeUndefined();
      expect(labelSelectorAttribute(undefined)).toBeUndefined();
      expect(labelSelectorAttribute('  ')).toBeUndefined();
    });
  });

  it('can be built from plain values (access reviews)', () => {
    expect(
      resourceAttributes({
        user: alice,
        verb: 'list',
        apiGroup: 'apps',
        apiVersion: '*',
        resource: 'deployments',
        namespace: 'ns',
        labelSelector: labelSelectorAttribute('tier=web'),
      }),
    ).toEqual({
      user: alice,
      verb: 'list',
      isResourceRequest: true,
      path: '',
      apiGroup: 'apps',
      apiVersion: '*',
      resource: 'deployments',
      subresource: '',
      namespace: 'ns',
      name: '',
      labelSelector: { requirements: [{ key: 'tier', operator: 'Equals', values: ['web'] }] },
    });
  });
});
