import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAuditPolicy } from '../../../src/audit/policy';
import { AuditAttributes, AuditPolicyChecker } from '../../../src/audit/policy-checker';

/** The policy shipped as an example loads, and keeps Secrets at Metadata. */
describe('the example audit policy', () => {
  const checker = new AuditPolicyChecker(parseAuditPolicy(readFileSync(join(__dirname, '../../../helm/examples/audit-policy.yaml'), 'utf8')));
  const request = (over: Partial<AuditAttributes>): AuditAttributes => ({
    user: { username: 'alice', groups: ['system:authenticated'] }, verb: 'create', isResourceRequest: true, path: '', namespace: 'ns', apiGroup: '', resource: 'configmaps', subresource: '', name: '', ...over,
  });

  it('logs Secrets and ConfigMaps at Metadata, RBAC changes with bodies, probes not at all', () => {
    expect(checker.evaluate(request({ resource: 'secrets' })).level).toBe('Metadata');
    expect(checker.evaluate(request({ resource: 'secrets', verb: 'update' })).level).toBe('Metadata');
    expect(checker.evaluate(request({ resource: 'configmaps' })).level).toBe('Metadata');
    expect(checker.evaluate(request({ apiGroup: 'rbac.authorization.platform.io', resource: 'roles' }))).toEqual({ level: 'RequestResponse', omitStages: ['RequestReceived'], omitManagedFields: true });
    expect(checker.evaluate(request({ resource: 'pods' })).level).toBe('Request');
    expect(checker.evaluate(request({ resource: 'pods', verb: 'list' })).level).toBe('Metadata');
    expect(checker.evaluate(request({ isResourceRequest: false, verb: 'get', path: '/readyz', resource: '' })).level).toBe('None');
  });

  it('logs the deletion and every change of a guardrail with the objects', () => {
    const guardrail = { apiGroup: 'access.platform.io', resource: 'accessguardrails', namespace: '', name: 'kube-system-secrets' };
    expect(checker.evaluate(request({ ...guardrail, verb: 'delete' })).level).toBe('RequestResponse');
    expect(checker.evaluate(request({ ...guardrail, verb: 'update' })).level).toBe('RequestResponse');
    expect(checker.evaluate(request({ ...guardrail, verb: 'get' })).level).toBe('Metadata');
  });
});
