import { FlagError, HelpRequested, parseServerFlags } from '../../../src/config/flags';

describe('authorization flags', () => {
  it('accept every mode name, in order', () => {
    const o = parseServerFlags(
      ['--authorization-mode=Node,RBAC,Webhook,ABAC,AlwaysDeny,AlwaysAllow', '--authorization-policy-file=p.jsonl', '--authorization-webhook-config-file=w.kubeconfig'],
      {},
    );
    expect(o.authorizationModes).toEqual(['Node', 'RBAC', 'Webhook', 'ABAC', 'AlwaysDeny', 'AlwaysAllow']);
    expect(o.authorizationPolicyFile).toBe('p.jsonl');
  });

  it.each([
    [['--authorization-mode=ABAC'], "authorization-mode ABAC's authorization policy file not passed"],
    [['--authorization-mode=RBAC', '--authorization-policy-file=p.jsonl'], 'cannot specify --authorization-policy-file without mode ABAC'],
    [['--authorization-policy-file=p.jsonl'], 'cannot specify --authorization-policy-file without mode ABAC'],
    [['--authorization-mode=RBAC,rbac'], 'unknown authorization mode "rbac"'],
    [['--authorization-mode=RBAC,RBAC'], 'an authorization mode may be listed only once'],
  ])('reject %j', (argv, message) => {
    expect(() => parseServerFlags(argv, {})).toThrow(FlagError);
    expect(() => parseServerFlags(argv, {})).toThrow(message);
  });

  it('are listed in the help', () => {
    try {
      parseServerFlags(['--help'], {});
      throw new Error('no help');
    } catch (err) {
      expect(err).toBeInstanceOf(HelpRequested);
      expect((err as HelpRequested).helpText).toContain('--authorization-policy-file');
      expect((err as HelpRequested).helpText).toContain('ABAC, RBAC, Node, Webhook');
    }
  });
});
