import { MultiMap } from '../../apimachinery/multi-map';
import { Logger } from '@nestjs/common';
import { Clock, systemClock } from '../../apimachinery/clock';
import { storageResource } from '../../apimachinery/store-key';
import { KubeObject } from '../../apimachinery/types';
import { UserInfo } from '../../apimachinery/user-info';
import { bindingWindow } from '../../apis/rbac/binding-window';
import { GrantingBinding } from '../authorizer';
import { ClusterRole, PolicyRule, RBAC_GROUP, Role, RoleBinding, RoleRef, Subject } from '../../apis/rbac/types';
import { BindingKind, describeBinding, describeSubject, fileSubject, SubjectKey, subjectKeysOf } from './subjects';

/**
 * An in-memory index of the RBAC objects (what a kube informer's caches plus the rule
 * resolver's listers are): roles by key, bindings filed by subject key (user, group,
 * service account user name) and by namespace. A decision visits only the bindings filed
 * under the caller's name and groups, in the cluster scope and in the request's
 * namespace, so its cost does not depend on how many bindings exist. Each binding caches
 * the rules its roleRef resolves to; a change to that role clears the cache.
 *
 * The index holds no I/O: RbacIndex feeds it from the store and the change feed; tests
 * and benchmarks feed it directly.
 */

export const ROLES_RESOURCE = storageResource({ group: RBAC_GROUP, plural: 'roles' });
export const CLUSTER_ROLES_RESOURCE = storageResource({ group: RBAC_GROUP, plural: 'clusterroles' });
export const ROLE_BINDINGS_RESOURCE = storageResource({ group: RBAC_GROUP, plural: 'rolebindings' });
export const CLUSTER_ROLE_BINDINGS_RESOURCE = storageResource({ group: RBAC_GROUP, plural: 'clusterrolebindings' });
export const RBAC_RESOURCES = [ROLES_RESOURCE, CLUSTER_ROLES_RESOURCE, ROLE_BINDINGS_RESOURCE, CLUSTER_ROLE_BINDINGS_RESOURCE] as const;
export type RbacResource = (typeof RBAC_RESOURCES)[number];

export type RbacKind = 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding';

const KIND_OF: Record<RbacResource, RbacKind> = {
  [ROLES_RESOURCE]: 'Role',
  [CLUSTER_ROLES_RESOURCE]: 'ClusterRole',
  [ROLE_BINDINGS_RESOURCE]: 'RoleBinding',
  [CLUSTER_ROLE_BINDINGS_RESOURCE]: 'ClusterRoleBinding',
};

export function isRbacResource(resource: string): resource is RbacResource {
  return Object.prototype.hasOwnProperty.call(KIND_OF, resource);
}

/** The rules a roleRef resolves to, or kube's error text when it does not resolve. */
export type RoleResolution = { rules: readonly PolicyRule[]; error?: undefined } | { rules?: undefined; error: string };

/** Per subject key of one binding: the first well-formed subject with that key, and errors of malformed ones. */
interface SubjectMatch {
  key: SubjectKey;
  first: number;
  errors: string[];
}

/** A binding as the index keeps it (and as an RBAC allow names the binding that granted it). */
export class IndexedBinding implements GrantingBinding {
  /** The rules of the role it references; cleared when that role changes. */
  resolved: RoleResolution | undefined;
  /** The sources of its rules by subject index, made as decisions visit them. */
  private ruleSources: RuleSource[] | undefined;
  /** Its validity window (time-bound bindings), open-ended sides as infinities so the check is two comparisons. */
  private readonly validFrom: number;
  private readonly validUntil: number;

