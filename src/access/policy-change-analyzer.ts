import { KubeObject } from '../apimachinery/types';
import { UserInfo } from '../apimachinery/user-info';
import { aggregateErrors } from '../apimachinery/aggregate-errors';
import { ClusterRole, PolicyRule, RBAC_GROUP, RoleBinding } from '../apis/rbac/types';
import { AuthorizerChain } from '../authorization/authorizer-chain';
import { forbiddenError } from '../authorization/forbidden';
import { PolicyIndex, RbacKind } from '../authorization/rbac/policy-index';
import { RbacAuthorizer } from '../authorization/rbac/rbac-authorizer';
import { fileSubject, SubjectKey } from '../authorization/rbac/subjects';
import { resourceAttributes } from '../authorization/request-attributes';
import { EscalationAuthorizer, escalationAllowed, RoleResource } from '../rbac/escalation/escalation-authorization';
import { confirmNoEscalation, FULL_AUTHORITY } from '../rbac/escalation/no-escalation';
import { AccessIndex, clusterRoleKey, roleKey } from './access-index';
import { CandidatePolicy, PolicyObjectChange } from './policy-change-candidate';
import { DiffBudget, diffSubject, DiffTooLarge } from './policy-change-diff';
import { AssertionChecker, keyOfSubject } from './policy-change-assertions';
import { guardrailsBeforeRbac } from './guardrail-blocking';
import { applyGuardrails } from './policy-change-guardrails';
import { DeniedChange, PermissionChange, PolicyChangeSpec, PolicyChangeStatus } from './policy-change-types';
import { rbacKindOf } from './policy-change-validation';

/**
 * Answers a PolicyChangeReview: overlays the changes on the live policy (CandidatePolicy),
 * finds the subjects whose grants they can touch (the subjects of changed bindings, and of
 * every binding of a changed or re-aggregated role), and diffs each of them exactly
 * (permission-diff); checks that the caller could make each change as the write path would
 * (authorization, then escalation prevention); checks the assertions.
 */

export interface PolicyChangeLimits {
  /** Subject-and-namespace pairs one answer may diff. */
  maxSubjectScopes: number;
  /** Rule evaluations one answer may spend. */
  maxRuleChecks: number;
}

export const DEFAULT_POLICY_CHANGE_LIMITS: PolicyChangeLimits = { maxSubjectScopes: 200_000, maxRuleChecks: 20_000_000 };

/** The answer is larger than the limits allow: the caller narrows spec.scope. */
export class PolicyChangeTooLarge extends Error {}

const PLURAL_OF: Record<RbacKind, string> = { Role: 'roles', ClusterRole: 'clusterroles', RoleBinding: 'rolebindings', ClusterRoleBinding: 'clusterrolebindings' };

/** The changes of a validated spec, in order (a later change of the same object wins). */
export function objectChangesOf(spec: PolicyChangeSpec): PolicyObjectChange[] {
  return (spec.changes ?? []).map((change) => {
    const object = change.object as KubeObject;
    const kind = rbacKindOf(object)!;
    const namespace = kind === 'Role' || kind === 'RoleBinding' ? (object.metadata?.namespace ?? '') : '';
    return { kind, namespace, name: object.metadata?.name ?? '', object: change.delete ? null : object };
  });
}

/**
 * Authorizers whose grants the answer leaves out. Node is not one: it allows only users in
 * group system:nodes, and each subject is answered for on its own bindings, in no group.
 * Guardrail is not one either: it grants nothing (what it denies is RBAC's grants still).
 */
function notEnumerable(chain: AuthorizerChain): string[] {
  return chain.authorizers
    .filter((a) => a.type !== 'RBAC' && a.type !== 'AlwaysDeny' && a.type !== 'Node' && a.type !== 'Guardrail')
    .map((a) => `authorizer ${a.name} (${a.type}) decides outside RBAC: its grants are not part of the answer`);
}

export class PolicyChangeAnalyzer {
  constructor(
    private readonly live: PolicyIndex,
    private readonly access: AccessIndex,
    private readonly chain: AuthorizerChain,
    private readonly limits: PolicyChangeLimits = DEFAULT_POLICY_CHANGE_LIMITS,
  ) {}

