import { PolicyRule } from '../../apis/rbac/types';

/**
 * Rule coverage as kube's pkg/registry/rbac/validation (`Covers`, `BreakdownRule`,
 * `ruleCovers`): whether one set of rules grants at least everything another grants.
 * Reconciliation uses it to find the default permissions a role lacks; escalation checks
 * need the same answer about a caller's rules.
 */

const ALL = '*';

/**
 * Splits a rule into atomic ones: one group, resource, verb (and name) each, or one URL and
 * verb. Each atomic rule is then covered entirely by a single owner rule or not at all.
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const verbs = rule.verbs ?? [];
  const names = rule.resourceNames ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of verbs) {
        if (names.length) {
          for (const name of names) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
        } else {
          out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        }
      }
    }
  }
  // Non-resource URLs only combine with verbs.
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of verbs) out.push({ verbs: [verb], nonResourceURLs: [url] });
  }
  return out;
}

function hasAll(set: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((w) => set.includes(w));
}

// `*` covers every resource; `*` + "/sub" covers that subresource of every resource.
function resourcesCover(owner: readonly string[], wanted: readonly string[]): boolean {
  if (owner.includes(ALL) || hasAll(owner, wanted)) return true;
  return wanted.every((path) => {
    if (owner.includes(path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && owner.includes(`*/${path.slice(slash + 1)}`);
  });
}

/** An owner URL ending in `*` covers every URL with its prefix. */
function urlCovers(owner: string, url: string): boolean {
  if (owner === url) return true;
  return owner.endsWith('*') && url.startsWith(owner.replace(/\*+$/, ''));
}

function urlsCover(owner: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((url) => owner.some((o) => urlCovers(o, url)));
}

/** Whether one owner rule grants everything a (typically atomic) rule grants. */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const ownerVerbs = owner.verbs ?? [];
  const ownerGroups = owner.apiGroups ?? [];
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const verbs = ownerVerbs.includes(ALL) || hasAll(ownerVerbs, sub.verbs ?? []);
  const groups = ownerGroups.includes(ALL) || hasAll(ownerGroups, sub.apiGroups ?? []);
  const resources = resourcesCover(owner.resources ?? [], sub.resources ?? []);
  const urls = urlsCover(owner.nonResourceURLs ?? [], sub.nonResourceURLs ?? []);
  // A rule limited to names never covers one that is not; an unlimited rule covers any names.
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && names && urls;
}

export interface Coverage {
  covered: boolean;
  /** The atomic rules of the servant no owner rule covers. */
  uncovered: PolicyRule[];
}

/** Whether `owner` rules cover all of `servant` rules, and the atomic rules they miss. */
export function covers(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): Coverage {
  const uncovered = servant.flatMap(breakdownRule).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
  return { covered: uncovered.length === 0, uncovered };
}