  constructor(
    readonly kind: BindingKind,
    readonly namespace: string,
    readonly name: string,
    readonly object: RoleBinding,
    /** The key of the role it references (for invalidation); undefined for unsupported kinds. */
    readonly roleKey: string | undefined,
    /** One per distinct subject key (an array: most bindings name one or a few; a Map per binding cost ~300 bytes). */
    readonly matches: readonly SubjectMatch[],
  ) {
    const window = bindingWindow(object);
    this.validFrom = window.validFrom ?? Number.NEGATIVE_INFINITY;
    this.validUntil = window.validUntil ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Where its rules come from for the subject at `subjectIndex`: made once per subject (a
   * binding is replaced, never changed, when its object changes), as every decision it
   * grants names it.
   */
  sourceOf(subjectIndex: number): RuleSource {
    const sources = (this.ruleSources ??= []);
    return (sources[subjectIndex] ??= new RuleSource(this, subjectIndex));
  }

  matchOf(key: SubjectKey): SubjectMatch | undefined {
    for (const match of this.matches) if (match.key === key) return match;
    return undefined;
  }

  /** Whether the binding may grant at `now` (ms since the epoch): outside its window it grants nothing (as windowState). */
  grantsAt(now: number): boolean {
    return now >= this.validFrom && now < this.validUntil;
  }

  get roleRef(): RoleRef {
    return this.object.roleRef;
  }

  get uid(): string {
    return this.object.metadata?.uid ?? '';
  }

  get subjects(): Subject[] {
    return this.object.subjects ?? [];
  }
}

/** Where a rule came from, as kube's allow reasons describe it. */
export class RuleSource {
  private description: string | undefined;
  private reason: string | undefined;

  constructor(
    readonly binding: IndexedBinding,
    /** Index of the first subject of the binding that names the caller. */
    readonly subjectIndex: number,
  ) {}

  get subject(): Subject {
    return this.binding.subjects[this.subjectIndex];
  }

  /** `ClusterRoleBinding "x" of ClusterRole "y" to User "alice"`, `RoleBinding "x/ns" of Role "y" to Group "g"`; made once. */
  describe(): string {
    const b = this.binding;
    return (this.description ??= `${describeBinding(b.kind, b.namespace, b.name)} of ${b.roleRef?.kind} "${b.roleRef?.name}" to ${describeSubject(this.subject, b.namespace)}`);
  }

  /** kube's reason for a decision this source allows; made once. */
  allowReason(): string {
    return (this.reason ??= `RBAC: allowed by ${this.describe()}`);
  }

  toString(): string {
    return this.describe();
  }
}

/**
 * Called with each rule that applies to a caller (with its source), and with each error met
 * resolving them (rule and source null). Returning false stops the visit.
 */
export type RuleVisitor = (source: RuleSource | null, rule: PolicyRule | null, error: string | null) => boolean;

/** Anything that can visit a caller's rules (the index; tests may fake it). */
export interface RuleVisiting {
  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void;
}

/** Every rule a visit finds for the caller in the namespace, and the errors met (kube's RulesFor). */
export function collectRules(rules: RuleVisiting, user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
  const found: PolicyRule[] = [];
  const errors: string[] = [];
  rules.visitRulesFor(user, namespace, (_source, rule, error) => {
    if (rule) found.push(rule);
    if (error) errors.push(error);
    return true;
  });
  return { rules: found, errors };
}

/** A binding that applies to a caller, and the subject through which it does. */
export interface AppliedBinding {
  kind: BindingKind;
  namespace: string;
  name: string;
  roleRef: RoleRef;
  subject: Subject;
  binding: RoleBinding;
}

/** What changed in the index, for readers that derive state from it (aggregation). */
export type PolicyChange =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; kind: RbacKind; object: KubeObject }
  /** The whole index was rebuilt from a fresh list. */
  | { type: 'RESYNCED' };

export type PolicyChangeListener = (change: PolicyChange) => void;

const roleKeyOf = (namespace: string, name: string) => `Role/${namespace}/${name}`;
const clusterRoleKeyOf = (name: string) => `ClusterRole/${name}`;
const bindingIdOf = (kind: BindingKind, namespace: string, name: string) => `${kind}/${namespace}/${name}`;


