import { createHash } from 'node:crypto';
import { PolicyRule } from '../../apis/rbac/types';

/** The parts of a rule, in a fixed order and with empty lists left out: what its hash is taken over. */
function canonical(rule: PolicyRule): string {
  const parts: Array<[string, readonly string[] | undefined]> = [
    ['verbs', rule.verbs],
    ['apiGroups', rule.apiGroups],
    ['resources', rule.resources],
    ['resourceNames', rule.resourceNames],
    ['nonResourceURLs', rule.nonResourceURLs],
  ];
  return JSON.stringify(parts.filter(([, v]) => v?.length).map(([k, v]) => [k, v]));
}

/**
 * A rule's content hash (16 hex digits of SHA-256): the same rule has the same hash on every
 * replica and in every role, and an edited rule gets a new one, so its usage starts afresh.
 */
export function ruleHash(rule: PolicyRule): string {
  return createHash('sha256').update(canonical(rule)).digest('hex').slice(0, 16);
}

/** A plain copy of a rule, empty lists left out (for objects served and stored). */
export function copyRule(rule: PolicyRule): PolicyRule {
  return {
    verbs: [...(rule.verbs ?? [])],
    ...(rule.apiGroups?.length || (rule.resources?.length && rule.apiGroups) ? { apiGroups: [...(rule.apiGroups ?? [])] } : {}),
    ...(rule.resources?.length ? { resources: [...rule.resources] } : {}),
    ...(rule.resourceNames?.length ? { resourceNames: [...rule.resourceNames] } : {}),
    ...(rule.nonResourceURLs?.length ? { nonResourceURLs: [...rule.nonResourceURLs] } : {}),
  };
}
