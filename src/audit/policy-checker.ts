import type { AuditLevel } from './audit-context';
import { levelAtLeast } from './audit-context';
import type { UserInfo } from '../apimachinery/user-info';
import { AuditStage, GroupResources, Policy, PolicyRule } from './policy';

/** What the policy is asked about: kube's authorizer.Attributes as the audit checker reads them. */
export interface AuditAttributes {
  /** Unset when authentication failed. */
  user?: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  namespace: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
}

/** The level a request is audited at, and what is left out of its events. */
export interface RequestAuditConfig {
  level: AuditLevel;
  omitStages: AuditStage[];
  omitManagedFields: boolean;
}

/**
 * Resources whose bodies carry credentials. Their request and response bodies are logged only
 * when the matching rule names the resource itself (not through `*` or a whole group), so a
 * broad RequestResponse rule cannot copy Secrets into the audit trail.
 */
const SENSITIVE: Array<{ group: string; resource: string }> = [
  { group: '', resource: 'secrets' },
  { group: '', resource: 'serviceaccounts/token' },
  { group: 'authentication.platform.io', resource: 'tokenreviews' },
];

function combinedResource(attrs: AuditAttributes): string {
  return attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
}

function groupResourceMatches(gr: GroupResources, attrs: AuditAttributes): boolean {
  if ((gr.group ?? '') !== attrs.apiGroup) return false;
  if (!gr.resources?.length) return true;
  const combined = combinedResource(attrs);
  for (const res of gr.resources) {
    if (gr.resourceNames?.length && !gr.resourceNames.includes(attrs.name)) continue;
    if (res === combined || res === '*') return true;
    if (attrs.subresource && res.startsWith('*/') && res.slice(2) === attrs.subresource) return true;
    if (res.endsWith('/*') && res.slice(0, -2) === attrs.resource) return true;
  }
  return false;
}

/** `*`, an exact path, or a prefix ending in `*`. */
function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

/** kube's policyRuleEvaluator.ruleMatches. */
export function ruleMatches(rule: PolicyRule, attrs: AuditAttributes): boolean {
  if (rule.users?.length && !(attrs.user && rule.users.includes(attrs.user.username))) return false;
  if (rule.userGroups?.length && !(attrs.user && attrs.user.groups.some((g) => rule.userGroups!.includes(g)))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(attrs.verb)) return false;
  if (rule.namespaces?.length || rule.resources?.length) {
    if (!attrs.isResourceRequest) return false;
    if (rule.namespaces?.length && !rule.namespaces.includes(attrs.namespace)) return false;
    if (!rule.resources?.length) return true;
    return rule.resources.some((gr) => groupResourceMatches(gr, attrs));
  }
  if (rule.nonResourceURLs?.length) {
    if (attrs.isResourceRequest) return false;
    return rule.nonResourceURLs.some((spec) => pathMatches(attrs.path, spec));
  }
  return true;
}

/** Whether the rule names this sensitive resource itself, in its group. */
function namesResource(rule: PolicyRule, group: string, resource: string): boolean {
  return (rule.resources ?? []).some((gr) => (gr.group ?? '') === group && (gr.resources ?? []).includes(resource));
}

/** kube's policy checker: the first matching rule decides; none matching is level None. */
export class AuditPolicyChecker {
  constructor(private readonly policy: Policy) {}

  evaluate(attrs: AuditAttributes): RequestAuditConfig {
    for (const rule of this.policy.rules) {
      if (!ruleMatches(rule, attrs)) continue;
      let level = rule.level;
      if (levelAtLeast(level, 'Request') && attrs.isResourceRequest) {
        const combined = combinedResource(attrs);
        const sensitive = SENSITIVE.find((s) => s.group === attrs.apiGroup && s.resource === combined);
        if (sensitive && !namesResource(rule, sensitive.group, sensitive.resource)) level = 'Metadata';
      }
      return {
        level,
        omitStages: [...new Set([...(this.policy.omitStages ?? []), ...(rule.omitStages ?? [])])],
        omitManagedFields: rule.omitManagedFields ?? this.policy.omitManagedFields ?? false,
      };
    }
    return { level: 'None', omitStages: [...(this.policy.omitStages ?? [])], omitManagedFields: false };
  }
}
