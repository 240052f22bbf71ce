import { aggregateErrors } from '../apimachinery/aggregate-errors';
import { SYSTEM_MASTERS, UserInfo } from '../apimachinery/user-info';
import { AuthorizationAttributes, Authorizer } from '../authorization/authorizer';
import { AuthorizerAnswer, AuthorizerChain } from '../authorization/authorizer-chain';
import { PolicyIndex } from '../authorization/rbac/policy-index';
import { ruleAllows } from '../authorization/rbac/rule-matching';
import { fileSubject, subjectKeysOf } from '../authorization/rbac/subjects';
import { BindingWindow, bindingWindow, windowAnnotations, windowState } from '../apis/rbac/binding-window';
import { PolicyRule, RoleBinding, Subject } from '../apis/rbac/types';
import { keepArrayEncoding } from '../runtime/serializer/kept-arrays';
import { keepEncoding } from '../runtime/serializer/kept-encodings';
import { mergeSortedBy, mergeSortedUnique, sortedUnique } from './sorted-merge';
import { AccessIndex, BindingEntry, resourceTokens } from './access-index';
import {
  AccessExplanationStatus,
  AccessGrant,
  AuthorizerDecisionRecord,
  BindingReference,
  NearMiss,
  ResourceAccessReviewStatus,
  RoleReference,
  RuleGrant,
  UnusableBinding,
} from './access-types';
import { dimensionsOf, missingDimensions, rankNearMisses } from './rule-diagnosis';
import { guardrailsBeforeRbac, removeBlockedSubjects } from './guardrail-blocking';

/**
 * The answers of access.platform.io: who may do something (from the reverse indexes,
 * checked with the RBAC authorizer's matching against the policy index), and why a
 * subject may or may not (the authorizer chain itself, traced, plus the rules of the
 * subject's own bindings).
 */

const RBAC_TYPE = 'RBAC';

export function bindingReference(b: { kind: 'RoleBinding' | 'ClusterRoleBinding'; namespace: string; name: string }): BindingReference {
  return b.kind === 'RoleBinding' ? { kind: b.kind, namespace: b.namespace, name: b.name } : { kind: b.kind, name: b.name };
}

function roleReference(binding: BindingEntry): RoleReference {
  return { kind: String(binding.object.roleRef?.kind ?? ''), name: String(binding.object.roleRef?.name ?? '') };
}

/** Why an authorizer of the chain cannot say whom it allows (undefined: it can, or it is RBAC). */
function notEnumerable(authorizer: Authorizer): string | undefined {
  switch (authorizer.type) {
    case RBAC_TYPE:
    case 'AlwaysDeny':
    case 'Guardrail': // allows nobody; whom it blocks is reported separately
      return undefined;
    case 'AlwaysAllow':
      return `authorizer ${authorizer.name} (AlwaysAllow) allows every subject`;
    case 'Node':
      return `authorizer ${authorizer.name} (Node) cannot enumerate the nodes (group system:nodes) it allows`;
    default:
      return `authorizer ${authorizer.name} (${authorizer.type}) cannot enumerate the subjects it allows`;
  }
}

export class AccessAnalyzer {
  /** Who-can's merged lists, by the lists merged: the same question over unchanged scopes merges nothing. */
  private readonly merged = new MergedLists(MERGED_KEPT);

  constructor(
    private readonly chain: AuthorizerChain,
    private readonly policy: PolicyIndex,
    private readonly index: AccessIndex,
  ) {}

  /**
   * ResourceAccessReview: every user and group the chain allows the action, as far as it can
   * tell. The subject fields of `attrs.user` are ignored.
   */
  whoCan(attrs: AuthorizationAttributes): ResourceAccessReviewStatus {
    let granted: RbacGrants = { users: [], groups: [SYSTEM_MASTERS], grants: [] };
    const errors: string[] = [];
    let rbacAsked = false;
    for (const authorizer of this.chain.authorizers) {
      if (authorizer.type === RBAC_TYPE) {
        if (!rbacAsked) granted = this.rbacGrants(attrs);
        rbacAsked = true;
        continue;
      }
      const why = notEnumerable(authorizer);
      if (why) errors.push(why);
      // Nothing after these is ever asked.
      if (authorizer.type === 'AlwaysDeny' || authorizer.type === 'AlwaysAllow') break;
    }
    const unblocked = removeBlockedSubjects(guardrailsBeforeRbac(this.chain.authorizers), attrs, granted.users, granted.groups, granted.grants);
    return {
      users: unblocked.users,
      groups: unblocked.groups,
      grants: unblocked.grants,
      ...(unblocked.blocked.length ? { blocked: unblocked.blocked } : {}),
      incomplete: errors.length > 0,
      ...(errors.length ? { evaluationError: aggregateErrors(errors) } : {}),
    };
  }

