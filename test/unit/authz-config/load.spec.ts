import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as YAML from 'yaml';
import { loadAuthorizationConfiguration, readAuthorizationConfigFile } from '../../../src/authorization/config/load';

const dir = mkdtempSync(join(tmpdir(), 'authz-config-'));
const kubeconfig = join(dir, 'webhook.kubeconfig');
writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: [{name: w, cluster: {server: "https://127.0.0.1:1/authorize"}}]\n');
mkdirSync(join(dir, 'a-directory'));

function webhook(overrides: Record<string, unknown> = {}) {
  return {
    timeout: '3s',
    subjectAccessReviewVersion: 'v1',
    failurePolicy: 'NoOpinion',
    connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
    ...overrides,
  };
}

function doc(authorizers: unknown[], apiVersion = 'apiserver.config.platform.io/v1') {
  return YAML.stringify({ apiVersion, kind: 'AuthorizationConfiguration', authorizers });
}

const load = (text: string, required?: string[]) =>
  loadAuthorizationConfiguration(text, { withSelectors: false, requiredNonWebhookTypes: required ? new Set(required) : undefined });

async function errorOf(text: string, required?: string[]): Promise<string> {
  try {
    await load(text, required);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the configuration to be rejected');
}

const oneWebhook = (overrides: Record<string, unknown>) => doc([{ type: 'Webhook', name: 'w', webhook: webhook(overrides) }]);

describe('AuthorizationConfiguration: decoding and defaults', () => {
  it('accepts v1 and v1beta1, YAML and JSON, and applies kube defaults', async () => {
    for (const apiVersion of ['apiserver.config.platform.io/v1', 'apiserver.config.platform.io/v1beta1']) {
      const config = await load(doc([{ type: 'Webhook', name: 'w', webhook: webhook() }, { type: 'AlwaysDeny', name: 'alwaysdeny' }], apiVersion));
      expect(config.authorizers.map((a) => a.type)).toEqual(['Webhook', 'AlwaysDeny']);
      expect(config.authorizers[0].webhook).toMatchObject({
        authorizedTTLMs: 300_000,
        unauthorizedTTLMs: 30_000,
        cacheAuthorizedRequests: true,
        cacheUnauthorizedRequests: true,
        timeoutMs: 3000,
        matchConditions: [],
      });
    }
    const json = JSON.stringify({ apiVersion: 'apiserver.config.platform.io/v1', kind: 'AuthorizationConfiguration', authorizers: [{ type: 'AlwaysAllow', name: 'alwaysallow' }] });
    expect((await load(json)).authorizers).toEqual([{ type: 'AlwaysAllow', name: 'alwaysallow' }]);
    const ttl = await load(oneWebhook({ authorizedTTL: '90s', unauthorizedTTL: '1m30s', cacheUnauthorizedRequests: false }));
    expect(ttl.authorizers[0].webhook).toMatchObject({ authorizedTTLMs: 90_000, unauthorizedTTLMs: 90_000, cacheUnauthorizedRequests: false });
  });

  it.each([
    ['apiVersion: v1\nkind: Config\n', 'failed to load AuthorizationConfiguration from file: no kind "Config" is registered for version "v1"'],
    ['kind: AuthorizationConfiguration\n', "failed to load AuthorizationConfiguration from file: Object 'apiVersion' is missing in '{\"kind\":\"AuthorizationConfiguration\"}'"],
    ['apiVersion: apiserver.config.platform.io/v1\n', "failed to load AuthorizationConfiguration from file: Object 'Kind' is missing in '{\"apiVersion\":\"apiserver.config.platform.io/v1\"}'"],
    [
      'apiVersion: apiserver.config.platform.io/v2\nkind: AuthorizationConfiguration\n',
      'failed to load AuthorizationConfiguration from file: no kind "AuthorizationConfiguration" is registered for version "apiserver.config.platform.io/v2"',
    ],
    [
      doc([{ type: 'Webhook', name: 'w', color: 'red', webhook: webhook({ retries: 3 }) }]),
      'failed to load AuthorizationConfiguration from file: strict decoding error: unknown field "authorizers[0].color", unknown field "authorizers[0].webhook.retries"',
    ],
    [oneWebhook({ timeout: 'soon' }), 'failed to load AuthorizationConfiguration from file: time: invalid duration "soon"'],
    [oneWebhook({ timeout: 3 }), 'failed to load AuthorizationConfiguration from file: json: cannot unmarshal number into Go value of type string'],
    [
      doc([{ type: 'Webhook', name: 7 }]),
      'failed to load AuthorizationConfiguration from file: json: cannot unmarshal number into Go struct field AuthorizerConfiguration.authorizers.name of type string',
    ],
    ['authorizers: [\n', /^failed to load AuthorizationConfiguration from file: error converting YAML to JSON: yaml: /],
    ['', 'authorizers: Required value: at least one authorization mode must be defined'],
  ])('rejects %j', async (text, message) => {
    const got = await errorOf(text);
    if (typeof message === 'string') expect(got).toBe(message);
    else expect(got).toMatch(message);
  });
});

describe('AuthorizationConfiguration: kube validation messages', () => {
  it.each([
    ['an empty type', doc([{ name: 'x' }]), 'authorizers[0].type: Required value'],
    [
      'an unknown type',
      doc([{ type: 'Fancy', name: 'x' }]),
      'authorizers[0].type: Unsupported value: "Fancy": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Guardrail", "Node", "RBAC", "Webhook"',
    ],
    ['a repeated non-webhook type', doc([{ type: 'AlwaysDeny', name: 'alwaysdeny' }, { type: 'AlwaysDeny', name: 'alwaysdeny' }]), 'authorizers[1].type: Duplicate value: "AlwaysDeny"'],
    ['a missing name', doc([{ type: 'Webhook', webhook: webhook() }]), 'authorizers[0].name: Required value'],
    [
      'a repeated name',
      doc([{ type: 'Webhook', name: 'w', webhook: webhook() }, { type: 'Webhook', name: 'w', webhook: webhook() }]),
      'authorizers[1].name: Duplicate value: "w"',
    ],
    [
      'a name that is no DNS subdomain',
      doc([{ type: 'Webhook', name: 'Bad_Name', webhook: webhook() }]),
      `authorizers[0].name: Invalid value: "Bad_Name": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
    ['a webhook without its block', doc([{ type: 'Webhook', name: 'w' }]), 'authorizers[0].webhook: Required value: required when type=Webhook'],
    [
      'a webhook block on another type',
      doc([{ type: 'AlwaysDeny', name: 'alwaysdeny', webhook: webhook() }]),
      'authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook',
    ],
    ['a missing timeout', oneWebhook({ timeout: undefined }), 'authorizers[0].timeout: Required value'],
    ['a timeout over 30s', oneWebhook({ timeout: '45s' }), 'authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s'],
    ['a negative timeout', oneWebhook({ timeout: '-30s' }), 'authorizers[0].timeout: Invalid value: "-30s": must be > 0s and <= 30s'],
    ['a negative authorizedTTL', oneWebhook({ authorizedTTL: '-1m' }), 'authorizers[0].authorizedTTL: Invalid value: "-1m0s": must be > 0s'],
    ['a negative unauthorizedTTL', oneWebhook({ unauthorizedTTL: '-5s' }), 'authorizers[0].unauthorizedTTL: Invalid value: "-5s": must be > 0s'],
    ['a missing review version', oneWebhook({ subjectAccessReviewVersion: undefined }), 'authorizers[0].subjectAccessReviewVersion: Required value'],
    [
      'an unknown review version',
      oneWebhook({ subjectAccessReviewVersion: 'v2' }),
      'authorizers[0].subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"',
    ],
    [
      'conditions without their review version',
      oneWebhook({ matchConditions: [{ expression: 'true' }] }),
      'authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified',
    ],
    [
      'an unknown condition review version',
      oneWebhook({ matchConditionSubjectAccessReviewVersion: 'v1beta1' }),
      'authorizers[0].matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"',
    ],
    ['a missing failure policy', oneWebhook({ failurePolicy: undefined }), 'authorizers[0].failurePolicy: Required value'],
    [
      'an unknown failure policy',
      oneWebhook({ failurePolicy: 'Sometimes' }),
      'authorizers[0].failurePolicy: Unsupported value: "Sometimes": supported values: "NoOpinion", "Deny"',
    ],
    ['a missing connection type', oneWebhook({ connectionInfo: {} }), 'authorizers[0].connectionInfo.type: Required value'],
    [
      'an unknown connection type',
      oneWebhook({ connectionInfo: { type: 'Carrier' } }),
      'authorizers[0].connectionInfo.type: Unsupported value: "Carrier": supported values: "InClusterConfig", "KubeConfigFile"',
    ],
    ['a kubeconfig type without its file', oneWebhook({ connectionInfo: { type: 'KubeConfigFile' } }), 'authorizers[0].connectionInfo.kubeConfigFile: Required value'],
    [
      'a relative kubeconfig path',
      oneWebhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: 'webhook.kubeconfig' } }),
      'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "webhook.kubeconfig": must be an absolute path',
    ],
    [
      'a missing kubeconfig file',
      oneWebhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: '/nonexistent/kubeconfig' } }),
      'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "/nonexistent/kubeconfig": error loading file: stat /nonexistent/kubeconfig: no such file or directory',
    ],
    [
      'a kubeconfig path that is a directory',
      oneWebhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: join(dir, 'a-directory') } }),
      `authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "${join(dir, 'a-directory')}": must be a regular file`,
    ],
    [
      'the in-cluster connection (the server would call itself)',
      oneWebhook({ connectionInfo: { type: 'InClusterConfig' } }),
      'authorizers[0].connectionInfo.type: Invalid value: "InClusterConfig": InClusterConfig is not allowed for the API server (it would call itself); use KubeConfigFile',
    ],
    [
      'an in-cluster connection with a file',
      oneWebhook({ connectionInfo: { type: 'InClusterConfig', kubeConfigFile: kubeconfig } }),
      `authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "${kubeconfig}": can only be set when type=KubeConfigFile`,
    ],
    [
      'an empty condition',
      oneWebhook({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: [{ expression: '  ' }] }),
      'authorizers[0].matchConditions[0].expression: Required value',
    ],
    [
      'a repeated condition',
      oneWebhook({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: [{ expression: 'true' }, { expression: 'true' }] }),
      'authorizers[0].matchConditions[1].expression: Duplicate value: "true"',
    ],
    [
      'a condition that is not boolean',
      oneWebhook({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: [{ expression: 'request.user' }] }),
      'authorizers[0].matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool but got string',
    ],
    [
      'too many conditions',
      oneWebhook({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: Array.from({ length: 65 }, (_, i) => ({ expression: `request.user != "u${i}"` })) }),
      'authorizers[0].matchConditions: Too many: 65: must have at most 64 items',
    ],
    ['a non-webhook authorizer not named after its type', doc([{ type: 'AlwaysDeny', name: 'deny' }]), 'expected name alwaysdeny for authorizer AlwaysDeny instead of deny'],
  ])('rejects %s', async (_what, text, message) => {
    expect(await errorOf(text)).toBe(message);
  });

  it('reports a condition that does not compile with the compiler message', async () => {
    const message = await errorOf(oneWebhook({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: [{ expression: 'request.usr == "x"' }] }));
    expect(message).toMatch(/^authorizers\[0\]\.matchConditions\[0\]\.expression: Invalid value: "request\.usr == \\"x\\"": compilation failed: /);
  });

  it('accepts exactly 64 conditions over request and the spec spelling KubeConfig', async () => {
    const conditions = Array.from({ length: 64 }, (_, i) => ({ expression: `request.user != "u${i}"` }));
    const config = await load(
      oneWebhook({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: conditions, connectionInfo: { type: 'KubeConfig', kubeConfigFile: kubeconfig } }),
    );
    expect(config.authorizers[0].webhook?.matchConditions).toHaveLength(64);
  });

  it('lists several problems at once, as kube aggregates them', async () => {
    const message = await errorOf(oneWebhook({ timeout: '1h', failurePolicy: 'Maybe' }));
    expect(message).toBe(
      '[authorizers[0].timeout: Invalid value: "1h0m0s": must be > 0s and <= 30s, authorizers[0].failurePolicy: Unsupported value: "Maybe": supported values: "NoOpinion", "Deny"]',
    );
  });

  it('on reload, requires every non-webhook type in force since start', async () => {
    const text = doc([{ type: 'Webhook', name: 'w', webhook: webhook() }, { type: 'AlwaysDeny', name: 'alwaysdeny' }]);
    await expect(load(text, ['AlwaysDeny'])).resolves.toBeDefined();
    expect(await errorOf(text, ['AlwaysDeny', 'RBAC', 'Node'])).toBe('missing required types: [Node RBAC]');
  });
});

describe('reading the configuration file', () => {
  it('reports a missing file as kube does', () => {
    expect(() => readAuthorizationConfigFile('/nonexistent/authz.yaml')).toThrow('open /nonexistent/authz.yaml: no such file or directory');
  });
});
