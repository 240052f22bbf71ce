import { KubeObject } from '../../apimachinery/types';
import { PolicyRule, RBAC_GROUP, RoleBinding, Subject } from '../../apis/rbac/types';
import { ruleAllows } from '../../authorization/rbac/rule-matching';
import { bindingUsageName } from '../binding-usage-names';
import { AccessFinding, findingName, FindingType, SuggestedFix } from './finding-kind';
import { escalationPathFindings, SubjectPath } from './escalation-findings';
import { copyRule, ruleHash } from './rule-identity';
import { rfc3339 } from './usage-kinds';
import { RuleUse } from './usage-memory';

/** The bindings of the default policy carry it: they are not findings. */
const BOOTSTRAPPING_LABEL = 'platform.io/bootstrapping';

/** A permission that matters more than others when held and not used. */
interface SensitivePermission {
  label: string;
  verbs: string[];
  apiGroup: string;
  resource: string;
  subresource?: string;
}

const SENSITIVE: SensitivePermission[] = [
  { label: 'secrets', verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'], apiGroup: '', resource: 'secrets' },
  { label: 'impersonate users', verbs: ['impersonate'], apiGroup: '', resource: 'users' },
  { label: 'impersonate groups', verbs: ['impersonate'], apiGroup: '', resource: 'groups' },
  { label: 'impersonate serviceaccounts', verbs: ['impersonate'], apiGroup: '', resource: 'serviceaccounts' },
  { label: 'bind roles', verbs: ['bind'], apiGroup: RBAC_GROUP, resource: 'roles' },
  { label: 'bind clusterroles', verbs: ['bind'], apiGroup: RBAC_GROUP, resource: 'clusterroles' },
  { label: 'escalate roles', verbs: ['escalate'], apiGroup: RBAC_GROUP, resource: 'roles' },
  { label: 'escalate clusterroles', verbs: ['escalate'], apiGroup: RBAC_GROUP, resource: 'clusterroles' },
  { label: 'serviceaccounts/token', verbs: ['create'], apiGroup: '', resource: 'serviceaccounts', subresource: 'token' },
  { label: 'nodes/proxy', verbs: ['get', 'create'], apiGroup: '', resource: 'nodes', subresource: 'proxy' },
];

/** What the findings are computed from. */
export interface FindingInputs {
  now: number;
  windowMs: number;
  /** Every RoleBinding and ClusterRoleBinding (the policy index's). */
  bindings: Array<{ kind: 'RoleBinding' | 'ClusterRoleBinding'; object: KubeObject }>;
  /** The rules a binding's role resolves to now (undefined: it does not resolve). */
  rulesOf(binding: RoleBinding, namespace: string): readonly PolicyRule[] | undefined;
  /** When a binding last granted (binding usage), by uid. */
  lastGranted: ReadonlyMap<string, number>;
  /** Every recorded rule use (every replica's, merged). */
  uses: readonly RuleUse[];
  /** Whether a ServiceAccount exists (undefined: not known, no finding). */
  serviceAccountExists(namespace: string, name: string): boolean | undefined;
  /** The subjects with a path to cluster-admin that do not hold it (escalation paths), if known. */
  pathsToClusterAdmin?: readonly SubjectPath[];
}

const attrsOf = (verb: string, apiGroup: string, resource: string, subresource = '') => ({
  isResourceRequest: true,
  verb,
  apiGroup,
  resource,
  subresource,
  name: '',
  namespace: '',
  path: '',
});

const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

/**
 * The findings, one per finding and subject of the binding: bindings that granted nothing in
 * the window (and are older than it); rules of a used binding's role never used through it;
 * wildcard rules with the concrete parts used; sensitive permissions held and not used;
 * bindings to ServiceAccounts that do not exist. Whether a rule grants a permission is the
 * RBAC authorizer's own ruleAllows.
 */
export function computeFindings(inputs: FindingInputs): AccessFinding[] {
  const from = inputs.now - inputs.windowMs;
  const windowStart = rfc3339(from);
  const usesByBinding = new Map<string, RuleUse[]>();
  for (const use of inputs.uses) {
    if (use.last < from) continue;
    const list = usesByBinding.get(use.bindingUid);
    if (list) list.push(use);
    else usesByBinding.set(use.bindingUid, [use]);
  }
  const findings: AccessFinding[] = [];
  for (const { kind, object } of inputs.bindings) {
    const binding = object as RoleBinding;
    if (binding.metadata?.labels?.[BOOTSTRAPPING_LABEL]) continue;
    const namespace = kind === 'RoleBinding' ? (binding.metadata?.namespace ?? '') : '';
    const name = binding.metadata?.name ?? '';
    const uid = binding.metadata?.uid ?? '';
    const subjects = Array.isArray(binding.subjects) ? binding.subjects : [];
    const bindingRef = { kind, ...(namespace ? { namespace } : {}), name };
    const roleRef = { kind: String(binding.roleRef?.kind ?? ''), name: String(binding.roleRef?.name ?? '') };
    const usageName = bindingUsageName(kind, namespace, name);
    const last = inputs.lastGranted.get(uid);
    const base = (type: FindingType, subject: Subject, message: string, suggestedFix: SuggestedFix, ruleIndex?: number, rule?: PolicyRule): AccessFinding => ({
      metadata: { name: findingName(type, usageName, subject, ruleIndex) },
      type,
      bindingRef,
      roleRef,
      subject: { ...subject },
      ...(ruleIndex !== undefined && rule ? { ruleIndex, rule: copyRule(rule) } : {}),
      message,
      windowStart,
      ...(last !== undefined ? { lastUsed: rfc3339(last) } : {}),
      suggestedFix,
    });
    const where = namespace ? `RoleBinding ${namespace}/${name}` : `ClusterRoleBinding ${name}`;
    const deleteCommand = namespace ? `kubectl delete rolebinding -n ${namespace} ${name}` : `kubectl delete clusterrolebinding ${name}`;

    for (const subject of subjects) {
      if (subject.kind !== 'ServiceAccount') continue;
      const saNamespace = subject.namespace || namespace;
      if (inputs.serviceAccountExists(saNamespace, subject.name) !== false) continue;
      const fix = { description: `Remove the subject from ${where}, or delete the binding if it has no other subject.`, command: subjects.length === 1 ? deleteCommand : undefined };
      findings.push(base('MissingServiceAccount', subject, `${where} binds ServiceAccount ${saNamespace}/${subject.name}, which does not exist.`, dropUndefined(fix)));
    }

    const created = Date.parse(binding.metadata?.creationTimestamp ?? '');
    const usedInWindow = last !== undefined && last >= from;
    if (!usedInWindow) {
      // A binding younger than the window has not had the window to be used.
      if (!Number.isNaN(created) && created <= from) {
        for (const subject of subjects) {
          findings.push(base('UnusedBinding', subject, `${where} granted nothing since ${windowStart}.`, { description: `Delete ${where}.`, command: deleteCommand }));
        }
      }
      continue;
    }

    const rules = inputs.rulesOf(binding, namespace);
    if (!rules) continue;
    const uses = usesByBinding.get(uid) ?? [];
    rules.forEach((rule, ruleIndex) => {
      const hash = ruleHash(rule);
      const ruleUses = uses.filter((u) => u.ruleHash === hash);
      const roleFix = `the role ${roleRef.kind} ${roleRef.name}${roleRef.kind === 'ClusterRole' ? ' (or give the binding a role of its own if others use this one)' : ''}`;
      if (!ruleUses.length) {
        for (const subject of subjects) {
          findings.push(
            base('UnusedRule', subject, `Rule ${ruleIndex} of ${roleRef.kind} ${roleRef.name} allowed nothing through ${where} since ${windowStart}.`, { description: `Remove rule ${ruleIndex} from ${roleFix}.` }, ruleIndex, rule),
          );
        }
      }
      const wildcard = ruleUses.length ? partlyUsedWildcard(rule, ruleUses) : undefined;
      if (wildcard) {
        const parts = [
          wildcard.usedVerbs && `verbs ${wildcard.usedVerbs.join(', ')}`,
          wildcard.usedAPIGroups && `API groups ${wildcard.usedAPIGroups.map((g) => JSON.stringify(g)).join(', ')}`,
          wildcard.usedResources && `resources ${wildcard.usedResources.join(', ')}`,
        ].filter(Boolean);
        for (const subject of subjects) {
          findings.push({
            ...base('PartlyUsedWildcard', subject, `Rule ${ruleIndex} of ${roleRef.kind} ${roleRef.name} names "*"; through ${where} only ${parts.join('; ')} were used.`, {
              description: `Replace rule ${ruleIndex} of ${roleFix} with the parts used.`,
              replacementRule: wildcard.replacement,
            }, ruleIndex, rule),
            ...(wildcard.usedVerbs ? { usedVerbs: wildcard.usedVerbs } : {}),
            ...(wildcard.usedAPIGroups ? { usedAPIGroups: wildcard.usedAPIGroups } : {}),
            ...(wildcard.usedResources ? { usedResources: wildcard.usedResources } : {}),
          });
        }
      }
      const unused = unusedSensitive(rule, ruleUses);
      if (unused.length) {
        for (const subject of subjects) {
          findings.push({
            ...base('UnusedSensitivePermission', subject, `Rule ${ruleIndex} of ${roleRef.kind} ${roleRef.name} grants ${unused.join('; ')} through ${where}, not used since ${windowStart}.`, {
              description: `Narrow rule ${ruleIndex} of ${roleFix} so that it no longer grants ${unused.join('; ')}.`,
            }, ruleIndex, rule),
            unusedPermissions: unused,
          });
        }
      }
    });
  }
  const byRef = new Map(inputs.pathsToClusterAdmin?.length ? inputs.bindings.map((b) => [`${b.kind}/${b.object.metadata?.namespace ?? ''}/${b.object.metadata?.name}`, b.object as RoleBinding]) : []);
  const bindingOf = (ref: AccessFinding['bindingRef']) => byRef.get(`${ref.kind}/${ref.namespace ?? ''}/${ref.name}`);
  findings.push(...escalationPathFindings(inputs.pathsToClusterAdmin ?? [], bindingOf, (b) => !!b.metadata?.labels?.[BOOTSTRAPPING_LABEL], windowStart));
  return findings;
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const resourceOf = (u: RuleUse) => (u.subresource ? `${u.resource}/${u.subresource}` : u.resource);

/** For a rule naming "*" (verbs, groups or resources), the concrete parts used and the rule narrowed to them. */
function partlyUsedWildcard(rule: PolicyRule, uses: RuleUse[]): { usedVerbs?: string[]; usedAPIGroups?: string[]; usedResources?: string[]; replacement: PolicyRule } | undefined {
  const resourceUses = uses.filter((u) => !u.nonResourceURL);
  const starVerbs = rule.verbs?.includes('*');
  const starGroups = rule.apiGroups?.includes('*');
  const starResources = rule.resources?.some((r) => r === '*' || r.endsWith('/*') || r.startsWith('*/'));
  if (!starVerbs && !starGroups && !starResources) return undefined;
  const usedVerbs = starVerbs ? sorted(uses.map((u) => u.verb)) : undefined;
  const usedAPIGroups = starGroups ? sorted(resourceUses.map((u) => u.apiGroup)) : undefined;
  const usedResources = starResources ? sorted(resourceUses.map(resourceOf)) : undefined;
  const replacement = copyRule(rule);
  if (usedVerbs) replacement.verbs = usedVerbs;
  if (usedAPIGroups && replacement.resources) replacement.apiGroups = usedAPIGroups;
  if (usedResources && replacement.resources) replacement.resources = usedResources;
  return { ...(usedVerbs ? { usedVerbs } : {}), ...(usedAPIGroups ? { usedAPIGroups } : {}), ...(usedResources ? { usedResources } : {}), replacement };
}

/** The sensitive permissions the rule grants (as the authorizer matches) that none of its uses exercised. */
function unusedSensitive(rule: PolicyRule, uses: RuleUse[]): string[] {
  const unused: string[] = [];
  for (const p of SENSITIVE) {
    const held = p.verbs.filter((verb) => ruleAllows(rule, attrsOf(verb, p.apiGroup, p.resource, p.subresource)));
    if (!held.length) continue;
    const used = new Set(uses.filter((u) => u.apiGroup === p.apiGroup && u.resource === p.resource && u.subresource === (p.subresource ?? '')).map((u) => u.verb));
    const idle = held.filter((v) => !used.has(v));
    if (!idle.length) continue;
    unused.push(p.verbs.length > 1 ? `${p.label} (${idle.join(', ')})` : p.label);
  }
  return unused;
}