  async answer(spec: PolicyChangeSpec, caller: UserInfo): Promise<PolicyChangeStatus> {
    const changes = objectChangesOf(spec);
    const candidate = new CandidatePolicy(this.live, this.access, changes);
    const rbac = changes.length ? this.diff(candidate, spec) : { gained: [], lost: [] };
    // What a guardrail denies the subject is not access it gains or loses, whatever RBAC says.
    const guardrails = guardrailsBeforeRbac(this.chain.authorizers);
    const gained = applyGuardrails(guardrails, rbac.gained, 'Gained');
    const lost = applyGuardrails(guardrails, rbac.lost, 'Lost');
    const blocked = [...gained.blocked, ...lost.blocked];
    const denied = await this.denied(changes, candidate, caller);
    const assertions = spec.assertions?.length ? new AssertionChecker(candidate, this.access, guardrails).check(spec.assertions) : undefined;
    const outside = notEnumerable(this.chain);
    return {
      gained: gained.kept,
      lost: lost.kept,
      ...(blocked.length ? { blockedByGuardrails: blocked } : {}),
      ...(denied.length ? { denied } : {}),
      ...(assertions ? { assertions } : {}),
      incomplete: outside.length > 0,
      ...(outside.length ? { evaluationError: aggregateErrors(outside) } : {}),
    };
  }

  private diff(candidate: CandidatePolicy, spec: PolicyChangeSpec): { gained: PermissionChange[]; lost: PermissionChange[] } {
    return permissionDiff(this.live, this.access, candidate, spec.scope, this.limits);
  }

  /** Each change the caller could not make: as the write path decides, authorization first, then escalation prevention. */
  private async denied(changes: readonly PolicyObjectChange[], candidate: CandidatePolicy, caller: UserInfo): Promise<DeniedChange[]> {
    const denied: DeniedChange[] = [];
    const escalation = new EscalationAuthorizer(() => this.chain.authorizers, new RbacAuthorizer('rbac', this.live));
    for (const [i, change] of changes.entries()) {
      const exists = candidate.liveObject(change.kind, change.namespace, change.name) !== undefined;
      if (change.object === null && !exists) continue;
      const verb = change.object === null ? 'delete' : exists ? 'update' : 'create';
      const resource = PLURAL_OF[change.kind];
      const attrs = resourceAttributes({
        user: caller,
        verb,
        apiGroup: RBAC_GROUP,
        apiVersion: 'v1',
        resource,
        namespace: change.namespace,
        name: verb === 'create' ? '' : change.name,
      });
      const deny = (reason: string) =>
        denied.push({ change: i, kind: change.kind, ...(change.namespace ? { namespace: change.namespace } : {}), name: change.name, reason });
      const decision = await this.chain.authorize(attrs, { trace: [] });
      if (decision.decision !== 'Allow') {
        deny(forbiddenError(attrs, decision.reason).message);
        continue;
      }
      if (change.object === null || escalationAllowed(caller)) continue;
      const owned = this.live.rulesFor(caller, change.namespace);
      if (change.kind === 'Role' || change.kind === 'ClusterRole') {
        const role = change.object as ClusterRole;
        if (!(await escalation.mayEscalate(caller, resource as RoleResource, change.namespace, change.name))) {
          const why = confirmNoEscalation(caller, owned, role.rules ?? []);
          if (why) deny(why);
          else if (change.kind === 'ClusterRole' && (role.aggregationRule || candidate.liveObject('ClusterRole', '', change.name)?.aggregationRule)) {
            if (confirmNoEscalation(caller, this.live.rulesFor(caller, ''), FULL_AUTHORITY) !== null) deny('must have cluster-admin privileges to use the aggregationRule');
          }
        }
        continue;
      }
      const binding = change.object as RoleBinding;
      const current = candidate.liveObject(change.kind, change.namespace, change.name) as RoleBinding | undefined;
      if (current && (current.roleRef?.kind !== binding.roleRef?.kind || current.roleRef?.name !== binding.roleRef?.name)) {
        deny('roleRef: Invalid value: cannot change roleRef (delete the binding and create it again)');
        continue;
      }
      if (await escalation.mayBind(caller, binding.roleRef, change.namespace)) continue;
      const key = binding.roleRef?.kind === 'Role' ? roleKey(change.namespace, binding.roleRef.name) : clusterRoleKey(binding.roleRef?.name ?? '');
      const role = candidate.role(key);
      if (!role) {
        deny(`${binding.roleRef?.kind === 'Role' ? 'roles' : 'clusterroles'}.${RBAC_GROUP} "${binding.roleRef?.name}" not found`);
        continue;
      }
      const why = confirmNoEscalation(caller, owned, (role.rules ?? []) as PolicyRule[]);
      if (why) deny(why);
    }
    return denied;
  }
}

