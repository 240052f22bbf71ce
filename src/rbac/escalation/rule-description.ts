import { goQuoteList } from '../../apimachinery/go-text';
import { PolicyRule } from '../../apis/rbac/types';

/**
 * The readable form of the permissions an escalation refusal lists, as kube writes it:
 * atomic missing rules merged per group/resource (CompactRules), each printed as
 * `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}` (CompactString).
 */

/**
 * The rules that differ only by verb can be merged: one group, one resource, at most one
 * resource name, and nothing else (kube's isSimpleResourceRule). Returns the merge key.
 */
function simpleResourceKey(rule: PolicyRule): string | undefined {
  const names = rule.resourceNames ?? [];
  if (names.length > 1 || (rule.nonResourceURLs ?? []).length > 0) return undefined;
  if ((rule.apiGroups ?? []).length !== 1 || (rule.resources ?? []).length !== 1) return undefined;
  return JSON.stringify([rule.apiGroups![0], rule.resources![0], names.length ? names[0] : null]);
}

/**
 * kube's CompactRules: rules on the same single group/resource/name are merged into one
 * with the union of their verbs (in first-seen order); any other rule is kept as it is.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const key = simpleResourceKey(rule);
    if (key === undefined) {
      compacted.push(rule);
      continue;
    }
    const existing = simple.get(key);
    if (!existing) {
      simple.set(key, { ...rule, verbs: [...(rule.verbs ?? [])] });
      continue;
    }
    for (const verb of rule.verbs ?? []) if (!existing.verbs.includes(verb)) existing.verbs.push(verb);
  }
  return [...compacted, ...simple.values()];
}

/** kube's CompactString of a PolicyRule: only the non-empty fields, in kube's order. */
export function compactRuleString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${goQuoteList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${goQuoteList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoteList(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${goQuoteList(rule.resourceNames)}`);
  if (rule.verbs?.length) parts.push(`Verbs:${goQuoteList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** Compares as Go compares strings: by UTF-8 bytes (sets.String.List sorts that way). */
function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The missing rules as kube lists them: compacted, printed, deduplicated and sorted, one a line. */
export function describeMissingRules(missing: readonly PolicyRule[]): string {
  const lines = new Set(compactRules(missing).map(compactRuleString));
  return [...lines].sort(byBytes).join('\n');
}
