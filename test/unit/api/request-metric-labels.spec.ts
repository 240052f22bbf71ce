import { resolveRequestInfo } from '../../../src/endpoints/request/request-info';
import { requestKindOf, requestMetricLabels } from '../../../src/endpoints/request/request-metric-labels';

const labels = (method: string, url: string, extra: { served?: boolean; code?: number; contentType?: string } = {}) => {
  const [path, search = ''] = url.split('?');
  const query = Object.fromEntries(new URLSearchParams(search));
  return requestMetricLabels({
    info: resolveRequestInfo(method, url, query),
    method,
    path,
    contentType: extra.contentType,
    dryRun: query.dryRun,
    served: extra.served ?? true,
    code: extra.code ?? 200,
  });
};

const RBAC = '/apis/rbac.authorization.platform.io/v1';

describe('request metric labels', () => {
  it('labels resource requests from the request info, with kube\'s verbs and scopes', () => {
    expect(labels('GET', `${RBAC}/namespaces/a/roles`)).toEqual({
      verb: 'LIST', dry_run: '', group: 'rbac.authorization.platform.io', version: 'v1', resource: 'roles', subresource: '', scope: 'namespace', component: 'apiserver',
    });
    expect(labels('GET', `${RBAC}/namespaces/a/roles?watch=true`).verb).toBe('WATCH');
    expect(labels('GET', `${RBAC}/clusterroles/admin`)).toMatchObject({ verb: 'GET', scope: 'resource' });
    expect(labels('GET', `${RBAC}/clusterroles`)).toMatchObject({ verb: 'LIST', scope: 'cluster' });
    expect(labels('POST', `${RBAC}/namespaces/a/roles?dryRun=All`)).toMatchObject({ verb: 'POST', dry_run: 'All', scope: 'resource' });
    expect(labels('POST', `${RBAC}/namespaces/a/roles?dryRun=Some`).dry_run).toBe('invalid');
    expect(labels('PUT', `${RBAC}/namespaces/a/roles/r`).verb).toBe('PUT');
    expect(labels('PATCH', `${RBAC}/namespaces/a/roles/r`, { contentType: 'application/apply-patch+yaml' }).verb).toBe('APPLY');
    expect(labels('PATCH', `${RBAC}/namespaces/a/roles/r`, { contentType: 'application/merge-patch+json' }).verb).toBe('PATCH');
    expect(labels('DELETE', `${RBAC}/namespaces/a/roles`).verb).toBe('DELETECOLLECTION');
    expect(labels('GET', '/api/v1/namespaces/a')).toMatchObject({ group: '', version: 'v1', resource: 'namespaces', scope: 'resource' });
    expect(labels('PUT', '/api/v1/namespaces/a/finalize')).toMatchObject({ resource: 'namespaces', subresource: 'finalize' });
  });

  it('bounds what the caller chooses: unserved resources, unknown subresources and paths, odd methods', () => {
    expect(labels('GET', '/apis/made.up/v9/things-123', { served: false, code: 401 })).toMatchObject({ group: '', version: '', resource: 'other', subresource: '' });
    expect(labels('GET', `${RBAC}/namespaces/a/roles/r/anything-42`)).toMatchObject({ resource: 'roles', subresource: 'other' });
    expect(labels('GET', '/random/path/42', { code: 404 })).toMatchObject({ resource: '', subresource: 'other', scope: '' });
    expect(labels('GET', '/random/path/42', { code: 403 }).subresource).toBe('other');
    expect(labels('GET', '/metrics', { code: 403 })).toMatchObject({ verb: 'GET', subresource: '/metrics' });
    expect(labels('GET', '/readyz/ping')).toMatchObject({ subresource: '/readyz/ping' });
    expect(labels('BREW', '/metrics', { code: 404 }).verb).toBe('other');
  });

  it('counts reads as readOnly and writes as mutating', () => {
    expect(requestKindOf('GET', resolveRequestInfo('GET', `${RBAC}/roles`, {}))).toBe('readOnly');
    expect(requestKindOf('POST', resolveRequestInfo('POST', `${RBAC}/namespaces/a/roles`, {}))).toBe('mutating');
    expect(requestKindOf('GET', resolveRequestInfo('GET', '/metrics', {}))).toBe('readOnly');
  });
});
