import { KubeObject } from '../../apimachinery/types';
import { RoleRef } from '../../apis/rbac/types';
import { PolicyIndex } from '../../authorization/rbac/policy-index';
import { ruleHash } from './rule-identity';
import { AccessDenial, accessDenialName, RecordedAttributes, recordedAttributes, rfc3339, RuleUsage, ruleUsageName, sortAttributes, subjectOfUser } from './usage-kinds';
import { Denial, RuleUse } from './usage-memory';

/** The hashes of the rules a binding's role holds now (empty when it does not resolve). */
export function currentRuleHashes(policy: Pick<PolicyIndex, 'rulesOfRoleRef'>, binding: KubeObject): Set<string> {
  const namespace = binding.kind === 'RoleBinding' || binding.metadata.namespace ? (binding.metadata.namespace ?? '') : '';
  const rules = policy.rulesOfRoleRef(binding.roleRef as RoleRef, namespace).rules ?? [];
  return new Set(rules.map(ruleHash));
}

/** One RuleUsage per (binding, rule) with recorded uses, of the bindings that exist. */
export function ruleUsagesOf(uses: readonly RuleUse[], policy: Pick<PolicyIndex, 'rulesOfRoleRef' | 'objectsOf'>): RuleUsage[] {
  const bindings = new Map<string, KubeObject>();
  for (const b of [...policy.objectsOf('RoleBinding'), ...policy.objectsOf('ClusterRoleBinding')]) bindings.set(b.metadata.uid ?? '', b);
  const current = new Map<string, Set<string>>();
  const byRule = new Map<string, { first: RuleUse; attributes: RecordedAttributes[]; uses: number; firstUsed: number; lastUsed: number }>();
  for (const use of uses) {
    const binding = bindings.get(use.bindingUid);
    if (!binding) continue;
    if (!current.has(use.bindingUid)) current.set(use.bindingUid, currentRuleHashes(policy, binding));
    const key = `${use.bindingUid}\u0000${use.ruleHash}`;
    const held = byRule.get(key);
    if (!held) byRule.set(key, { first: use, attributes: [recordedAttributes(use)], uses: use.count, firstUsed: use.first, lastUsed: use.last });
    else {
      held.attributes.push(recordedAttributes(use));
      held.uses += use.count;
      held.firstUsed = Math.min(held.firstUsed, use.first);
      held.lastUsed = Math.max(held.lastUsed, use.last);
    }
  }
  return [...byRule.values()].map(({ first: u, attributes, uses: count, firstUsed, lastUsed }) => ({
    metadata: { name: ruleUsageName(u.bindingKind, u.bindingNamespace, u.bindingName, u.ruleHash) },
    bindingRef: { kind: u.bindingKind, ...(u.bindingNamespace ? { namespace: u.bindingNamespace } : {}), name: u.bindingName, uid: u.bindingUid },
    roleRef: { kind: u.roleKind, name: u.roleName },
    ruleIndex: u.ruleIndex,
    ruleHash: u.ruleHash,
    rule: u.rule,
    current: current.get(u.bindingUid)?.has(u.ruleHash) ?? false,
    uses: count,
    firstUsed: rfc3339(firstUsed),
    lastUsed: rfc3339(lastUsed),
    attributes: sortAttributes(attributes),
  }));
}

/** One AccessDenial per user with recorded refusals. */
export function accessDenialsOf(denials: readonly Denial[]): AccessDenial[] {
  const byUser = new Map<string, { attributes: RecordedAttributes[]; count: number; last: number }>();
  for (const d of denials) {
    const held = byUser.get(d.user);
    if (!held) byUser.set(d.user, { attributes: [recordedAttributes(d)], count: d.count, last: d.last });
    else {
      held.attributes.push(recordedAttributes(d));
      held.count += d.count;
      held.last = Math.max(held.last, d.last);
    }
  }
  return [...byUser].map(([user, { attributes, count, last }]) => ({
    metadata: { name: accessDenialName(user) },
    user,
    subject: subjectOfUser(user),
    denials: count,
    lastDenied: rfc3339(last),
    attributes: sortAttributes(attributes),
  }));
}
