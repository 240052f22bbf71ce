import { parseImpersonationVerb } from '../authentication/impersonation/constrained-impersonation';
import { AuthorizationAttributes } from '../authorization/authorizer';
import { apiGroupMatches, nonResourceURLMatches, resourceMatches, resourceNameMatches, verbMatches } from '../authorization/rbac/rule-matching';
import { PolicyRule } from '../apis/rbac/types';
import { NearMiss } from './access-types';

/**
 * Why a rule of a subject's binding does not allow a request: one readable line per
 * dimension that fails (verb, API group, resource, subresource, resource name, the
 * namespace a RoleBinding is limited to, non-resource URL), judged with the RBAC
 * authorizer's own matchers, so "nothing missing" means exactly "the authorizer allows".
 */

/** Where the rule's binding applies: a RoleBinding only in its namespace. */
export interface BindingScope {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  namespace: string;
  name: string;
}

const list = (values: readonly string[] | undefined) => `[${(values ?? []).map((v) => JSON.stringify(v)).join(', ')}]`;
const quote = (s: string) => JSON.stringify(s);

/** The resource part of a rule's resource entry (`pods` of `pods/log`). */
const baseOf = (entry: string) => entry.split('/')[0];

/**
 * For an impersonation verb (`impersonate-on:user-info:list`) a rule may well name
 * `impersonate-on:user-info:*`, which RBAC takes literally: say so.
 */
function starInsideVerb(rule: PolicyRule, verb: string): string {
  if (!parseImpersonationVerb(verb) || !(rule.verbs ?? []).some((v) => v !== '*' && v.includes('*'))) return '';
  return ' ("*" is a wildcard only as a whole verb)';
}

/**
 * What fails, or undefined when the rule cannot speak to this kind of request at all (a
 * URL rule for a resource request, or the reverse): such rules are not near misses.
 */
export function missingDimensions(rule: PolicyRule, scope: BindingScope, attrs: AuthorizationAttributes): string[] | undefined {
  const missing: string[] = [];
  if (!verbMatches(rule, attrs.verb)) missing.push(`verb ${quote(attrs.verb)} is not in verbs ${list(rule.verbs)}${starInsideVerb(rule, attrs.verb)}`);
  if (!attrs.isResourceRequest) {
    if (!rule.nonResourceURLs?.length) return undefined;
    if (!nonResourceURLMatches(rule, attrs.path)) missing.push(`non-resource URL ${quote(attrs.path)} is not matched by nonResourceURLs ${list(rule.nonResourceURLs)}`);
    if (scope.kind === 'RoleBinding') missing.push(`RoleBinding ${quote(scope.name)} cannot grant non-resource URLs: only a ClusterRoleBinding can`);
    return missing;
  }
  if (!rule.resources?.length) return undefined;
  if (!apiGroupMatches(rule, attrs.apiGroup)) missing.push(`API group ${quote(attrs.apiGroup)} is not in apiGroups ${list(rule.apiGroups)}`);
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  if (!resourceMatches(rule, combined, attrs.subresource)) {
    const resources = rule.resources ?? [];
    const resourceKnown = resources.some((r) => r === '*' || baseOf(r) === attrs.resource || (attrs.subresource && baseOf(r) === '*'));
    if (!resourceKnown) missing.push(`resource ${quote(attrs.resource)} is not in resources ${list(resources)}`);
    else if (attrs.subresource) missing.push(`subresource ${quote(combined)} is not in resources ${list(resources)}`);
    else missing.push(`resources ${list(resources)} name only subresources of ${quote(attrs.resource)}, not ${quote(attrs.resource)} itself`);
  }
  if (!resourceNameMatches(rule, attrs.name)) {
    missing.push(
      attrs.name
        ? `resource name ${quote(attrs.name)} is not in resourceNames ${list(rule.resourceNames)}`
        : `the request names no object, and the rule is limited to resourceNames ${list(rule.resourceNames)}`,
    );
  }
  if (scope.kind === 'RoleBinding' && scope.namespace !== attrs.namespace) {
    const where = attrs.namespace ? `namespace ${quote(attrs.namespace)}` : 'every namespace (cluster-wide)';
    missing.push(`RoleBinding ${quote(scope.name)} grants only in namespace ${quote(scope.namespace)}, not in ${where}`);
  }
  return missing;
}

/** Near misses shown at most. */
export const MAX_NEAR_MISSES = 10;

const scopeOrder = (m: NearMiss) => `${m.binding.kind === 'ClusterRoleBinding' ? 0 : 1}${SEP}${m.binding.namespace ?? ''}${SEP}${m.binding.name}`;
const SEP = '\u0000';

/**
 * The best near misses: fewest missing dimensions first (ties in binding order, then rule
 * order), at most MAX_NEAR_MISSES. A rule missing every dimension it has is no near miss.
 */
export function rankNearMisses(candidates: NearMiss[], dimensions: number): NearMiss[] {
  return candidates
    .filter((c) => c.missing.length > 0 && c.missing.length < dimensions)
    .sort((a, b) => a.missing.length - b.missing.length || scopeOrder(a).localeCompare(scopeOrder(b)) || a.ruleIndex - b.ruleIndex)
    .slice(0, MAX_NEAR_MISSES);
}

/** How many dimensions a request of this kind is judged on. */
export function dimensionsOf(attrs: AuthorizationAttributes): number {
  // verb, group, resource (or subresource), resource name, namespace; verb, URL, binding kind.
  return attrs.isResourceRequest ? 5 : 3;
}
