import { KubeObject } from '../apimachinery/types';
import { UserInfo } from '../apimachinery/user-info';
import { ClusterRole, PolicyRule, RBAC_GROUP, Role, RoleBinding } from '../apis/rbac/types';
import {
  CLUSTER_ROLE_BINDINGS_RESOURCE,
  collectRules,
  PolicyIndex,
  RbacKind,
  ROLE_BINDINGS_RESOURCE,
  RoleResolution,
  RuleVisiting,
  RuleVisitor,
} from '../authorization/rbac/policy-index';
import { aggregateRules, sameRules } from '../rbac/aggregation/aggregate-rules';
import { clusterRoleSelectorMatcher } from '../rbac/aggregation/cluster-role-selector';
import { AccessIndex, BindingEntry, clusterRoleKey, roleKey } from './access-index';

/**
 * The policy as it would be after a set of changes, without touching the live index: a
 * small PolicyIndex holds only the bindings the changes touch (the changed ones, and every
 * live binding whose role changes), resolving roles through the changed roles first and
 * the live index after. A caller's rules are the live index's, minus the bindings the
 * overlay replaces, plus the overlay's: the same visit, the same matching, no copy of the
 * live policy, so the cost follows the size of the change.
 */

/** One object to create or replace (object set) or to delete (object null). */
export interface PolicyObjectChange {
  kind: RbacKind;
  /** '' for the cluster-scoped kinds. */
  namespace: string;
  name: string;
  object: KubeObject | null;
}

export const objectKeyOf = (kind: RbacKind, namespace: string, name: string) => `${kind}/${namespace}/${name}`;
const isBindingKind = (kind: RbacKind): kind is 'RoleBinding' | 'ClusterRoleBinding' => kind === 'RoleBinding' || kind === 'ClusterRoleBinding';
const roleKeyOfObject = (kind: RbacKind, namespace: string, name: string) => (kind === 'ClusterRole' ? clusterRoleKey(name) : roleKey(namespace, name));

/** How many rounds of aggregation (roles aggregating aggregated roles) are followed. */
const MAX_AGGREGATION_ROUNDS = 10;

/** A PolicyIndex whose roleRefs resolve through the candidate roles, then the live ones. */
class OverlayIndex extends PolicyIndex {
  constructor(
    private readonly live: PolicyIndex,
    private readonly candidateRoles: ReadonlyMap<string, Role | ClusterRole | null>,
  ) {
    super(live.clock);
  }

  override rulesOfRoleRef(roleRef: RoleBinding['roleRef'], bindingNamespace: string): RoleResolution {
    const name = roleRef?.name ?? '';
    const key = roleRef?.kind === 'ClusterRole' ? clusterRoleKey(name) : roleRef?.kind === 'Role' ? roleKey(bindingNamespace, name) : undefined;
    if (key !== undefined && this.candidateRoles.has(key)) {
      const role = this.candidateRoles.get(key);
      if (role) return { rules: role.rules ?? [] };
      return { error: `${roleRef.kind === 'Role' ? 'role' : 'clusterrole'}.${RBAC_GROUP} "${name}" not found` };
    }
    return this.live.rulesOfRoleRef(roleRef, bindingNamespace);
  }
}

export class CandidatePolicy implements RuleVisiting {
  /** Changed roles by role key (null: deleted), aggregated roles recomputed included. */
  readonly roles = new Map<string, Role | ClusterRole | null>();
  /** The live bindings the overlay replaces or removes, by binding id. */
  private readonly replaced = new Set<string>();
  /** Changed bindings: their live version (null: created) and candidate version (null: deleted). */
  readonly bindingChanges: Array<{ before: RoleBinding | null; after: RoleBinding | null; kind: 'RoleBinding' | 'ClusterRoleBinding' }> = [];
  /** Live bindings whose role changes (their grants change with it). */
  readonly bindingsOfChangedRoles: BindingEntry[] = [];
  private readonly overlay: OverlayIndex;

  constructor(
    readonly live: PolicyIndex,
    private readonly access: AccessIndex,
    changes: readonly PolicyObjectChange[],
    /** false: the changes are the stored state as it is (a committed change), not re-aggregated as the controller would. */
    aggregation = true,
  ) {
    this.overlay = new OverlayIndex(live, this.roles);
    const changedBindings = new Map<string, RoleBinding | null>();
    for (const change of changes) {
      if (isBindingKind(change.kind)) {
        const namespace = change.kind === 'RoleBinding' ? change.namespace : '';
        const id = objectKeyOf(change.kind, namespace, change.name);
        changedBindings.set(id, change.object as RoleBinding | null);
        const before = this.liveObject(change.kind, namespace, change.name) as RoleBinding | undefined;
        this.bindingChanges.push({ kind: change.kind, before: before ?? null, after: change.object as RoleBinding | null });
      } else {
        this.roles.set(roleKeyOfObject(change.kind, change.namespace, change.name), change.object as Role | null);
      }
    }
    if (aggregation) this.aggregate();
    // Bindings whose role changes are filed again in the overlay, where they resolve the new rules.
    for (const key of this.roles.keys()) {
      for (const entry of access.bindingsReferencing(key)) {
        const id = objectKeyOf(entry.kind, entry.namespace, entry.name);
        if (changedBindings.has(id)) continue;
        this.bindingsOfChangedRoles.push(entry);
        this.replaced.add(id);
        this.overlay.upsert(entry.kind === 'RoleBinding' ? ROLE_BINDINGS_RESOURCE : CLUSTER_ROLE_BINDINGS_RESOURCE, entry.object);
      }
    }
    for (const [id, object] of changedBindings) {
      this.replaced.add(id);
      if (object) this.overlay.upsert(id.startsWith('RoleBinding/') ? ROLE_BINDINGS_RESOURCE : CLUSTER_ROLE_BINDINGS_RESOURCE, object);
    }
  }

