import { UserInfo } from '../../apimachinery/user-info';
import { PolicyRule } from '../../apis/rbac/types';
import { AuthorizationAttributes } from '../../authorization/authorizer';
import { ruleAllows } from '../../authorization/rbac/rule-matching';
import { CompiledGuardrail } from './compiled-guardrail';
import { GuardrailState } from './guardrail-state.service';

/** A guardrail that denies something a grant would allow. */
export interface GuardrailConflict {
  guardrail: string;
  message: string;
  reason: string;
}

/** Stands for "any other value" where a rule says `*`: no real name has this form. */
const OTHER = '\u0000other';

const concrete = (values: readonly string[] | undefined): string[] => (values ?? []).filter((v) => v !== '*');

/** `resource` or `resource/subresource` split; `*` halves become OTHER (a value neither side names). */
function resourceParts(values: readonly string[]): { resources: Set<string>; subresources: Set<string> } {
  const resources = new Set([OTHER]);
  const subresources = new Set(['', OTHER]);
  for (const v of values) {
    const [r, sub] = v.split('/', 2);
    if (r !== '*') resources.add(r);
    if (sub !== undefined && sub !== '*') subresources.add(sub);
  }
  return { resources, subresources };
}

/**
 * Requests a rule and a guardrail could both match: every value either names, plus one
 * neither names (for their wildcards). Two rules share a request exactly when one of these
 * is matched by both, so the guardrail's own matchers can answer without a second matcher.
 */
function* sharedCandidates(rule: PolicyRule, guardrail: CompiledGuardrail, namespaces: readonly string[]): Generator<Omit<AuthorizationAttributes, 'user'>> {
  const verbs = new Set([...concrete(rule.verbs), ...concrete(guardrail.rule.verbs), OTHER]);
  const base = { apiVersion: '', path: '', apiGroup: '', resource: '', subresource: '', namespace: '', name: '' };
  if (rule.nonResourceURLs?.length) {
    const paths = new Set([`/${OTHER}`]);
    for (const url of [...rule.nonResourceURLs, ...(guardrail.rule.nonResourceURLs ?? [])]) {
      // A prefix pattern stands for the paths under it; one of them is enough.
      if (url !== '*') paths.add(url.endsWith('*') ? `${url.replace(/\*+$/, '')}${OTHER}` : url);
    }
    for (const verb of verbs) for (const path of paths) yield { ...base, verb, isResourceRequest: false, path };
  }
  if (!rule.resources?.length) return;
  const groups = new Set([...concrete(rule.apiGroups), ...concrete(guardrail.rule.apiGroups), OTHER]);
  const { resources, subresources } = resourceParts([...(rule.resources ?? []), ...(guardrail.rule.resources ?? [])]);
  const names = new Set(['', OTHER, ...(rule.resourceNames ?? []), ...(guardrail.rule.resourceNames ?? [])]);
  for (const verb of verbs)
    for (const apiGroup of groups)
      for (const resource of resources)
        for (const subresource of subresources)
          for (const name of names)
            for (const namespace of namespaces) yield { ...base, verb, isResourceRequest: true, apiGroup, resource, subresource, name, namespace };
}

/**
 * The first guardrail (by name) that applies to `user` and would deny a request `rules`
 * allow: in `namespace`, or (null) everywhere, as a ClusterRoleBinding grants. Each shared
 * request is decided by the guardrail authorizer's own code (subjects, exceptions,
 * namespaces, condition). `only` narrows the requests the rules stand for (a rendering no
 * RBAC rule can write, such as every subresource). With no guardrail in force this is one
 * length check.
 */
export function guardrailDenyingGrant(
  state: GuardrailState,
  user: UserInfo,
  rules: readonly PolicyRule[],
  namespace: string | null,
  only?: (attrs: AuthorizationAttributes) => boolean,
): GuardrailConflict | undefined {
  for (const guardrail of state.all) {
    if (!guardrail.appliesTo(user)) continue;
    // Cluster-wide: cluster-scoped requests, and those in the namespaces it names or (by selector) that exist now.
    const namespaces =
      namespace !== null ? [namespace] : guardrail.restrictsNamespaces ? ['', ...new Set([...guardrail.namespaces, ...(guardrail.selectsNamespaces ? state.namespaceNames() : [])])] : [''];
    for (const rule of rules) {
      for (const candidate of sharedCandidates(rule, guardrail, namespaces)) {
        const attrs: AuthorizationAttributes = { ...candidate, user };
        if (!ruleAllows(rule, attrs) || (only && !only(attrs))) continue;
        const result = state.decide(attrs, [guardrail]);
        if (result.decision === 'Deny') return { guardrail: guardrail.name, message: guardrail.message, reason: result.reason ?? '' };
      }
    }
  }
  return undefined;
}
