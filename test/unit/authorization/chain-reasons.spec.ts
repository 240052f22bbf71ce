import { forbiddenError } from '../../../src/authorization/forbidden';
import { AbacAuthorizer } from '../../../src/authorization/abac/abac-authorizer';
import { parsePolicyFile } from '../../../src/authorization/abac/abac-policy';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import { clusterRole, clusterRoleBinding, indexOf, req, U, user } from './rbac-fixtures';

/** What a denied caller reads when RBAC and ABAC both have no opinion, as kube's union authorizer words it. */
describe('reasons of a chain where nobody decides', () => {
  const rbac = new RbacAuthorizer(
    'rbac',
    indexOf({ clusterRoles: [clusterRole('reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }])], clusterRoleBindings: [clusterRoleBinding('b', 'gone', [U('alice')])] }),
  );
  const abac = new AbacAuthorizer('abac', parsePolicyFile('{"user":"bob"}', 'p').policies);
  const chain = new AuthorizerChain();
  chain.replace([rbac, abac]);

  it('joins the reasons with newlines and keeps the evaluation error', async () => {
    const attrs = req(user('alice'), 'list', '', 'pods', { ns: 'ns' });
    const result = await chain.authorize(attrs);
    expect(result).toEqual({
      decision: 'NoOpinion',
      reason: 'RBAC: clusterrole.rbac.authorization.platform.io "gone" not found\nNo policy matched.',
      evaluationError: 'clusterrole.rbac.authorization.platform.io "gone" not found',
    });
    expect(forbiddenError(attrs, result.reason).message).toBe(
      'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns": RBAC: clusterrole.rbac.authorization.platform.io "gone" not found\nNo policy matched.',
    );
  });

  it('an RBAC no-opinion without errors adds no reason', async () => {
    expect((await chain.authorize(req(user('carol'), 'list', '', 'pods', { ns: 'ns' }))).reason).toBe('No policy matched.');
  });

  it('the first allow decides, with its own reason and error only', async () => {
    expect(await chain.authorize(req(user('bob'), 'list', '', 'pods', { ns: 'ns' }))).toEqual({ decision: 'Allow', reason: '' });
    const withError = new AuthorizerChain();
    withError.replace([
      { type: 'Webhook', name: 'a', authorize: () => ({ decision: 'NoOpinion' as const, evaluationError: 'webhook a failed' }) },
      { type: 'Webhook', name: 'b', authorize: () => ({ decision: 'Deny' as const, reason: 'no', evaluationError: 'partial' }) },
    ]);
    expect(await withError.authorize(req(user('bob'), 'list', '', 'pods', { ns: 'ns' }))).toEqual({ decision: 'Deny', reason: 'no', evaluationError: 'partial' });
  });

  it('aggregates the errors of authorizers without opinion as kube does', async () => {
    const two = new AuthorizerChain();
    two.replace([
      { type: 'Webhook', name: 'a', authorize: () => ({ decision: 'NoOpinion' as const, evaluationError: 'e1' }) },
      { type: 'Webhook', name: 'b', authorize: () => ({ decision: 'NoOpinion' as const, evaluationError: 'e2' }) },
    ]);
    expect((await two.authorize(req(user('bob'), 'list', '', 'pods', { ns: 'ns' }))).evaluationError).toBe('[e1, e2]');
  });
});