  /** The live object a change replaces, if any. */
  liveObject(kind: RbacKind, namespace: string, name: string): KubeObject | undefined {
    switch (kind) {
      case 'Role':
        return this.live.role(namespace, name);
      case 'ClusterRole':
        return this.live.clusterRole(name);
      default:
        return this.access.binding(kind, kind === 'RoleBinding' ? namespace : '', name)?.object;
    }
  }

  /** A role as the candidate state has it (undefined: no such role). */
  role(key: string): Role | ClusterRole | undefined {
    if (this.roles.has(key)) return this.roles.get(key) ?? undefined;
    if (key.startsWith('ClusterRole/')) return this.live.clusterRole(key.slice('ClusterRole/'.length));
    const [, namespace, name] = key.split('/');
    return this.live.role(namespace, name);
  }

  /** The bindings of the candidate state that the overlay holds (changed ones and those of changed roles). */
  overlayBindings(): RoleBinding[] {
    return [...this.overlay.objectsOf('RoleBinding'), ...this.overlay.objectsOf('ClusterRoleBinding')] as RoleBinding[];
  }

  /** Whether the overlay replaces or removes this live binding. */
  replaces(kind: 'RoleBinding' | 'ClusterRoleBinding', namespace: string, name: string): boolean {
    return this.replaced.has(objectKeyOf(kind, namespace, name));
  }

  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void {
    let stopped = false;
    this.live.visitRulesFor(user, namespace, (source, rule, error) => {
      if (source && this.replaced.has(objectKeyOf(source.binding.kind, source.binding.namespace, source.binding.name))) return true;
      // Resolution errors may concern a replaced binding or a changed role: the overlay reports its own.
      if (!source) return true;
      stopped = !visitor(source, rule, error);
      return !stopped;
    });
    if (!stopped) this.overlay.visitRulesFor(user, namespace, visitor);
  }

  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    return collectRules(this, user, namespace);
  }

  /**
   * ClusterRole aggregation, as the aggregation controller would do it once the changes are
   * in: every aggregating ClusterRole whose selectors match a changed role (before or after
   * the change), or that changes itself, gets the rules of the roles it selects.
   */
  private aggregate(): void {
    const changedNames = () => [...this.roles.keys()].filter((k) => k.startsWith('ClusterRole/')).map((k) => k.slice('ClusterRole/'.length));
    const candidateClusterRoles = (): ClusterRole[] => {
      const byName = new Map(this.live.allClusterRoles().map((r) => [r.metadata.name ?? '', r]));
      for (const name of changedNames()) {
        const role = this.roles.get(clusterRoleKey(name));
        if (role) byName.set(name, role as ClusterRole);
        else byName.delete(name);
      }
      return [...byName.values()];
    };
    let touched = new Set(changedNames());
    for (let round = 0; round < MAX_AGGREGATION_ROUNDS && touched.size; round++) {
      const roles = candidateClusterRoles();
      const labelsOfTouched = [...touched].flatMap((name) => {
        const before = this.live.clusterRole(name);
        const after = this.roles.get(clusterRoleKey(name));
        return [before?.metadata.labels, after?.metadata.labels].filter((l) => l !== undefined);
      });
      const next = new Set<string>();
      for (const aggregating of roles) {
        const selectors = aggregating.aggregationRule?.clusterRoleSelectors;
        if (!Array.isArray(selectors) || selectors.length === 0) continue;
        const name = aggregating.metadata.name ?? '';
        const matchers = selectors.map((s) => clusterRoleSelectorMatcher(s));
        const selectsTouched = touched.has(name) || labelsOfTouched.some((labels) => matchers.some((m) => m?.matches(labels)));
        if (!selectsTouched) continue;
        const rules = aggregateRules(aggregating, roles);
        if (rules === null || sameRules(rules, aggregating.rules)) continue;
        this.roles.set(clusterRoleKey(name), { ...aggregating, rules });
        next.add(name);
      }
      touched = next;
    }
  }
}
