import { ConfigDecodeError, decodeAuthorizationConfiguration } from '../../../src/authorization/config/decode';

const HEAD = { apiVersion: 'apiserver.config.platform.io/v1', kind: 'AuthorizationConfiguration' };
const webhook = (extra: Record<string, unknown> = {}) => ({
  timeout: '3s',
  subjectAccessReviewVersion: 'v1',
  failurePolicy: 'Deny',
  connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: '/x' },
  ...extra,
});
const problemOf = (doc: Record<string, unknown>): string => {
  try {
    decodeAuthorizationConfiguration(JSON.stringify({ ...HEAD, ...doc }));
  } catch (err) {
    if (err instanceof ConfigDecodeError) return err.message;
    throw err;
  }
  return 'decoded';
};

/** The file's structural schema, read by the decoder every kind goes through: every finding with its path, worded as kube's strict decoding. */
describe('AuthorizationConfiguration schema', () => {
  it.each([
    [{ authorizers: 'x' }, 'json: cannot unmarshal string into Go struct field AuthorizationConfiguration.authorizers of type []v1.AuthorizerConfiguration'],
    [{ authorizers: ['x'] }, 'json: cannot unmarshal string into Go struct field AuthorizationConfiguration.authorizers of type v1.AuthorizerConfiguration'],
    [
      { authorizers: [{ type: 'Webhook', name: 'w', webhook: webhook({ cacheAuthorizedRequests: 'yes' }) }] },
      'json: cannot unmarshal string into Go struct field WebhookConfiguration.authorizers.webhook.cacheAuthorizedRequests of type bool',
    ],
    [
      { authorizers: [{ type: 'Webhook', name: 'w', webhook: webhook({ connectionInfo: 5 }) }] },
      'json: cannot unmarshal number into Go struct field WebhookConfiguration.authorizers.webhook.connectionInfo of type v1.WebhookConnectionInfo',
    ],
    [
      { authorizers: [{ type: 'Webhook', name: 'w', webhook: webhook({ matchConditions: [{ expression: 1 }] }) }] },
      'json: cannot unmarshal number into Go struct field WebhookMatchCondition.authorizers.webhook.matchConditions.expression of type string',
    ],
    [{ authorizers: [{ type: 'Webhook', name: 'w', webhook: [] }] }, 'json: cannot unmarshal array into Go struct field AuthorizerConfiguration.authorizers.webhook of type v1.WebhookConfiguration'],
  ])('stops at a value of the wrong type: %j', (doc, message) => {
    expect(problemOf(doc)).toBe(message);
  });

  it('reports the first wrong type in document order, even after unknown fields', () => {
    const doc = { authorizers: [{ color: 'red', type: 'Webhook', name: 'w', webhook: webhook({ timeout: 3, cacheAuthorizedRequests: 'no' }) }] };
    expect(problemOf(doc)).toBe('json: cannot unmarshal number into Go value of type string');
  });

  it('reports every unknown field together, in document order, with its path', () => {
    const doc = {
      authorizers: [
        { type: 'Webhook', zz: 1, name: 'w', webhook: webhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: '/x', extra: true }, matchConditions: [{ expression: 'true', why: 'x' }] }) },
        { type: 'RBAC', name: 'rbac', mode: 'x' },
      ],
      aa: 2,
    };
    expect(problemOf(doc)).toBe(
      'strict decoding error: unknown field "authorizers[0].zz", unknown field "authorizers[0].webhook.connectionInfo.extra", unknown field "authorizers[0].webhook.matchConditions[0].why", unknown field "authorizers[1].mode", unknown field "aa"',
    );
  });

  it('accepts nulls and a well-formed file', () => {
    expect(problemOf({ authorizers: [{ type: 'RBAC', name: 'rbac', webhook: null }] })).toBe('decoded');
    expect(decodeAuthorizationConfiguration(JSON.stringify({ ...HEAD, authorizers: [{ type: 'Webhook', name: 'w', webhook: webhook() }] })).authorizers[0]).toMatchObject({
      type: 'Webhook',
      name: 'w',
      webhook: { timeoutMs: 3000, failurePolicy: 'Deny', connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: '/x' } },
    });
  });
});
