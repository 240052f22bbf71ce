import { AccessAnalyzer } from '../../../src/access/access-analyzer';
import { AccessIndex } from '../../../src/access/access-index';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import { clusterRole, clusterRoleBinding, G, indexOf, req, role, roleBinding, U, user } from '../authorization/rbac-fixtures';

/**
 * A who-can question resolves each role once for all the bindings naming it: a Role and a
 * ClusterRole of the same name, and a reference of another kind, stay apart.
 */
describe('who-can with roles of one name and different kinds', () => {
  const policy = indexOf({
    clusterRoles: [clusterRole('viewer', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])],
    roles: [role('a', 'viewer', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }])],
    clusterRoleBindings: [clusterRoleBinding('everyone-views', 'viewer', [G('viewers')])],
    roleBindings: [
      roleBinding('a', 'local-role', 'Role', 'viewer', [U('ann')]),
      roleBinding('a', 'cluster-role', 'ClusterRole', 'viewer', [U('ben')]),
      roleBinding('a', 'other-kind', 'Bogus', 'viewer', [U('cat')]),
      roleBinding('a', 'local-role-again', 'Role', 'viewer', [U('dan')]),
    ],
  });
  const chain = new AuthorizerChain();
  chain.replace([new RbacAuthorizer('rbac', policy)]);
  const analyzer = new AccessAnalyzer(chain, policy, new AccessIndex(policy));
  const who = (verb: string, resource: string) => {
    const s = analyzer.whoCan(req(user(''), verb, '', resource, { ns: 'a' }));
    return { users: s.users, groups: s.groups };
  };

  it('grants pods through the ClusterRole and secrets through the Role, in the same namespace', () => {
    expect(who('get', 'pods')).toEqual({ users: ['ben'], groups: ['system:masters', 'viewers'] });
    expect(who('get', 'secrets')).toEqual({ users: ['ann', 'dan'], groups: ['system:masters'] });
  });
});
