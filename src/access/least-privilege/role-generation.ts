import { KubeObject } from '../../apimachinery/types';
import { PolicyRule, RBAC_GROUP, RoleBinding, Subject } from '../../apis/rbac/types';
import { ruleAllows } from '../../authorization/rbac/rule-matching';
import { fileSubject, groupKey, serviceAccountUsername, userKey } from '../../authorization/rbac/subjects';
import { copyRule, ruleHash } from './rule-identity';
import { RuleUse } from './usage-memory';

/** The subject a suggestion is for. */
export interface SuggestionSubject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  name: string;
  namespace?: string;
}

export interface BindingRef {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  namespace?: string;
  name: string;
}

/** A rule of a binding's role that allowed nothing in the window: the diff removes it. */
export interface RemovedRule {
  binding: BindingRef;
  role: { kind: string; name: string };
  ruleIndex: number;
  rule: PolicyRule;
}

export interface GeneratedAccess {
  /** Roles and ClusterRoles, then their bindings: ready to apply. */
  roles: KubeObject[];
  bindings: KubeObject[];
  /** The bindings naming the subject today, which the generated ones replace. */
  replaces: BindingRef[];
  /** Bindings naming a group of the subject (or several subjects) through which it used what the generated roles include; they stay for the others. */
  throughGroups: BindingRef[];
  removedRules: RemovedRule[];
  /** How many recorded uses the generated roles cover. */
  coveredUses: number;
}

export interface GenerationInputs {
  subject: SuggestionSubject;
  from: number;
  bindings: Array<{ kind: 'RoleBinding' | 'ClusterRoleBinding'; object: KubeObject }>;
  rulesOf(binding: RoleBinding, namespace: string): readonly PolicyRule[] | undefined;
  uses: readonly RuleUse[];
}

const SUGGESTED_LABEL = 'access.platform.io/suggested-for';

function subjectKey(s: SuggestionSubject): string {
  if (s.kind === 'Group') return groupKey(s.name);
  return userKey(s.kind === 'ServiceAccount' ? serviceAccountUsername(s.namespace ?? '', s.name) : s.name);
}

/** The name of the generated roles and bindings: `suggested.<kind>.<name>` (a ServiceAccount's namespace included). */
export function suggestedName(s: SuggestionSubject): string {
  const slug = (v: string) => v.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '') || 'x';
  return s.kind === 'ServiceAccount' ? `suggested.serviceaccount.${slug(s.namespace ?? '')}.${slug(s.name)}` : `suggested.${s.kind.toLowerCase()}.${slug(s.name)}`;
}

/** Whether a rule allows a recorded use (whose resource name is not known: resourceNames are set aside, and kept in what is generated). */
function allowsUse(rule: PolicyRule, u: RuleUse): boolean {
  if (u.nonResourceURL) return ruleAllows(rule, { ...u, isResourceRequest: false, name: '', path: u.nonResourceURL });
  return ruleAllows({ ...rule, resourceNames: undefined }, { ...u, isResourceRequest: true, name: '', path: '' });
}

const resourceOf = (u: RuleUse) => (u.subresource ? `${u.resource}/${u.subresource}` : u.resource);
const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

/**
 * Rules as a person would write them, from concrete uses that one source rule allowed:
 * per API group, resources used with the same verbs share a rule (a rule allows every verb
 * on every resource it names, so only identical verb sets may share one); resourceNames of
 * the source rule are kept. Every generated rule allows only what its source rule allows.
 */
function rulesFromUses(uses: readonly RuleUse[], source: PolicyRule): PolicyRule[] {
  const rules: PolicyRule[] = [];
  const verbsByResource = new Map<string, Set<string>>();
  const urlsByVerb = new Map<string, Set<string>>();
  for (const u of uses) {
    if (u.nonResourceURL) {
      const urls = urlsByVerb.get(u.verb) ?? new Set<string>();
      urls.add(u.nonResourceURL);
      urlsByVerb.set(u.verb, urls);
      continue;
    }
    const key = `${u.apiGroup}\u0000${resourceOf(u)}`;
    const verbs = verbsByResource.get(key) ?? new Set<string>();
    verbs.add(u.verb);
    verbsByResource.set(key, verbs);
  }
  const grouped = new Map<string, { apiGroup: string; verbs: string[]; resources: string[] }>();
  for (const [key, verbs] of verbsByResource) {
    const [apiGroup, resource] = key.split('\u0000');
    const v = sorted(verbs);
    const groupKeyOf = `${apiGroup}\u0000${v.join(',')}`;
    const g = grouped.get(groupKeyOf) ?? { apiGroup, verbs: v, resources: [] };
    g.resources.push(resource);
    grouped.set(groupKeyOf, g);
  }
  for (const g of grouped.values()) {
    rules.push({ apiGroups: [g.apiGroup], resources: g.resources.sort(), verbs: g.verbs, ...(source.resourceNames?.length ? { resourceNames: [...source.resourceNames] } : {}) });
  }
  const urlGroups = new Map<string, string[]>();
  for (const [verb, urls] of urlsByVerb) {
    const key = sorted(urls).join('\u0000');
    urlGroups.set(key, [...(urlGroups.get(key) ?? []), verb]);
  }
  for (const [urls, verbs] of urlGroups) rules.push({ nonResourceURLs: urls.split('\u0000'), verbs: verbs.sort() });
  return rules;
}