  /**
   * The bindings whose role allows the action in scope, each with the subjects it really
   * grants to (well-formed ones, as the authorizer files them), and those users and groups,
   * sorted. Read from what the access index keeps per role and scope (the bindings' grants
   * sorted, their subjects sorted and deduplicated): a question merges a few sorted lists.
   */
  private rbacGrants(attrs: AuthorizationAttributes): RbacGrants {
    const scopes = attrs.isResourceRequest
      ? this.index.candidateScopes(attrs.verb, resourceTokens(attrs.resource, attrs.subresource), attrs.namespace, scopeGrants)
      : this.index.candidateScopes(attrs.verb, [AccessIndex.NON_RESOURCE], '', scopeGrants);
    const now = this.policy.clock.now();
    const grantLists: (readonly GrantSkeleton[])[] = [];
    const userLists: (readonly string[])[] = [];
    const groupLists: (readonly string[])[] = [SYSTEMS_MASTERS_ONLY];
    const inWindow: GrantSkeleton[] = [];
    // Many bindings share a role (view bound 10,000 times): each role is resolved, and its rules
    // matched, once per question.
    const allowsByRules = new Map<readonly PolicyRule[], boolean>();
    const allowsByRole = new Map<string, boolean>();
    for (const { sections } of scopes) {
      for (const section of sections) {
        let allows = allowsByRole.get(section.roleKey);
        if (allows === undefined) {
          const resolved = this.policy.rulesOfRoleRef(section.binding.object.roleRef, section.binding.namespace);
          const rules = resolved.rules;
          if (rules) {
            allows = allowsByRules.get(rules);
            if (allows === undefined) allowsByRules.set(rules, (allows = rules.some((rule) => ruleAllows(rule, attrs))));
          } else allows = false;
          allowsByRole.set(section.roleKey, allows);
        }
        if (!allows) continue;
        grantLists.push(section.steady);
        userLists.push(section.users);
        groupLists.push(section.groups);
        for (const skeleton of section.windowed) if (windowState(skeleton.window!, now) === 'active') inWindow.push(skeleton);
      }
    }
    // Cluster-wide first, then by namespace and name: a stable order for readers and diffs.
    const grantsOf = (lists: (readonly GrantSkeleton[])[]) => mergeSortedBy(lists, orderOf).map((s) => s.grant);
    if (inWindow.length) {
      // Time-bound bindings (few) are judged per question: the ones in their window join as one more list.
      grantLists.push(inWindow.sort(byOrder));
      userLists.push(sortedUnique(inWindow.flatMap((s) => s.users)));
      groupLists.push(sortedUnique(inWindow.flatMap((s) => s.groups)));
      return { users: mergeSortedUnique(userLists), groups: mergeSortedUnique(groupLists), grants: grantsOf(grantLists) };
    }
    // Else every list is one the access index keeps: the same lists merge into the same answer.
    return {
      users: this.merged.get(userLists, () => mergeSortedUnique(userLists)),
      groups: this.merged.get(groupLists, () => mergeSortedUnique(groupLists)),
      grants: this.merged.get(grantLists, () => grantsOf(grantLists)),
    };
  }

  /** AccessExplanation: the chain's decision, traced, and RBAC's view of it. */
  async explain(attrs: AuthorizationAttributes, arrivedAt?: number): Promise<Omit<AccessExplanationStatus, 'evaluationError'> & { chainError?: string }> {
    const trace: AuthorizerAnswer[] = [];
    const result = await this.chain.authorize(attrs, { trace, arrivedAt });
    const decisions: AuthorizerDecisionRecord[] = trace.map((t) => ({
      authorizer: { type: t.type, name: t.name },
      decision: t.result.decision,
      ...(t.result.reason ? { reason: t.result.reason } : {}),
    }));
    const status: Omit<AccessExplanationStatus, 'evaluationError'> & { chainError?: string } = {
      allowed: result.decision === 'Allow',
      ...(result.decision === 'Deny' ? { denied: true } : {}),
      ...(result.reason ? { reason: result.reason } : {}),
      ...(result.evaluationError ? { chainError: result.evaluationError } : {}),
      decisions,
      ...(result.guardrail ? { deniedByGuardrail: result.guardrail } : {}),
      grants: [],
    };
    if (!this.chain.authorizers.some((a) => a.type === RBAC_TYPE)) return status;
    status.grants = this.ruleGrants(attrs);
    if (!status.grants.length) {
      const { nearMisses, unusable } = this.nearMisses(attrs.user, attrs);
      status.nearMisses = nearMisses;
      status.unusableBindings = unusable;
    }
    return status;
  }

