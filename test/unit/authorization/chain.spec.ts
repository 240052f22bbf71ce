import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { forbiddenError } from '../../../src/authorization/forbidden';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer } from '../../../src/authorization/authorizers';
import { AuthorizationAttributes } from '../../../src/authorization/authorizer';

const attrs = (groups: string[], over: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  user: { username: 'alice', groups },
  verb: 'list',
  isResourceRequest: true,
  path: '/apis/rbac.authorization.platform.io/v1/namespaces/ns/roles',
  apiGroup: 'rbac.authorization.platform.io',
  apiVersion: 'v1',
  resource: 'roles',
  subresource: '',
  namespace: 'ns',
  name: '',
  ...over,
});

describe('authorizer chain', () => {
  const byMode = { AlwaysAllow: alwaysAllowAuthorizer, AlwaysDeny: alwaysDenyAuthorizer };
  const chain = (modes: Array<keyof typeof byMode>) => {
    const c = new AuthorizerChain();
    c.replace(modes.map((m) => byMode[m]));
    return c;
  };

  it('allows system:masters before any mode', async () => {
    expect((await chain(['AlwaysDeny']).authorize(attrs(['system:masters']))).decision).toBe('Allow');
  });

  it('takes the first decisive answer in mode order', async () => {
    expect((await chain(['AlwaysDeny', 'AlwaysAllow']).authorize(attrs([]))).decision).toBe('Deny');
    expect((await chain(['AlwaysAllow', 'AlwaysDeny']).authorize(attrs([]))).decision).toBe('Allow');
  });

  it('treats "no opinion from anyone" as a deny (the guard refuses anything but Allow)', async () => {
    expect((await chain([]).authorize(attrs([]))).decision).toBe('NoOpinion');
  });

  it('lists rules from every authorizer that can, and is incomplete naming the others', async () => {
    const c = new AuthorizerChain();
    const webhook = { type: 'Webhook', name: 'corp', authorize: () => ({ decision: 'NoOpinion' as const }) };
    c.replace([alwaysDenyAuthorizer, webhook, alwaysAllowAuthorizer]);
    const rules = await c.rulesFor({ username: 'alice', groups: [] }, 'ns');
    expect(rules).toEqual({
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: true,
      evaluationError: 'authorizer corp (Webhook) cannot list rules',
    });
  });

  it('builds kube\'s forbidden messages', () => {
    expect(forbiddenError(attrs([])).message).toBe(
      'roles.rbac.authorization.platform.io is forbidden: User "alice" cannot list resource "roles" in API group "rbac.authorization.platform.io" in the namespace "ns"',
    );
    expect(forbiddenError(attrs([], { namespace: '', name: 'x', verb: 'get', resource: 'clusterroles' }), 'nope').message).toBe(
      'clusterroles.rbac.authorization.platform.io "x" is forbidden: User "alice" cannot get resource "clusterroles" in API group "rbac.authorization.platform.io" at the cluster scope: nope',
    );
    expect(forbiddenError(attrs([], { isResourceRequest: false, verb: 'get', path: '/healthz' })).message).toBe(
      'forbidden: User "alice" cannot get path "/healthz"',
    );
    expect(forbiddenError(attrs([], { apiGroup: '', resource: 'namespaces', subresource: 'status', name: 'n', namespace: 'n', verb: 'update' })).message).toBe(
      'namespaces "n" is forbidden: User "alice" cannot update resource "namespaces/status" in API group "" in the namespace "n"',
    );
  });
});