/**
 * The smallest roles and bindings that allow what a subject used in the window through the
 * bindings that name it, and (a user's or service account's own use) through those naming
 * its groups, never wider than what it holds: each generated rule comes
 * from the concrete uses one of its current rules allowed. Uses in a namespace become a Role
 * and RoleBinding there; cluster-wide uses and non-resource URLs a ClusterRole and
 * ClusterRoleBinding. Rules of those bindings' roles that allowed nothing are the diff.
 */
export function generateAccess(inputs: GenerationInputs): GeneratedAccess {
  const key = subjectKey(inputs.subject);
  const name = suggestedName(inputs.subject);
  const replaces: BindingRef[] = [];
  const throughGroups: BindingRef[] = [];
  const removedRules: RemovedRule[] = [];
  const username = inputs.subject.kind === 'Group' ? '' : inputs.subject.kind === 'ServiceAccount' ? serviceAccountUsername(inputs.subject.namespace ?? '', inputs.subject.name) : inputs.subject.name;
  /** Per namespace ('' cluster-wide), the uses of each source rule (by the rule's hash). */
  const byScope = new Map<string, Map<string, { source: PolicyRule; uses: RuleUse[] }>>();
  let coveredUses = 0;
  for (const { kind, object } of inputs.bindings) {
    const binding = object as RoleBinding;
    const namespace = kind === 'RoleBinding' ? (binding.metadata?.namespace ?? '') : '';
    const subjects = Array.isArray(binding.subjects) ? binding.subjects : [];
    const direct = subjects.some((s) => fileSubject(s, namespace).some((f) => !f.error && f.key === key));
    const uid = binding.metadata?.uid ?? '';
    // Through a binding naming a Group (or several subjects), a user's own uses carry its name.
    const inWindow = inputs.uses.filter((u) => u.bindingUid === uid && u.last >= inputs.from);
    // A group's suggestion counts every member's use; a user's, its own (or unattributed) use.
    const own = (u: RuleUse) => u.user === username || (direct && u.user === '');
    const uses = direct && !username ? inWindow : username ? inWindow.filter(own) : [];
    if (!direct && !uses.length) continue;
    const ref: BindingRef = { kind, ...(namespace ? { namespace } : {}), name: binding.metadata?.name ?? '' };
    // A binding the subject uses as a member stays (other members hold it): not replaced, no rule removed.
    (direct ? replaces : throughGroups).push(ref);
    const rules = inputs.rulesOf(binding, namespace) ?? [];
    // Each use goes to the rule it was recorded under, or (recorded under an earlier version
    // of the role) to the first current rule that allows it.
    const hashes = rules.map(ruleHash);
    const usesOfRule = rules.map((): RuleUse[] => []);
    for (const u of uses) {
      let index = hashes.indexOf(u.ruleHash);
      if (index < 0) index = rules.findIndex((rule) => allowsUse(rule, u));
      if (index >= 0) usesOfRule[index].push(u);
    }
    rules.forEach((rule, ruleIndex) => {
      const hash = hashes[ruleIndex];
      const allowed = usesOfRule[ruleIndex];
      if (!allowed.length) {
        if (!direct) return;
        removedRules.push({ binding: ref, role: { kind: String(binding.roleRef?.kind ?? ''), name: String(binding.roleRef?.name ?? '') }, ruleIndex, rule: copyRule(rule) });
        return;
      }
      for (const u of allowed) {
        const scope = u.nonResourceURL ? '' : u.namespace;
        const rulesOfScope = byScope.get(scope) ?? new Map<string, { source: PolicyRule; uses: RuleUse[] }>();
        byScope.set(scope, rulesOfScope);
        const entry = rulesOfScope.get(hash) ?? { source: rule, uses: [] };
        entry.uses.push(u);
        rulesOfScope.set(hash, entry);
        coveredUses += u.count;
      }
    });
  }
  const roles: KubeObject[] = [];
  const bindings: KubeObject[] = [];
  const labels = { [SUGGESTED_LABEL]: name.slice('suggested.'.length).replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '') };
  const subject: Subject =
    inputs.subject.kind === 'ServiceAccount'
      ? { kind: 'ServiceAccount', name: inputs.subject.name, namespace: inputs.subject.namespace ?? '' }
      : { kind: inputs.subject.kind, apiGroup: RBAC_GROUP, name: inputs.subject.name };
  for (const scope of [...byScope.keys()].sort()) {
    const rules = [...byScope.get(scope)!.values()].flatMap(({ source, uses }) => rulesFromUses(uses, source));
    const roleKind = scope ? 'Role' : 'ClusterRole';
    const metadata = { name, ...(scope ? { namespace: scope } : {}), labels };
    roles.push({ apiVersion: `${RBAC_GROUP}/v1`, kind: roleKind, metadata, rules } as KubeObject);
    bindings.push({
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: scope ? 'RoleBinding' : 'ClusterRoleBinding',
      metadata: { ...metadata },
      roleRef: { apiGroup: RBAC_GROUP, kind: roleKind, name },
      subjects: [subject],
    } as KubeObject);
  }
  return { roles, bindings, replaces, throughGroups, removedRules, coveredUses };
}
