import { FlagError, parseServerFlags } from '../../../src/config/flags';

const parse = (args: string[]) => parseServerFlags(args, {});
const rejects = (args: string[], message: string) => {
  expect(() => parse(args)).toThrow(FlagError);
  expect(() => parse(args)).toThrow(message);
};

describe('authorization flags', () => {
  it('defaults the webhook flags as kube does', () => {
    const options = parse([]);
    expect(options.authorizationWebhook).toEqual({ version: 'v1beta1', cacheAuthorizedTTLMs: 300_000, cacheUnauthorizedTTLMs: 30_000, configFile: undefined });
    expect(options.authorizationConfigFile).toBeUndefined();
    expect(options.authorizationModes).toEqual(['Node', 'RBAC']);
  });

  it('reads the webhook flags', () => {
    const options = parse([
      '--authorization-mode=Webhook',
      '--authorization-webhook-config-file=/etc/webhook.kubeconfig',
      '--authorization-webhook-version=v1',
      '--authorization-webhook-cache-authorized-ttl=1m30s',
      '--authorization-webhook-cache-unauthorized-ttl=0',
    ]);
    expect(options.authorizationWebhook).toEqual({ configFile: '/etc/webhook.kubeconfig', version: 'v1', cacheAuthorizedTTLMs: 90_000, cacheUnauthorizedTTLMs: 0 });
  });

  it('rejects bad webhook flag values and combinations', () => {
    rejects(['--authorization-webhook-version=v2'], 'unsupported webhook authorizer version "v2", supported versions are "v1", "v1beta1"');
    rejects(['--authorization-webhook-cache-authorized-ttl=soon'], 'time: invalid duration "soon"');
    rejects(['--authorization-mode=Webhook'], "authorization-mode Webhook's authorization config file not passed");
    rejects(['--authorization-webhook-config-file=/x'], 'cannot specify --authorization-webhook-config-file without mode Webhook');
  });

  it('takes --authorization-config alone, without a mode list', () => {
    const options = parse(['--authorization-config=/etc/authz.yaml']);
    expect(options.authorizationConfigFile).toBe('/etc/authz.yaml');
    expect(options.authorizationModes).toEqual([]);
  });

  it('refuses --authorization-config together with the mode or webhook flags (kube message)', () => {
    const message = '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined';
    rejects(['--authorization-config=/etc/authz.yaml', '--authorization-mode=AlwaysAllow'], message);
    rejects(['--authorization-config=/etc/authz.yaml', '--authorization-webhook-version=v1'], message);
    rejects(['--authorization-config=/etc/authz.yaml', '--authorization-webhook-cache-unauthorized-ttl=1s'], message);
    rejects(['--authorization-config=/etc/authz.yaml', '--authorization-webhook-config-file=/x'], message);
  });

  it('refuses --authorization-config with the StructuredAuthorizationConfiguration gate off', () => {
    rejects(
      ['--authorization-config=/etc/authz.yaml', '--feature-gates=StructuredAuthorizationConfiguration=false'],
      '--authorization-config cannot be used without enabling StructuredAuthorizationConfiguration feature flag',
    );
  });
});
