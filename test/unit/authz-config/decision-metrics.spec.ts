import { AuthorizationAttributes } from '../../../src/authorization/authorizer';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { alwaysDenyAuthorizer } from '../../../src/authorization/authorizers';
import { metricsRegistry } from '../../../src/metrics/registry';

const attrs = (user: string, groups: string[] = []): AuthorizationAttributes => ({
  user: { username: user, groups },
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

async function decisions(): Promise<Record<string, number>> {
  const metric = (await metricsRegistry.getMetricsAsJSON()).find((m) => m.name === 'apiserver_authorization_decisions_total');
  return Object.fromEntries((metric?.values ?? []).map((v) => [`${v.labels.type}/${v.labels.name}/${v.labels.decision}`, v.value]));
}

describe('apiserver_authorization_decisions_total', () => {
  it('counts the terminal decision of each configured authorizer, not system:masters and not NoOpinion', async () => {
    const chain = new AuthorizerChain();
    chain.replace([
      { type: 'Webhook', name: 'first', authorize: (a) => (a.user.username === 'alice' ? { decision: 'Allow' } : { decision: 'NoOpinion' }) },
      alwaysDenyAuthorizer,
    ]);
    await chain.authorize(attrs('alice'));
    await chain.authorize(attrs('alice'));
    await chain.authorize(attrs('bob'));
    await chain.authorize(attrs('root', ['system:masters']));
    expect(await decisions()).toEqual({ 'Webhook/first/allowed': 2, 'AlwaysDeny/alwaysdeny/denied': 1 });
  });
});