  /** Every binding, role and rule index that allows the action (not only the first, as the authorizer stops at). */
  ruleGrants(attrs: AuthorizationAttributes): RuleGrant[] {
    const grants: RuleGrant[] = [];
    let current: { binding: unknown; rules: readonly unknown[] } | undefined;
    this.policy.visitRulesFor(attrs.user, attrs.namespace, (source, rule) => {
      if (!source || !rule || !ruleAllows(rule, attrs)) return true;
      const b = source.binding;
      if (current?.binding !== b) current = { binding: b, rules: this.policy.rulesOfRoleRef(b.roleRef, b.namespace).rules ?? [] };
      grants.push({
        binding: bindingReference(b),
        role: { kind: String(b.roleRef?.kind ?? ''), name: String(b.roleRef?.name ?? '') },
        ruleIndex: current.rules.indexOf(rule),
        rule: structuredClone(rule),
      });
      return true;
    });
    return grants;
  }

  /** The subject's own bindings, in any namespace: their closest rules, and those that cannot be used. */
  nearMisses(user: UserInfo, attrs: AuthorizationAttributes): { nearMisses: NearMiss[]; unusable: UnusableBinding[] } {
    const keys = subjectKeysOf(user);
    const candidates: NearMiss[] = [];
    const unusable: UnusableBinding[] = [];
    const now = this.policy.clock.now();
    for (const binding of this.index.bindingsNaming(keys)) {
      const subjects = Array.isArray(binding.object.subjects) ? binding.object.subjects : [];
      const filings = subjects.flatMap((s) => fileSubject(s, binding.namespace)).filter((f) => keys.includes(f.key));
      const wellFormed = filings.some((f) => !f.error);
      const resolved = this.policy.rulesOfRoleRef(binding.object.roleRef, binding.namespace);
      const inScope = binding.kind === 'ClusterRoleBinding' || binding.namespace === attrs.namespace;
      if (resolved.error !== undefined) {
        if (wellFormed && inScope) unusable.push({ binding: bindingReference(binding), role: roleReference(binding), reason: resolved.error });
        continue;
      }
      if (!wellFormed) {
        if (inScope && resolved.rules.some((rule) => ruleAllows(rule, attrs))) {
          const why = filings.map((f) => f.error).find((e) => e) ?? 'its subject is malformed';
          unusable.push({ binding: bindingReference(binding), role: roleReference(binding), reason: why });
        }
        continue;
      }
      const state = windowState(bindingWindow(binding.object), now);
      if (state !== 'active') {
        // Outside its window a binding grants nothing: name it when it would have granted, else leave it out.
        if (inScope && resolved.rules.some((rule) => ruleAllows(rule, attrs))) unusable.push(outsideWindow(binding, state));
        continue;
      }
      resolved.rules.forEach((rule, ruleIndex) => {
        const missing = missingDimensions(rule, binding, attrs);
        if (missing) candidates.push({ binding: bindingReference(binding), role: roleReference(binding), ruleIndex, rule: structuredClone(rule), missing });
      });
    }
    return { nearMisses: rankNearMisses(candidates, dimensionsOf(attrs)), unusable };
  }
}

/** A time-bound binding that would grant but is outside its window, with that window. */
function outsideWindow(binding: BindingEntry, state: 'not-yet-valid' | 'expired'): UnusableBinding {
  const window = windowAnnotations(binding.object);
  const reason =
    state === 'expired' ? `the binding expired at ${window.validUntil ?? '(unreadable valid-until)'}` : `the binding is not valid before ${window.validFrom ?? '(unreadable valid-from)'}`;
  return { binding: bindingReference(binding), role: roleReference(binding), reason, ...window };
}

/**
 * What a binding contributes to a who-can answer when its role allows: made once per version
 * of the binding (cached objects are never changed), so a question over 10,000 bindings reads
 * them instead of filing each subject again. The grant is shared by the answers that include
 * it and never changed; its JSON is kept with it, made once.
 */
interface GrantSkeleton {
  grant: AccessGrant;
  users: string[];
  groups: string[];
  order: string;
  /** The role it refers to, as rulesOfRoleRef finds it: one resolution serves every binding with the same key. */
  roleKey: string;
  /** Only for a time-bound binding. */
  window?: BindingWindow;
}

const skeletons = new WeakMap<RoleBinding, GrantSkeleton | null>();

const orderOf = (s: GrantSkeleton) => s.order;

const SYSTEMS_MASTERS_ONLY: readonly string[] = Object.freeze([SYSTEM_MASTERS]);

/** How many merged answers are kept (the most recently asked questions). */
const MERGED_KEPT = 32;

/**
 * Merged lists by the identity of the lists merged (each kept by the access index, never
 * changed: a change makes new ones), most recently used first. A result is shared by the
 * answers that read it, so it is frozen, and its JSON is kept with it.
 */
class MergedLists {
  private entries: Array<{ inputs: readonly (readonly unknown[])[]; result: readonly unknown[] }> = [];

  constructor(private readonly limit: number) {}

