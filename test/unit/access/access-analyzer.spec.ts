import { AccessAnalyzer } from '../../../src/access/access-analyzer';
import { AccessIndex } from '../../../src/access/access-index';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer } from '../../../src/authorization/authorizers';
import { CLUSTER_ROLE_BINDINGS_RESOURCE, CLUSTER_ROLES_RESOURCE, ROLE_BINDINGS_RESOURCE, ROLES_RESOURCE } from '../../../src/authorization/rbac/policy-index';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import { clusterRole, clusterRoleBinding, G, indexOf, req, role, roleBinding, SA, U, url, user } from '../authorization/rbac-fixtures';

/** Who may do what, from the reverse indexes, with the RBAC authorizer's semantics. */

const NOBODY = user('');

function world() {
  const policy = indexOf({
    clusterRoles: [
      clusterRole('pod-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]),
      clusterRole('all-logs', [{ verbs: ['get'], apiGroups: [''], resources: ['*/log'] }]),
      clusterRole('anything', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]),
      clusterRole('named', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'] }]),
      clusterRole('metrics', [{ verbs: ['get'], nonResourceURLs: ['/metrics*'] }]),
    ],
    roles: [role('a', 'deployer', [{ verbs: ['create', 'delete'], apiGroups: ['apps'], resources: ['deployments'] }])],
    clusterRoleBindings: [
      clusterRoleBinding('readers', 'pod-reader', [U('alice'), G('auditors'), SA('robot', 'b'), SA('nowhere')]),
      clusterRoleBinding('root', 'anything', [G('admins')]),
      clusterRoleBinding('scrapers', 'metrics', [G('monitoring')]),
      clusterRoleBinding('broken', 'missing', [U('zed')]),
    ],
    roleBindings: [
      roleBinding('a', 'logs', 'ClusterRole', 'all-logs', [U('bob')]),
      roleBinding('a', 'deploy', 'Role', 'deployer', [U('carol'), U('mallory', { namespace: 'a' })]),
      roleBinding('b', 'deploy', 'Role', 'deployer', [U('dave')]),
      roleBinding('a', 'secret-s1', 'ClusterRole', 'named', [U('erin')]),
      roleBinding('a', 'metrics-in-ns', 'ClusterRole', 'metrics', [U('frank')]),
    ],
  });
  const chain = new AuthorizerChain();
  chain.replace([new RbacAuthorizer('rbac', policy)]);
  const index = new AccessIndex(policy);
  return { policy, chain, index, analyzer: new AccessAnalyzer(chain, policy, index) };
}

describe('ResourceAccessReview answers (whoCan)', () => {
  const { analyzer } = world();
  const who = (attrs: ReturnType<typeof req>) => {
    const s = analyzer.whoCan(attrs);
    return { users: s.users, groups: s.groups };
  };

  it('counts cluster-wide grants everywhere and RoleBindings only in their namespace', () => {
    expect(who(req(NOBODY, 'create', 'apps', 'deployments', { ns: 'a' }))).toEqual({ users: ['carol'], groups: ['admins', 'system:masters'] });
    // dave's RoleBinding in b names Role "deployer", which exists only in a: it grants nothing.
    expect(who(req(NOBODY, 'create', 'apps', 'deployments', { ns: 'b' }))).toEqual({ users: [], groups: ['admins', 'system:masters'] });
    expect(who(req(NOBODY, 'create', 'apps', 'deployments'))).toEqual({ users: [], groups: ['admins', 'system:masters'] });
  });

  it('matches wildcards, subresources, resourceNames and service accounts', () => {
    expect(who(req(NOBODY, 'get', '', 'pods', { ns: 'a' }))).toEqual({ users: ['alice', 'system:serviceaccount:b:robot'], groups: ['admins', 'auditors', 'system:masters'] });
    expect(who(req(NOBODY, 'get', '', 'pods', { ns: 'a', sub: 'log' })).users).toEqual(['bob']);
    expect(who(req(NOBODY, 'get', '', 'pods', { ns: 'a', sub: 'exec' })).users).toEqual([]);
    expect(who(req(NOBODY, 'get', '', 'secrets', { ns: 'a', name: 's1' })).users).toEqual(['erin']);
    expect(who(req(NOBODY, 'get', '', 'secrets', { ns: 'a', name: 's2' })).users).toEqual([]);
    expect(who(req(NOBODY, 'list', '', 'secrets', { ns: 'a' })).users).toEqual([]);
  });

  it('grants non-resource URLs through ClusterRoleBindings only (a resource wildcard is no URL)', () => {
    expect(who(url(NOBODY, 'get', '/metrics/slis'))).toEqual({ users: [], groups: ['monitoring', 'system:masters'] });
  });

  it('leaves out malformed subjects and bindings whose role is missing', () => {
    const status = analyzer.whoCan(req(NOBODY, 'delete', 'apps', 'deployments', { ns: 'a' }));
    expect(status.users).toEqual(['carol']);
    expect(status.grants.find((g) => g.binding.name === 'deploy')?.subjects).toEqual([U('carol')]);
    expect(status.incomplete).toBe(false);
  });

  it('names every binding that grants, cluster-wide first', () => {
    expect(analyzer.whoCan(req(NOBODY, 'get', '', 'pods', { ns: 'a' })).grants.map((g) => `${g.binding.kind}/${g.binding.namespace ?? ''}/${g.binding.name}`)).toEqual([
      'ClusterRoleBinding//readers',
      'ClusterRoleBinding//root',
    ]);
  });
});

describe('the reverse indexes follow the policy index', () => {
  it('sees added, changed and removed roles and bindings', () => {
    const { policy, analyzer } = world();
    const attrs = req(NOBODY, 'watch', '', 'configmaps', { ns: 'a' });
    expect(analyzer.whoCan(attrs).users).toEqual([]);
    policy.upsert(CLUSTER_ROLES_RESOURCE, clusterRole('cm', [{ verbs: ['watch'], apiGroups: [''], resources: ['configmaps'] }]));
    policy.upsert(ROLE_BINDINGS_RESOURCE, roleBinding('a', 'cm', 'ClusterRole', 'cm', [U('gina')]));
    expect(analyzer.whoCan(attrs).users).toEqual(['gina']);
    policy.upsert(CLUSTER_ROLES_RESOURCE, clusterRole('cm', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]));
    expect(analyzer.whoCan(attrs).users).toEqual([]);
    policy.upsert(ROLES_RESOURCE, role('a', 'cm', [{ verbs: ['watch'], apiGroups: [''], resources: ['configmaps'] }]));
    policy.upsert(ROLE_BINDINGS_RESOURCE, roleBinding('a', 'cm', 'Role', 'cm', [U('hank')]));
    expect(analyzer.whoCan(attrs).users).toEqual(['hank']);
    policy.remove(ROLE_BINDINGS_RESOURCE, 'a', 'cm');
    expect(analyzer.whoCan(attrs).users).toEqual([]);
  });

  it('rebuilds on a resync', () => {
    const { policy, analyzer } = world();
    policy.replaceAll([
      { resource: CLUSTER_ROLES_RESOURCE, items: [clusterRole('x', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])] },
      { resource: CLUSTER_ROLE_BINDINGS_RESOURCE, items: [clusterRoleBinding('x', 'x', [U('ivy')])] },
    ]);
    expect(analyzer.whoCan(req(NOBODY, 'get', '', 'pods', { ns: 'a' })).users).toEqual(['ivy']);
  });
});

