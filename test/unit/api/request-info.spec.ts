import { nameFromFieldSelector, resolveRequestInfo } from '../../../src/endpoints/request/request-info';

describe('resolveRequestInfo', () => {
  const cases: Array<[string, string, Record<string, string | string[]>, Partial<ReturnType<typeof resolveRequestInfo>>]> = [
    ['GET', '/apis/rbac.authorization.platform.io/v1/namespaces/ns/roles/r', {}, { isResourceRequest: true, verb: 'get', apiGroup: 'rbac.authorization.platform.io', apiVersion: 'v1', namespace: 'ns', resource: 'roles', name: 'r' }],
    ['GET', '/apis/rbac.authorization.platform.io/v1/namespaces/ns/roles', {}, { verb: 'list', namespace: 'ns', resource: 'roles', name: '' }],
    ['GET', '/apis/rbac.authorization.platform.io/v1/roles', { watch: 'true' }, { verb: 'watch', namespace: '', resource: 'roles' }],
    ['GET', '/apis/rbac.authorization.platform.io/v1/roles', { watch: '1', fieldSelector: 'metadata.name=x' }, { verb: 'watch', name: 'x' }],
    ['GET', '/apis/rbac.authorization.platform.io/v1/clusterroles', { fieldSelector: 'metadata.name==y' }, { verb: 'list', name: 'y' }],
    ['GET', '/apis/rbac.authorization.platform.io/v1/clusterroles/z', { watch: 'false' }, { verb: 'get', name: 'z' }],
    // A read of one object is a get whatever `watch` says, as in kube.
    ['GET', '/apis/rbac.authorization.platform.io/v1/clusterroles/z', { watch: 'true' }, { verb: 'get', name: 'z' }],
    // `watch` by kube's boolean rule: the first value, only 0 and false (any case) are false.
    ['GET', '/apis/rbac.authorization.platform.io/v1/roles', { watch: 'True' }, { verb: 'watch' }],
    ['GET', '/apis/rbac.authorization.platform.io/v1/roles', { watch: '' }, { verb: 'watch' }],
    ['GET', '/apis/rbac.authorization.platform.io/v1/roles', { watch: ['1', '0'] }, { verb: 'watch' }],
    ['GET', '/apis/rbac.authorization.platform.io/v1/roles', { watch: ['FALSE', '1'] }, { verb: 'list' }],
    ['HEAD', '/api/v1/namespaces', {}, { verb: 'list', apiGroup: '', apiVersion: 'v1', resource: 'namespaces' }],
    ['GET', '/api/v1/namespaces/ns', {}, { verb: 'get', resource: 'namespaces', name: 'ns', namespace: 'ns' }],
    ['PUT', '/api/v1/namespaces/ns/finalize', {}, { verb: 'update', resource: 'namespaces', name: 'ns', subresource: 'finalize' }],
    ['GET', '/api/v1/namespaces/ns/pods/p/log', {}, { verb: 'get', resource: 'pods', name: 'p', subresource: 'log', namespace: 'ns' }],
    ['POST', '/apis/rbac.authorization.platform.io/v1/clusterroles', {}, { verb: 'create', resource: 'clusterroles' }],
    ['PUT', '/apis/rbac.authorization.platform.io/v1/clusterroles/a', {}, { verb: 'update', name: 'a' }],
    ['PATCH', '/apis/rbac.authorization.platform.io/v1/clusterroles/a', {}, { verb: 'patch', name: 'a' }],
    ['DELETE', '/apis/rbac.authorization.platform.io/v1/clusterroles/a', {}, { verb: 'delete', name: 'a' }],
    ['DELETE', '/apis/rbac.authorization.platform.io/v1/namespaces/n/roles', {}, { verb: 'deletecollection', namespace: 'n' }],
    ['GET', '/healthz', {}, { isResourceRequest: false, verb: 'get', path: '/healthz' }],
    ['POST', '/logs/x', {}, { isResourceRequest: false, verb: 'post' }],
    ['GET', '/apis', {}, { isResourceRequest: false, verb: 'get' }],
    ['GET', '/apis/rbac.authorization.platform.io', {}, { isResourceRequest: false }],
    ['GET', '/apis/rbac.authorization.platform.io/v1', {}, { isResourceRequest: false }],
    ['GET', '/api/v1', {}, { isResourceRequest: false }],
  ];

  it.each(cases)('%s %s %j', (method, path, query, expected) => {
    expect(resolveRequestInfo(method, path, query)).toMatchObject(expected);
  });

  it('ignores the query string in the path', () => {
    expect(resolveRequestInfo('GET', '/api/v1/namespaces?limit=1', { limit: '1' })).toMatchObject({ resource: 'namespaces', verb: 'list' });
  });
});

describe('nameFromFieldSelector', () => {
  it.each([
    ['metadata.name=a', 'a'],
    ['metadata.namespace=x,metadata.name==b', 'b'],
    ['metadata.name!=c', ''],
    ['', ''],
  ])('%s -> %s', (selector, name) => expect(nameFromFieldSelector(selector)).toBe(name));
});