  get<T>(inputs: readonly (readonly unknown[])[], merge: () => T[]): T[] {
    const at = this.entries.findIndex((e) => e.inputs.length === inputs.length && e.inputs.every((list, k) => list === inputs[k]));
    if (at >= 0) {
      const [entry] = this.entries.splice(at, 1);
      this.entries.unshift(entry);
      return entry.result as T[];
    }
    const result = keepArrayEncoding(merge());
    this.entries.unshift({ inputs, result });
    if (this.entries.length > this.limit) this.entries.pop();
    return result as T[];
  }
}
const byOrder = (a: GrantSkeleton, b: GrantSkeleton) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0);

/** A who-can answer's part from RBAC: users and groups (system:masters among them) sorted, grants in order. */
interface RbacGrants {
  users: string[];
  groups: string[];
  grants: AccessGrant[];
}

/** What the bindings of one role in one scope grant, as who-can reads it (kept by the access index until they change). */
interface ScopeGrants {
  /** One per role key (rulesOfRoleRef's view of the roleRef): every binding of a scope names the same role, so one in practice. */
  sections: RoleSection[];
}

interface RoleSection {
  roleKey: string;
  /** A binding of the section, to resolve its role with. */
  binding: BindingEntry;
  /** The grants of bindings without a window, in answer order. */
  steady: GrantSkeleton[];
  /** Their users and groups, sorted, each once. */
  users: string[];
  groups: string[];
  /** The grants of time-bound bindings, judged per question. */
  windowed: GrantSkeleton[];
}

/** The derivation the access index keeps per role and scope (see ScopeGrants). */
function scopeGrants(bindings: readonly BindingEntry[]): ScopeGrants {
  const byRole = new Map<string, { section: RoleSection; users: Set<string>; groups: Set<string> }>();
  for (const binding of bindings) {
    const skeleton = grantSkeleton(binding);
    if (!skeleton) continue;
    let role = byRole.get(skeleton.roleKey);
    if (!role) {
      const section: RoleSection = { roleKey: skeleton.roleKey, binding, steady: [], users: [], groups: [], windowed: [] };
      byRole.set(skeleton.roleKey, (role = { section, users: new Set(), groups: new Set() }));
    }
    if (skeleton.window) {
      role.section.windowed.push(skeleton);
      continue;
    }
    role.section.steady.push(skeleton);
    for (const user of skeleton.users) role.users.add(user);
    for (const group of skeleton.groups) role.groups.add(group);
  }
  const sections: RoleSection[] = [];
  for (const { section, users, groups } of byRole.values()) {
    section.steady.sort(byOrder);
    section.windowed.sort(byOrder);
    section.users = [...users].sort();
    section.groups = [...groups].sort();
    sections.push(section);
  }
  return { sections };
}

/** The binding's grant, or null when none of its subjects is well-formed (it grants nobody). */
function grantSkeleton(binding: BindingEntry): GrantSkeleton | null {
  let skeleton = skeletons.get(binding.object);
  if (skeleton !== undefined) return skeleton;
  const subjects: Subject[] = [];
  const users: string[] = [];
  const groups: string[] = [];
  for (const subject of Array.isArray(binding.object.subjects) ? binding.object.subjects : []) {
    const filings = fileSubject(subject, binding.namespace);
    if (!filings.length || filings.some((f) => f.error)) continue;
    subjects.push(copySubject(subject));
    for (const { key } of filings) (key.startsWith('u:') ? users : groups).push(key.slice(2));
  }
  const window = bindingWindow(binding.object);
  skeleton = subjects.length
    ? {
        grant: keepEncoding({ binding: bindingReference(binding), role: roleReference(binding), subjects }),
        users,
        groups,
        order: `${binding.kind === 'ClusterRoleBinding' ? 0 : 1}\u0000${binding.namespace}\u0000${binding.name}`,
        roleKey: roleKeyOf(binding),
        ...(window.validFrom !== undefined || window.validUntil !== undefined ? { window } : {}),
      }
    : null;
  skeletons.set(binding.object, skeleton);
  return skeleton;
}

/** What rulesOfRoleRef reads of a binding: a Role is looked up in the binding's namespace, anything else by kind and name. */
function roleKeyOf(binding: BindingEntry): string {
  const roleRef = binding.object.roleRef;
  const name = String(roleRef?.name ?? '');
  switch (roleRef?.kind) {
    case 'Role':
      return `Role\u0000${binding.namespace}\u0000${name}`;
    case 'ClusterRole':
      return `ClusterRole\u0000${name}`;
    default:
      return ''; // never resolves: grants nothing
  }
}

function copySubject(s: Subject): Subject {
  return { kind: s.kind, ...(s.apiGroup !== undefined ? { apiGroup: s.apiGroup } : {}), name: s.name, ...(s.namespace ? { namespace: s.namespace } : {}) };
}
