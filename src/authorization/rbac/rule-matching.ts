import { PolicyRule } from '../../apis/rbac/types';
import { AuthorizationAttributes } from '../authorizer';

/**
 * Whether a PolicyRule grants a request, exactly as kube's RuleAllows and the rbac/v1
 * helpers decide. Stored rules are validated, but the matchers tolerate missing lists
 * (nothing matches an absent list) so a malformed object can never grant by accident.
 */

export const VERB_ALL = '*';
export const API_GROUP_ALL = '*';
export const RESOURCE_ALL = '*';
export const NON_RESOURCE_ALL = '*';

/** The request's attributes the rule matchers read. */
export type RuleAttributes = Pick<AuthorizationAttributes, 'verb' | 'isResourceRequest' | 'path' | 'apiGroup' | 'resource' | 'subresource' | 'name'>;

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  const verbs = rule.verbs ?? [];
  for (const v of verbs) if (v === VERB_ALL || v === verb) return true;
  return false;
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  const groups = rule.apiGroups ?? [];
  for (const g of groups) if (g === API_GROUP_ALL || g === group) return true;
  return false;
}

/**
 * `combined` is `resource` or `resource/subresource`. A rule names a subresource as
 * `resource/subresource`, or `*\/subresource` for that subresource of every resource;
 * `*` is every resource and every subresource.
 */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  const resources = rule.resources ?? [];
  for (const r of resources) {
    if (r === RESOURCE_ALL || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** No resourceNames = any name; otherwise the request must name one of them (create/list have no name). */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  if (names.length === 0) return true;
  for (const n of names) if (n === name) return true;
  return false;
}

/** Exact, `*`, or any URL that ends in `*` as a prefix (kube trims every trailing `*`). */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  const urls = rule.nonResourceURLs ?? [];
  for (const url of urls) {
    if (url === NON_RESOURCE_ALL || url === path) return true;
    if (url.endsWith('*') && path.startsWith(trimTrailingStars(url))) return true;
  }
  return false;
}

function trimTrailingStars(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '*') end--;
  return url.slice(0, end);
}

/** kube's RuleAllows. */
export function ruleAllows(rule: PolicyRule, attrs: RuleAttributes): boolean {
  if (attrs.isResourceRequest) {
    const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    return (
      verbMatches(rule, attrs.verb) &&
      apiGroupMatches(rule, attrs.apiGroup) &&
      resourceMatches(rule, combined, attrs.subresource) &&
      resourceNameMatches(rule, attrs.name)
    );
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

/** kube's RulesAllow: any of the rules grants the request. */
export function rulesAllow(rules: readonly PolicyRule[], attrs: RuleAttributes): boolean {
  for (const rule of rules) if (ruleAllows(rule, attrs)) return true;
  return false;
}