export class PolicyIndex implements RuleVisiting {
  private roles = new Map<string, Role>();
  private clusterRoles = new Map<string, ClusterRole>();
  private bindings = new Map<string, IndexedBinding>();
  /** ClusterRoleBindings by subject key. */
  private clusterBindings = new MultiMap<SubjectKey, IndexedBinding>();
  /** RoleBindings by namespace, then subject key. */
  private namespaceBindings = new Map<string, MultiMap<SubjectKey, IndexedBinding>>();
  /** Bindings by the key of the role they reference, to clear their cached rules. */
  private dependents = new MultiMap<string, IndexedBinding>();
  private readonly listeners = new Set<PolicyChangeListener>();
  private readonly logger = new Logger('RbacIndex');

  /** `clock` decides whether time-bound bindings grant, at each visit. */
  constructor(readonly clock: Clock = systemClock) {}

  // ---- reads ------------------------------------------------------------------------------

  role(namespace: string, name: string): Role | undefined {
    return this.roles.get(roleKeyOf(namespace, name));
  }

  clusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.get(clusterRoleKeyOf(name));
  }

  allClusterRoles(): ClusterRole[] {
    return [...this.clusterRoles.values()];
  }

  /** Every object of one kind the index holds (readers that build their own indexes from it, at a resync). */
  objectsOf(kind: RbacKind): KubeObject[] {
    switch (kind) {
      case 'Role':
        return [...this.roles.values()];
      case 'ClusterRole':
        return [...this.clusterRoles.values()];
      default:
        return [...this.bindings.values()].filter((b) => b.kind === kind).map((b) => b.object);
    }
  }

  /** How many objects of each kind the index holds (for logs, tests and benchmarks; walks the bindings). */
  counts(): Record<RbacKind, number> {
    let roleBindings = 0;
    for (const b of this.bindings.values()) if (b.kind === 'RoleBinding') roleBindings++;
    return {
      Role: this.roles.size,
      ClusterRole: this.clusterRoles.size,
      RoleBinding: roleBindings,
      ClusterRoleBinding: this.bindings.size - roleBindings,
    };
  }

  /**
   * The rules a roleRef of a binding in `bindingNamespace` ('' for a ClusterRoleBinding)
   * resolves to, as kube's GetRoleReferenceRules: a Role is looked up in that namespace.
   */
  rulesOfRoleRef(roleRef: RoleRef, bindingNamespace: string): RoleResolution {
    const name = roleRef?.name ?? '';
    switch (roleRef?.kind) {
      case 'Role': {
        const role = this.roles.get(roleKeyOf(bindingNamespace, name));
        return role ? { rules: role.rules ?? [] } : { error: `role.${RBAC_GROUP} "${name}" not found` };
      }
      case 'ClusterRole': {
        const role = this.clusterRoles.get(clusterRoleKeyOf(name));
        return role ? { rules: role.rules ?? [] } : { error: `clusterrole.${RBAC_GROUP} "${name}" not found` };
      }
      default:
        return { error: `unsupported role reference kind: "${String(roleRef?.kind ?? '')}"` };
    }
  }

  /**
   * kube's VisitRulesFor: the rules of ClusterRoleBindings naming the caller, then of the
   * RoleBindings naming it in `namespace` (none when it is empty).
   */
  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void {
    this.visitBindingsOf(user, namespace, (binding, subjectIndex, errors) => {
      for (const error of errors) if (!visitor(null, null, error)) return false;
      if (subjectIndex < 0) return true;
      const resolved = (binding.resolved ??= this.rulesOfRoleRef(binding.roleRef, binding.namespace));
      if (resolved.error !== undefined) return visitor(null, null, resolved.error);
      const source = binding.sourceOf(subjectIndex);
      for (const rule of resolved.rules) if (!visitor(source, rule, null)) return false;
      return true;
    });
  }

  /** Every rule applying to the caller in the namespace, and the errors met (kube's RulesFor); the rules are the index's own, read-only. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    return collectRules(this, user, namespace);
  }

  /** The bindings that apply to the caller: cluster-wide, and in `namespace` when given. */
  bindingsFor(user: UserInfo, namespace = ''): AppliedBinding[] {
    const applied: AppliedBinding[] = [];
    this.visitBindingsOf(user, namespace, (binding, subjectIndex) => {
      if (subjectIndex >= 0) {
        applied.push({
          kind: binding.kind,
          namespace: binding.namespace,
          name: binding.name,
          roleRef: binding.roleRef,
          subject: binding.subjects[subjectIndex],
          binding: binding.object,
        });
      }
      return true;
    });
    return applied;
  }

  /**
   * Calls `fn` once per binding filed under one of the caller's keys, with the index of the
   * first well-formed subject naming the caller (-1 when only malformed ones do) and the
   * errors of the malformed ones. `fn` returning false stops the walk. Bindings outside their
   * validity window at this moment are not visited: they grant nothing.
   */
  private visitBindingsOf(
    user: UserInfo,
    namespace: string,
    fn: (binding: IndexedBinding, subjectIndex: number, errors: readonly string[]) => boolean,
  ): void {
    const keys = subjectKeysOf(user);
    const now = this.clock.now();
    // A binding naming the user and one of its groups is filed under both keys: visit it once.
    const seen = keys.length > 1 ? new Set<IndexedBinding>() : null;
    const walk = (bucket: MultiMap<SubjectKey, IndexedBinding> | undefined): boolean => {
      if (!bucket) return true;
      for (const key of keys) {
        const filed = bucket.get(key);
        if (!filed) continue;
        for (const binding of filed) {
          if (seen) {
            if (seen.has(binding)) continue;
            seen.add(binding);
          }
          if (!binding.grantsAt(now)) continue;
          let first = -1;
          let errors: string[] = [];
          for (const k of keys) {
            const match = binding.matchOf(k);
            if (!match) continue;
            if (match.first >= 0 && (first < 0 || match.first < first)) first = match.first;
            if (match.errors.length) errors = errors.length ? [...errors, ...match.errors] : match.errors;
          }
          if (!fn(binding, first, errors)) return false;
        }
      }
      return true;
    };
    if (!walk(this.clusterBindings)) return;
    if (namespace) walk(this.namespaceBindings.get(namespace));
  }

  // ---- writes -----------------------------------------------------------------------------

  onChange(listener: PolicyChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Adds or replaces one object of an RBAC resource. */
  upsert(resource: RbacResource, object: KubeObject): void {
    const kind = KIND_OF[resource];
    const namespace = object.metadata?.namespace ?? '';
    const name = object.metadata?.name ?? '';
    let existed: boolean;
    switch (kind) {
      case 'Role': {
        const key = roleKeyOf(namespace, name);
        existed = this.roles.has(key);
        this.roles.set(key, object as Role);
        this.invalidate(key);
        break;
      }
      case 'ClusterRole': {
        const key = clusterRoleKeyOf(name);
        existed = this.clusterRoles.has(key);
        this.clusterRoles.set(key, object as ClusterRole);
        this.invalidate(key);
        break;
      }
      default:
        existed = this.removeBinding(kind, kind === 'RoleBinding' ? namespace : '', name);
        this.addBinding(kind, object as RoleBinding);
    }
    this.emit({ type: existed ? 'MODIFIED' : 'ADDED', kind, object });
  }

  /** Removes one object (no-op when absent). */
  remove(resource: RbacResource, namespace: string, name: string, lastState?: KubeObject): void {
    const kind = KIND_OF[resource];
    let existed: boolean;
    switch (kind) {
      case 'Role': {
        const key = roleKeyOf(namespace, name);
        existed = this.roles.delete(key);
        this.invalidate(key);
        break;
      }
      case 'ClusterRole': {
        const key = clusterRoleKeyOf(name);
        existed = this.clusterRoles.delete(key);
        this.invalidate(key);
        break;
      }
      default:
        existed = this.removeBinding(kind, namespace, name);
    }
    if (existed) this.emit({ type: 'DELETED', kind, object: lastState ?? { metadata: { namespace, name } } });
  }

  /** Replaces everything with fresh lists (an informer's relist), in one synchronous step. */
  replaceAll(lists: ReadonlyArray<{ resource: RbacResource; items: readonly KubeObject[] }>): void {
    this.roles = new Map();
    this.clusterRoles = new Map();
    this.bindings = new Map();
    this.clusterBindings = new MultiMap();
    this.namespaceBindings = new Map();
    this.dependents = new MultiMap();
    for (const { resource, items } of lists) {
      const kind = KIND_OF[resource];
      for (const object of items) {
        const namespace = object.metadata?.namespace ?? '';
        const name = object.metadata?.name ?? '';
        if (kind === 'Role') this.roles.set(roleKeyOf(namespace, name), object as Role);
        else if (kind === 'ClusterRole') this.clusterRoles.set(clusterRoleKeyOf(name), object as ClusterRole);
        else this.addBinding(kind, object as RoleBinding);
      }
    }
    this.emit({ type: 'RESYNCED' });
  }

  private addBinding(kind: BindingKind, object: RoleBinding): void {
    const namespace = kind === 'RoleBinding' ? (object.metadata?.namespace ?? '') : '';
    const name = object.metadata?.name ?? '';
    const matches: SubjectMatch[] = [];
    const subjects = Array.isArray(object.subjects) ? object.subjects : [];
    subjects.forEach((subject, i) => {
      for (const filing of fileSubject(subject, namespace)) {
        let match = matches.find((m) => m.key === filing.key);
        if (!match) matches.push((match = { key: filing.key, first: -1, errors: [] }));
        if (filing.error) match.errors.push(`${describeBinding(kind, namespace, name)}: ${filing.error}`);
        else if (match.first < 0) match.first = i;
      }
    });
    const roleRef = object.roleRef;
    const roleKey =
      roleRef?.kind === 'ClusterRole' ? clusterRoleKeyOf(roleRef.name) : roleRef?.kind === 'Role' ? roleKeyOf(namespace, roleRef.name) : undefined;
    const binding = new IndexedBinding(kind, namespace, name, object, roleKey, matches);
    this.bindings.set(bindingIdOf(kind, namespace, name), binding);
    let bucket: MultiMap<SubjectKey, IndexedBinding>;
    if (kind === 'ClusterRoleBinding') bucket = this.clusterBindings;
    else {
      let inNamespace = this.namespaceBindings.get(namespace);
      if (!inNamespace) this.namespaceBindings.set(namespace, (inNamespace = new MultiMap()));
      bucket = inNamespace;
    }
    for (const { key } of matches) bucket.add(key, binding);
    if (roleKey) this.dependents.add(roleKey, binding);
  }

  private removeBinding(kind: BindingKind, namespace: string, name: string): boolean {
    const id = bindingIdOf(kind, namespace, name);
    const binding = this.bindings.get(id);
    if (!binding) return false;
    this.bindings.delete(id);
    if (kind === 'ClusterRoleBinding') {
      for (const { key } of binding.matches) this.clusterBindings.delete(key, binding);
    } else {
      const bucket = this.namespaceBindings.get(namespace);
      if (bucket) {
        for (const { key } of binding.matches) bucket.delete(key, binding);
        if (bucket.size === 0) this.namespaceBindings.delete(namespace);
      }
    }
    if (binding.roleKey) this.dependents.delete(binding.roleKey, binding);
    return true;
  }

  /** A role changed: bindings referencing it resolve their rules again on next use. */
  private invalidate(roleKey: string): void {
    const dependents = this.dependents.get(roleKey);
    if (dependents) for (const binding of dependents) binding.resolved = undefined;
  }

  private emit(change: PolicyChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (err) {
        // A reader's failure must not leave the index half-updated.
        this.logger.error(`a listener of RBAC changes failed: ${(err as Error).message}`);
      }
    }
  }
}