describe('the chain decides what can be enumerated', () => {
  it('is incomplete with authorizers whose subjects cannot be listed, and stops at AlwaysDeny', () => {
    const { chain, analyzer, policy } = world();
    chain.replace([alwaysDenyAuthorizer, new RbacAuthorizer('rbac', policy)]);
    expect(analyzer.whoCan(req(NOBODY, 'get', '', 'pods', { ns: 'a' }))).toEqual({ users: [], groups: ['system:masters'], grants: [], incomplete: false });
    chain.replace([new RbacAuthorizer('rbac', policy), alwaysAllowAuthorizer]);
    expect(analyzer.whoCan(req(NOBODY, 'get', '', 'pods', { ns: 'a' }))).toMatchObject({ incomplete: true, evaluationError: 'authorizer alwaysallow (AlwaysAllow) allows every subject' });
  });
});

describe('AccessExplanation (explain)', () => {
  const { analyzer } = world();

  it('records each authorizer asked, and every rule that grants', async () => {
    const status = await analyzer.explain(req(user('alice', 'admins'), 'get', '', 'pods', { ns: 'a' }));
    expect(status.allowed).toBe(true);
    expect(status.decisions).toEqual([
      { authorizer: { type: 'Privileged', name: 'system:masters' }, decision: 'NoOpinion' },
      { authorizer: { type: 'RBAC', name: 'rbac' }, decision: 'Allow', reason: 'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "pod-reader" to User "alice"' },
    ]);
    expect(status.grants.map((g) => [g.binding.name, g.ruleIndex])).toEqual([
      ['readers', 0],
      ['root', 0],
    ]);
    expect(status.nearMisses).toBeUndefined();
  });

  it('ranks near misses by how few dimensions they miss, and names unusable bindings', async () => {
    const status = await analyzer.explain(req(user('carol'), 'update', 'apps', 'deployments', { ns: 'b' }));
    expect(status.allowed).toBe(false);
    expect(status.nearMisses).toEqual([
      {
        binding: { kind: 'RoleBinding', namespace: 'a', name: 'deploy' },
        role: { kind: 'Role', name: 'deployer' },
        ruleIndex: 0,
        rule: { verbs: ['create', 'delete'], apiGroups: ['apps'], resources: ['deployments'] },
        missing: ['verb "update" is not in verbs ["create", "delete"]', 'RoleBinding "deploy" grants only in namespace "a", not in namespace "b"'],
      },
    ]);
    const zed = await analyzer.explain(req(user('zed'), 'get', '', 'pods', { ns: 'a' }));
    expect(zed.unusableBindings).toEqual([
      { binding: { kind: 'ClusterRoleBinding', name: 'broken' }, role: { kind: 'ClusterRole', name: 'missing' }, reason: 'clusterrole.rbac.authorization.platform.io "missing" not found' },
    ]);
    const mallory = await analyzer.explain(req(user('mallory'), 'create', 'apps', 'deployments', { ns: 'a' }));
    expect(mallory.unusableBindings).toEqual([
      { binding: { kind: 'RoleBinding', namespace: 'a', name: 'deploy' }, role: { kind: 'Role', name: 'deployer' }, reason: 'User subject "mallory" may not have a namespace, has "a"' },
    ]);
  });

  it('explains a RoleBinding that cannot grant non-resource URLs', async () => {
    const status = await analyzer.explain(url(user('frank'), 'get', '/metrics'));
    expect(status.nearMisses?.[0].missing).toEqual(['RoleBinding "metrics-in-ns" cannot grant non-resource URLs: only a ClusterRoleBinding can']);
  });
});