/** The subjects the changes can touch, each with the namespaces to diff it in. */
function affectedSubjects(access: AccessIndex, candidate: CandidatePolicy, scope: PolicyChangeSpec['scope']): Map<SubjectKey, Set<string>> {
  const affected = new Map<SubjectKey, Set<string>>();
  const wanted = scope?.subjects?.length ? new Set(scope.subjects.map(keyOfSubject)) : null;
  const namespaces = scope?.namespaces?.length ? new Set(scope.namespaces) : null;
  const add = (binding: RoleBinding | null, namespaced: boolean) => {
    if (!binding) return;
    const namespace = namespaced ? (binding.metadata?.namespace ?? '') : '';
    for (const subject of Array.isArray(binding.subjects) ? binding.subjects : []) {
      for (const { key } of fileSubject(subject, namespace)) {
        if (wanted && !wanted.has(key)) continue;
        let scopes = affected.get(key);
        if (!scopes) affected.set(key, (scopes = new Set()));
        scopes.add(namespace);
      }
    }
  };
  for (const change of candidate.bindingChanges) {
    add(change.before, change.kind === 'RoleBinding');
    add(change.after, change.kind === 'RoleBinding');
  }
  for (const entry of candidate.bindingsOfChangedRoles) add(entry.object, entry.kind === 'RoleBinding');
  for (const [key, scopes] of affected) {
    // A cluster-wide change is compared, in each namespace where the subject has its own grants, with those grants.
    if (scopes.has('')) {
      for (const entry of access.bindingsNaming([key])) if (entry.kind === 'RoleBinding') scopes.add(entry.namespace);
      for (const b of candidate.overlayBindings()) {
        const ns = b.metadata?.namespace;
        if (ns && (b.subjects ?? []).some((s) => fileSubject(s, ns).some((f) => f.key === key))) scopes.add(ns);
      }
    }
    if (namespaces) for (const ns of scopes) if (ns && !namespaces.has(ns)) scopes.delete(ns);
  }
  return affected;
}

/**
 * What the candidate state grants and takes away compared with the live one, for every
 * subject the changes touch (within `scope`): PolicyChangeReview's answer before guardrails,
 * and the entries access history records for each committed change.
 */
export function permissionDiff(
  live: PolicyIndex,
  access: AccessIndex,
  candidate: CandidatePolicy,
  scope: PolicyChangeSpec['scope'],
  limits: PolicyChangeLimits,
): { gained: PermissionChange[]; lost: PermissionChange[] } {
  const affected = affectedSubjects(access, candidate, scope);
  let pairs = 0;
  for (const scopes of affected.values()) pairs += scopes.size + (scopes.has('') ? 0 : 1);
  if (pairs > limits.maxSubjectScopes) {
    throw new PolicyChangeTooLarge(
      `the changes touch ${pairs} subject-namespace pairs, more than the ${limits.maxSubjectScopes} one review answers: narrow spec.scope (namespaces, subjects)`,
    );
  }
  const budget = new DiffBudget(limits.maxRuleChecks);
  const gained: PermissionChange[] = [];
  const lost: PermissionChange[] = [];
  const keys = [...affected.keys()].sort();
  try {
    for (const key of keys) {
      const diff = diffSubject(key, [...affected.get(key)!].sort(), live, candidate, budget);
      gained.push(...diff.gained);
      lost.push(...diff.lost);
    }
  } catch (err) {
    if (err instanceof DiffTooLarge) {
      throw new PolicyChangeTooLarge(`the changes are too large to answer at once (${err.message}): narrow spec.scope (namespaces, subjects)`);
    }
    throw err;
  }
  return { gained, lost };
}
