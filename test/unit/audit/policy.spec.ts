import { parseAuditPolicy } from '../../../src/audit/policy';
import { AuditAttributes, AuditPolicyChecker } from '../../../src/audit/policy-checker';

const header = 'apiVersion: audit.platform.io/v1\nkind: Policy\n';

function refused(text: string): string {
  try {
    parseAuditPolicy(header + text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the policy was accepted');
}

describe('audit policy validation', () => {
  it('accepts kube policies in YAML and JSON', () => {
    const policy = parseAuditPolicy(header + 'omitStages: [RequestReceived]\nrules:\n- level: Metadata\n  resources: [{group: "", resources: ["pods/*", "*/status"], resourceNames: [a]}]\n');
    expect(policy.rules[0].level).toBe('Metadata');
    expect(policy.omitStages).toEqual(['RequestReceived']);
    expect(parseAuditPolicy(JSON.stringify({ apiVersion: 'audit.platform.io/v1', kind: 'Policy', rules: [{ level: 'None' }] })).rules).toHaveLength(1);
  });

  it('names each bad field by its path, in kube words', () => {
    expect(refused('rules:\n- level: Loud\n')).toBe('rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse"');
    expect(refused('rules:\n- {}\n')).toBe('rules[0].level: Required value');
    expect(refused('rules:\n- level: None\n  nonResourceURLs: ["healthz", "/a*b"]\n')).toBe(
      `[rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character, rules[0].nonResourceURLs[1]: Invalid value: "/a*b": non-resource URL wildcards '*' must be the final character of the rule]`,
    );
    expect(refused('rules:\n- level: None\n  resources: [{group: "rbac.authorization.platform.io/v1"}]\n')).toMatch(/^rules\[0\]\.resources\[0\]\.group: Invalid value: "rbac.authorization.platform.io\/v1": a lowercase RFC 1123 subdomain/);
    expect(refused('rules:\n- level: None\n  resources: [{resourceNames: [x]}]\n')).toBe('rules[0].resources[0].resourceNames: Invalid value: ["x"]: using resourceNames requires at least one resource');
    expect(refused('rules:\n- level: None\n  namespaces: [a]\n  nonResourceURLs: [/x]\n')).toBe('rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs');
    expect(refused('omitStages: [Sometime]\nrules:\n- level: None\n')).toBe('omitStages[0]: Invalid value: "Sometime": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic');
    expect(refused('rules:\n- level: None\n  users: alice\n')).toBe('rules[0].users: Invalid value: "alice": must be a list of strings');
    expect(refused('rules:\n- level: None\n  omitManagedFields: "yes"\n')).toBe('rules[0].omitManagedFields: Invalid value: "yes": must be a boolean');
    expect(refused('rules: []\n')).toBe('loaded illegal policy with 0 rules');
  });

  it('refuses another group version or kind', () => {
    expect(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None}]')).toThrow(/unknown group version field audit.k8s.io\/v1, Kind=Policy/);
    expect(() => parseAuditPolicy('{')).toThrow(/^failed decoding/);
  });
});

describe('audit policy evaluation', () => {
  const user = { username: 'alice', groups: ['dev', 'system:authenticated'] };
  const resource = (over: Partial<AuditAttributes> = {}): AuditAttributes => ({
    user, verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/ns/pods/p', namespace: 'ns', apiGroup: '', resource: 'pods', subresource: '', name: 'p', ...over,
  });
  const nonResource = (path: string): AuditAttributes => ({ user, verb: 'get', isResourceRequest: false, path, namespace: '', apiGroup: '', resource: '', subresource: '', name: '' });
  const checker = (rules: string, extra = '') => new AuditPolicyChecker(parseAuditPolicy(`${header}${extra}rules:\n${rules}`));

  it('takes the first matching rule; nothing matching is None', () => {
    const c = checker('- level: None\n  users: [bob]\n- level: Request\n  userGroups: [dev]\n  verbs: [get]\n- level: Metadata\n  verbs: [list]\n');
    expect(c.evaluate(resource()).level).toBe('Request');
    expect(c.evaluate(resource({ user: { username: 'bob', groups: [] } })).level).toBe('None');
    expect(c.evaluate(resource({ verb: 'create' })).level).toBe('None');
    expect(c.evaluate(resource({ verb: 'list', user: undefined })).level).toBe('Metadata');
  });

  it('matches groups, resources, subresource forms, names and namespaces as kube does', () => {
    const c = checker(
      [
        '- level: RequestResponse\n  resources: [{group: "", resources: ["pods/*"]}]\n  namespaces: [ns]',
        '- level: Request\n  resources: [{group: "", resources: ["*/status"]}]',
        '- level: Metadata\n  resources: [{group: rbac.authorization.platform.io, resources: [roles], resourceNames: [r1]}]',
        '- level: None\n  resources: [{group: rbac.authorization.platform.io}]',
        '- level: Request\n  namespaces: [""]',
      ].join('\n') + '\n',
    );
    expect(c.evaluate(resource({ subresource: 'log' })).level).toBe('RequestResponse');
    expect(c.evaluate(resource({ namespace: 'other' })).level).toBe('None');
    expect(c.evaluate(resource({ namespace: 'other', resource: 'nodes', subresource: 'status' })).level).toBe('Request');
    const role = { apiGroup: 'rbac.authorization.platform.io', resource: 'roles', namespace: 'x' };
    expect(c.evaluate(resource({ ...role, name: 'r1' })).level).toBe('Metadata');
    expect(c.evaluate(resource({ ...role, name: 'r2' })).level).toBe('None');
    expect(c.evaluate(resource({ resource: 'nodes', namespace: '', name: 'n' })).level).toBe('Request');
    expect(c.evaluate(nonResource('/version')).level).toBe('None');
  });

  it('matches non-resource URLs exactly, by prefix with a final *, or all with *', () => {
    const c = checker('- level: None\n  nonResourceURLs: [/healthz*, /version]\n- level: Metadata\n  nonResourceURLs: ["*"]\n');
    expect(c.evaluate(nonResource('/healthz/ping')).level).toBe('None');
    expect(c.evaluate(nonResource('/version')).level).toBe('None');
    expect(c.evaluate(nonResource('/version/x')).level).toBe('Metadata');
    expect(c.evaluate(resource()).level).toBe('None');
  });

  it('joins the omitted stages of the policy and the rule; the rule decides omitManagedFields', () => {
    const c = checker('- level: Metadata\n  omitStages: [ResponseStarted]\n  omitManagedFields: false\n', 'omitStages: [RequestReceived]\nomitManagedFields: true\n');
    expect(c.evaluate(resource())).toEqual({ level: 'Metadata', omitStages: ['RequestReceived', 'ResponseStarted'], omitManagedFields: false });
  });

  it('logs Secret and token request bodies only under a rule naming them', () => {
    const c = checker(
      '- level: RequestResponse\n  users: [auditor]\n  resources: [{group: "", resources: [secrets, serviceaccounts/token]}]\n- level: RequestResponse\n',
    );
    const secret = resource({ resource: 'secrets', name: 's' });
    expect(c.evaluate(secret).level).toBe('Metadata');
    expect(c.evaluate(resource({ resource: 'serviceaccounts', subresource: 'token' })).level).toBe('Metadata');
    expect(c.evaluate(resource({ resource: 'serviceaccounts' })).level).toBe('RequestResponse');
    const auditor = { username: 'auditor', groups: [] };
    expect(c.evaluate({ ...secret, user: auditor }).level).toBe('RequestResponse');
    expect(c.evaluate(resource({ user: auditor, resource: 'serviceaccounts', subresource: 'token' })).level).toBe('RequestResponse');
    const wildcard = checker('- level: Request\n  resources: [{group: "", resources: ["*"]}]\n');
    expect(wildcard.evaluate(secret).level).toBe('Metadata');
  });
});
