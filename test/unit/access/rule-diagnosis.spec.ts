import { NearMiss } from '../../../src/access/access-types';
import { MAX_NEAR_MISSES, missingDimensions, rankNearMisses } from '../../../src/access/rule-diagnosis';
import { ruleAllows } from '../../../src/authorization/rbac/rule-matching';
import { PolicyRule } from '../../../src/apis/rbac/types';
import { req, url, user } from '../authorization/rbac-fixtures';

/** What a rule lacks, in words, judged with the RBAC authorizer's matchers. */

const ALICE = user('alice');
const crb = { kind: 'ClusterRoleBinding' as const, namespace: '', name: 'b' };
const rb = (namespace: string) => ({ kind: 'RoleBinding' as const, namespace, name: 'b' });
const rule = (r: Partial<PolicyRule>): PolicyRule => ({ verbs: ['get'], apiGroups: [''], resources: ['pods'], ...r });

describe('missingDimensions', () => {
  it('is empty exactly when the authorizer\'s matching allows, in scope', () => {
    const attrs = req(ALICE, 'get', '', 'pods', { ns: 'a', name: 'p' });
    for (const r of [rule({}), rule({ verbs: ['*'] }), rule({ resources: ['*'] }), rule({ resourceNames: ['p'] }), rule({ apiGroups: ['*'] })]) {
      expect(ruleAllows(r, attrs)).toBe(true);
      expect(missingDimensions(r, crb, attrs)).toEqual([]);
      expect(missingDimensions(r, rb('a'), attrs)).toEqual([]);
    }
  });

  it('reads the impersonation verbs as plain verbs, and says a "*" inside one is no wildcard', () => {
    const attrs = req(ALICE, 'impersonate-on:user-info:list', '', 'pods', { ns: 'a' });
    expect(missingDimensions(rule({ verbs: ['impersonate-on:user-info:list'] }), crb, attrs)).toEqual([]);
    expect(missingDimensions(rule({ verbs: ['impersonate-on:user-info:get'] }), crb, attrs)).toEqual([
      'verb "impersonate-on:user-info:list" is not in verbs ["impersonate-on:user-info:get"]',
    ]);
    expect(missingDimensions(rule({ verbs: ['impersonate-on:user-info:*'] }), crb, attrs)).toEqual([
      'verb "impersonate-on:user-info:list" is not in verbs ["impersonate-on:user-info:*"] ("*" is a wildcard only as a whole verb)',
    ]);
    // Other verbs are not told about it.
    expect(missingDimensions(rule({ verbs: ['get*'] }), crb, req(ALICE, 'list', '', 'pods', { ns: 'a' }))).toEqual(['verb "list" is not in verbs ["get*"]']);
  });

  it('names each failing dimension', () => {
    expect(missingDimensions(rule({}), crb, req(ALICE, 'delete', 'apps', 'secrets', { ns: 'a', name: 'x' }))).toEqual([
      'verb "delete" is not in verbs ["get"]',
      'API group "apps" is not in apiGroups [""]',
      'resource "secrets" is not in resources ["pods"]',
    ]);
    expect(missingDimensions(rule({}), crb, req(ALICE, 'get', '', 'pods', { ns: 'a', sub: 'log' }))).toEqual(['subresource "pods/log" is not in resources ["pods"]']);
    expect(missingDimensions(rule({ resources: ['pods/log'] }), crb, req(ALICE, 'get', '', 'pods', { ns: 'a' }))).toEqual([
      'resources ["pods/log"] name only subresources of "pods", not "pods" itself',
    ]);
    expect(missingDimensions(rule({ resourceNames: ['p1'] }), crb, req(ALICE, 'get', '', 'pods', { ns: 'a', name: 'p2' }))).toEqual([
      'resource name "p2" is not in resourceNames ["p1"]',
    ]);
    expect(missingDimensions(rule({ resourceNames: ['p1'] }), crb, req(ALICE, 'list', '', 'pods', { ns: 'a' }))).toEqual([
      'verb "list" is not in verbs ["get"]',
      'the request names no object, and the rule is limited to resourceNames ["p1"]',
    ]);
    expect(missingDimensions(rule({}), rb('a'), req(ALICE, 'get', '', 'pods', { ns: 'b' }))).toEqual(['RoleBinding "b" grants only in namespace "a", not in namespace "b"']);
    expect(missingDimensions(rule({}), rb('a'), req(ALICE, 'get', '', 'pods'))).toEqual(['RoleBinding "b" grants only in namespace "a", not in every namespace (cluster-wide)']);
  });

  it('judges non-resource URLs, and skips rules of the other kind', () => {
    const urlRule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] };
    expect(missingDimensions(urlRule, crb, url(ALICE, 'get', '/api/v1'))).toEqual([]);
    expect(missingDimensions(urlRule, crb, url(ALICE, 'post', '/metrics'))).toEqual([
      'verb "post" is not in verbs ["get"]',
      'non-resource URL "/metrics" is not matched by nonResourceURLs ["/healthz", "/api/*"]',
    ]);
    expect(missingDimensions(urlRule, crb, req(ALICE, 'get', '', 'pods'))).toBeUndefined();
    expect(missingDimensions(rule({}), crb, url(ALICE, 'get', '/x'))).toBeUndefined();
  });
});

describe('rankNearMisses', () => {
  const miss = (name: string, missing: number, ruleIndex = 0, kind: 'RoleBinding' | 'ClusterRoleBinding' = 'ClusterRoleBinding'): NearMiss => ({
    binding: kind === 'RoleBinding' ? { kind, namespace: 'a', name } : { kind, name },
    role: { kind: 'ClusterRole', name: 'r' },
    ruleIndex,
    rule: rule({}),
    missing: Array.from({ length: missing }, (_, i) => `m${i}`),
  });

  it('puts fewest missing first, then cluster-wide before namespaced bindings, names and rule order', () => {
    const ranked = rankNearMisses([miss('z', 2), miss('y', 1, 1), miss('y', 1, 0), miss('a', 1, 0, 'RoleBinding'), miss('b', 3)], 5);
    expect(ranked.map((m) => `${m.binding.name}/${m.ruleIndex}:${m.missing.length}`)).toEqual(['y/0:1', 'y/1:1', 'a/0:1', 'z/0:2', 'b/0:3']);
  });

  it('drops rules that miss every dimension or nothing, and keeps at most ten', () => {
    expect(rankNearMisses([miss('all', 5), miss('none', 0)], 5)).toEqual([]);
    const many = Array.from({ length: 25 }, (_, i) => miss(`b${String(i).padStart(2, '0')}`, (i % 4) + 1));
    const ranked = rankNearMisses(many, 5);
    expect(ranked).toHaveLength(MAX_NEAR_MISSES);
    expect(ranked.every((m, i) => i === 0 || ranked[i - 1].missing.length <= m.missing.length)).toBe(true);
  });
});
