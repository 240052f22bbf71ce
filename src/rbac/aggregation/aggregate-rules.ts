import { ClusterRole, PolicyRule } from '../../apis/rbac/types';
import { clusterRoleSelectorMatcher } from './cluster-role-selector';

const RULE_FIELDS = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;

function sameStrings(a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/**
 * Rule equality as kube's equality.Semantic.DeepEqual sees it: every list equal element by
 * element, in order, with an absent list equal to an empty one.
 */
export function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  return RULE_FIELDS.every((field) => sameStrings(a?.[field], b?.[field]));
}

/** A string equal for exactly the rules sameRule calls equal. */
export function ruleKey(rule: PolicyRule): string {
  return JSON.stringify(RULE_FIELDS.map((field) => rule?.[field] ?? []));
}

export function sameRules(a: readonly PolicyRule[] | null | undefined, b: readonly PolicyRule[] | null | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((rule, i) => sameRule(rule, y[i]));
}

const byName = (a: ClusterRole, b: ClusterRole) => {
  const x = a.metadata.name ?? '';
  const y = b.metadata.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * The rules an aggregating ClusterRole should have, as kube's clusterrole-aggregation
 * controller computes them: for each selector in order, the matching roles sorted by name
 * (the aggregating role itself excluded), each role's rules in their order, keeping only
 * the first of equal rules. Null when a selector cannot be read (the role is left as is).
 */
export function aggregateRules(aggregate: ClusterRole, roles: Iterable<ClusterRole>): PolicyRule[] | null {
  const selectors = aggregate.aggregationRule?.clusterRoleSelectors ?? [];
  const matchers = selectors.map((s) => clusterRoleSelectorMatcher(s));
  if (matchers.some((m) => m === null)) return null;
  const all = [...roles].sort(byName);
  const result: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const matcher of matchers) {
    for (const role of all) {
      if (role.metadata.name === aggregate.metadata.name || !matcher!.matches(role.metadata.labels)) continue;
      for (const rule of role.rules ?? []) {
        const key = ruleKey(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        result.push(rule);
      }
    }
  }
  return result;
}
