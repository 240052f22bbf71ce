import { MultiMap } from '../apimachinery/multi-map';
import { KubeObject } from '../apimachinery/types';
import { PolicyChange, PolicyIndex, RbacKind } from '../authorization/rbac/policy-index';
import { fileSubject, SubjectKey } from '../authorization/rbac/subjects';
import { PolicyRule, RoleBinding } from '../apis/rbac/types';

/**
 * Reverse indexes over the RBAC policy index, for questions the authorizer never asks
 * ("who may do X?"): the roles whose rules mention a verb and a resource, the bindings
 * that reference a role, and the bindings that name a subject. They only select
 * candidates; every answer is then checked against the policy index's own objects with
 * the authorizer's matching, so a stale candidate can never grant.
 *
 * Fed from the policy index's change events (and rebuilt from its objects when it
 * resyncs), so it holds no I/O and follows whatever feeds the policy index.
 */

export type BindingKind = 'RoleBinding' | 'ClusterRoleBinding';

/** A binding as this index keeps it. */
export interface BindingEntry {
  kind: BindingKind;
  /** '' for a ClusterRoleBinding. */
  namespace: string;
  name: string;
  object: RoleBinding;
  /** The key of the role its roleRef names, when the kind is one RBAC resolves. */
  roleKey?: string;
}

export const clusterRoleKey = (name: string) => `ClusterRole/${name}`;
export const roleKey = (namespace: string, name: string) => `Role/${namespace}/${name}`;
const SEP = '\u0000';
/** Rules with non-resource URLs are filed under this resource token. */
const NON_RESOURCE = `${SEP}nonResource`;

/** Resource tokens under which a request for `resource[/subresource]` may be granted. */
export function resourceTokens(resource: string, subresource: string): string[] {
  if (!subresource) return [resource, '*'];
  return [`${resource}/${subresource}`, '*', `*/${subresource}`];
}

function ruleTokens(rule: PolicyRule): string[] {
  const tokens: string[] = [];
  const verbs = Array.isArray(rule?.verbs) ? rule.verbs : [];
  const resources = [...(Array.isArray(rule?.resources) ? rule.resources : []), ...(rule?.nonResourceURLs?.length ? [NON_RESOURCE] : [])];
  for (const verb of verbs) for (const resource of resources) tokens.push(`${verb}${SEP}${resource}`);
  return tokens;
}

/** Role keys filed by `verb␀resource` token, so a question visits only roles that mention both. */
class RuleTokenIndex {
  private byToken = new MultiMap<string, string>();
  private tokensOf = new Map<string, string[]>();

  set(key: string, rules: readonly PolicyRule[] | null | undefined): void {
    this.delete(key);
    const tokens = [...new Set((Array.isArray(rules) ? rules : []).flatMap(ruleTokens))];
    for (const token of tokens) this.byToken.add(token, key);
    this.tokensOf.set(key, tokens);
  }

  delete(key: string): void {
    for (const token of this.tokensOf.get(key) ?? []) this.byToken.delete(token, key);
    this.tokensOf.delete(key);
  }

  /** Roles with a rule naming `verb` (or `*`) and one of the resource tokens. */
  candidates(verb: string, resources: readonly string[], into: Set<string>): void {
    for (const v of verb === '*' ? ['*'] : [verb, '*']) {
      for (const r of resources) for (const key of this.byToken.get(`${v}${SEP}${r}`) ?? []) into.add(key);
    }
  }

  get size(): number {
    return this.tokensOf.size;
  }
}

/**
 * Keys to the bindings filed under them, a lone binding held as itself: most subjects are
 * named by one binding, and a bucket per subject (an array and its store) was a third of this
 * index's memory, which the leader holds twice (the live policy's and access history's).
 */
class BindingsByKey<K> {
  /** One binding as itself; several in a MultiMap's one bucket (an array while small, then a Set). */
  private readonly buckets = new Map<K, BindingEntry | MultiMap<true, BindingEntry>>();

  get size(): number {
    return this.buckets.size;
  }

  /** The key's bindings (iterate only), or undefined without any. */
  get(key: K): Iterable<BindingEntry> | undefined {
    const bucket = this.buckets.get(key);
    return bucket instanceof MultiMap ? bucket.get(true) : bucket && [bucket];
  }

  add(key: K, entry: BindingEntry): void {
    const bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, entry);
    else if (bucket instanceof MultiMap) bucket.add(true, entry);
    else if (bucket !== entry) {
      const many = new MultiMap<true, BindingEntry>();
      many.add(true, bucket);
      many.add(true, entry);
      this.buckets.set(key, many);
    }
  }

  delete(key: K, entry: BindingEntry): void {
    const bucket = this.buckets.get(key);
    if (bucket === entry) this.buckets.delete(key);
    else if (bucket instanceof MultiMap) {
      bucket.delete(true, entry);
      if (!bucket.size) this.buckets.delete(key);
    }
  }
}

/** The bindings that reference one role, by binding namespace ('' for ClusterRoleBindings), and the role's key, held once. */
interface RoleReferences {
  key: string;
  scopes: MultiMap<string, BindingEntry>;
  /** What candidateScopes derived from a scope's bindings, by scope: dropped when they change. */
  derived?: Map<string, Derived>;
}

interface Derived {
  derive: (bindings: readonly BindingEntry[]) => unknown;
  value: unknown;
}

export class AccessIndex {
  private clusterRoleRules = new RuleTokenIndex();
  /** Role rules per namespace: a Role only grants through bindings in its own namespace. */
  private roleRules = new Map<string, RuleTokenIndex>();
  /** ClusterRoleBindings by name; RoleBindings by namespace, then name (the objects' own strings as keys). */
  private clusterBindings = new Map<string, BindingEntry>();
  private roleBindings = new Map<string, Map<string, BindingEntry>>();
  private bindingCount = 0;
  /** role key -> the bindings referencing it. */
  private byRole = new Map<string, RoleReferences>();
  /**
   * Subject key (`u:`/`g:`, as the policy index files subjects) -> bindings naming it,
   * well-formed or not: users' and groups' apart, by the name after the prefix (a User or
   * Group subject's own name string, no key made per binding).
   */
  private byUser = new BindingsByKey<string>();
  private byGroup = new BindingsByKey<string>();
  private readonly unsubscribe: () => void;

  constructor(private readonly policy: PolicyIndex) {
    this.unsubscribe = policy.onChange((change) => this.apply(change));
    this.rebuild();
  }

  close(): void {
    this.unsubscribe();
  }

  /**
   * The bindings that may grant `verb` on `resource[/subresource]` (or, with
   * `nonResource`, a non-resource URL) in `namespace` ('' = cluster-wide only): those whose
   * role has a rule naming the verb and resource, or wildcards, in scope.
   */
  candidateBindings(verb: string, resources: readonly string[], namespace: string): BindingEntry[] {
    const found: BindingEntry[] = [];
    this.visitCandidateScopes(verb, resources, namespace, (references, scope) => {
      for (const binding of references.scopes.get(scope) ?? []) found.push(binding);
    });
    return found;
  }

  /**
   * What `derive` makes of the bindings of each role and scope candidateBindings visits (in
   * its order), made the first time and kept until one of those bindings changes: a reader
   * that files and sorts them (who-can) does it once per change instead of once per question.
   * `derive` must depend on nothing but the bindings given.
   */
  candidateScopes<T>(verb: string, resources: readonly string[], namespace: string, derive: (bindings: readonly BindingEntry[]) => T): T[] {
    const found: T[] = [];
    this.visitCandidateScopes(verb, resources, namespace, (references, scope) => {
      const bindings = references.scopes.get(scope);
      if (!bindings) return;
      const derived = (references.derived ??= new Map<string, Derived>());
      let kept = derived.get(scope);
      if (kept?.derive !== derive) derived.set(scope, (kept = { derive, value: derive([...bindings]) }));
      found.push(kept.value as T);
    });
    return found;
  }

  /** Each role (and its scope: cluster-wide, or the namespace) whose rules name the verb and resource, or wildcards. */
  private visitCandidateScopes(verb: string, resources: readonly string[], namespace: string, visit: (references: RoleReferences, scope: string) => void): void {
    const clusterRoles = new Set<string>();
    this.clusterRoleRules.candidates(verb, resources, clusterRoles);
    const roles = new Set<string>();
    if (namespace) this.roleRules.get(namespace)?.candidates(verb, resources, roles);
    for (const key of clusterRoles) {
      const references = this.byRole.get(key);
      if (!references) continue;
      visit(references, '');
      if (namespace) visit(references, namespace);
    }
    for (const key of roles) {
      const references = this.byRole.get(key);
      if (references) visit(references, namespace);
    }
  }

  /** Resource token for non-resource rules. */
  static readonly NON_RESOURCE = NON_RESOURCE;

  /** Every binding that names one of the keys, in any namespace (malformed subjects included). */
  bindingsNaming(keys: readonly SubjectKey[]): BindingEntry[] {
    const found = new Set<BindingEntry>();
    for (const key of keys) for (const binding of this.subjectIndex(key)?.get(key.slice(2)) ?? []) found.add(binding);
    return [...found];
  }

  /** Every binding whose roleRef names the role key (`ClusterRole/<name>`, `Role/<namespace>/<name>`), in any namespace. */
  bindingsReferencing(key: string): BindingEntry[] {
    const found: BindingEntry[] = [];
    const scopes = this.byRole.get(key)?.scopes;
    if (scopes) for (const scope of scopes.keys()) for (const binding of scopes.get(scope) ?? []) found.push(binding);
    return found;
  }

  /** One binding by kind, namespace ('' for a ClusterRoleBinding) and name. */
  binding(kind: BindingKind, namespace: string, name: string): BindingEntry | undefined {
    if (kind === 'ClusterRoleBinding') return namespace ? undefined : this.clusterBindings.get(name);
    return this.roleBindings.get(namespace)?.get(name);
  }

  counts(): { roles: number; bindings: number } {
    let roles = this.clusterRoleRules.size;
    for (const index of this.roleRules.values()) roles += index.size;
    return { roles, bindings: this.bindingCount };
  }

  // ---- feeding ----------------------------------------------------------------------------

  private apply(change: PolicyChange): void {
    if (change.type === 'RESYNCED') return this.rebuild();
    const { kind, object } = change;
    if (change.type === 'DELETED') this.delete(kind, object);
    else this.upsert(kind, object);
  }

  private rebuild(): void {
    this.clusterRoleRules = new RuleTokenIndex();
    this.roleRules = new Map();
    this.clusterBindings = new Map();
    this.roleBindings = new Map();
    this.bindingCount = 0;
    this.byRole = new Map();
    this.byUser = new BindingsByKey();
    this.byGroup = new BindingsByKey();
    for (const kind of ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'] as RbacKind[]) {
      for (const object of this.policy.objectsOf(kind)) this.upsert(kind, object);
    }
  }

  private upsert(kind: RbacKind, object: KubeObject): void {
    const namespace = object.metadata?.namespace ?? '';
    const name = object.metadata?.name ?? '';
    const rules = (object as { rules?: PolicyRule[] | null }).rules;
    switch (kind) {
      case 'ClusterRole':
        this.clusterRoleRules.set(clusterRoleKey(name), rules);
        return;
      case 'Role': {
        let index = this.roleRules.get(namespace);
        if (!index) this.roleRules.set(namespace, (index = new RuleTokenIndex()));
        index.set(roleKey(namespace, name), rules);
        return;
      }
      default:
        this.deleteBinding(kind, kind === 'RoleBinding' ? namespace : '', name);
        this.addBinding(kind, object as RoleBinding);
    }
  }

  private delete(kind: RbacKind, object: KubeObject): void {
    const namespace = object.metadata?.namespace ?? '';
    const name = object.metadata?.name ?? '';
    switch (kind) {
      case 'ClusterRole':
        this.clusterRoleRules.delete(clusterRoleKey(name));
        return;
      case 'Role': {
        const index = this.roleRules.get(namespace);
        index?.delete(roleKey(namespace, name));
        if (index && !index.size) this.roleRules.delete(namespace);
        return;
      }
      default:
        this.deleteBinding(kind, kind === 'RoleBinding' ? namespace : '', name);
    }
  }

  private addBinding(kind: BindingKind, object: RoleBinding): void {
    const namespace = kind === 'RoleBinding' ? (object.metadata?.namespace ?? '') : '';
    const name = object.metadata?.name ?? '';
    const ref = object.roleRef;
    const key = ref?.kind === 'ClusterRole' ? clusterRoleKey(ref.name) : ref?.kind === 'Role' && namespace ? roleKey(namespace, ref.name) : undefined;
    let references: RoleReferences | undefined;
    if (key) {
      references = this.byRole.get(key);
      if (!references) this.byRole.set(key, (references = { key, scopes: new MultiMap() }));
    }
    // The role's key string held once, however many bindings reference the role.
    const entry: BindingEntry = { kind, namespace, name, object, roleKey: references?.key };
    if (kind === 'ClusterRoleBinding') this.clusterBindings.set(name, entry);
    else {
      let byName = this.roleBindings.get(namespace);
      if (!byName) this.roleBindings.set(namespace, (byName = new Map<string, BindingEntry>()));
      byName.set(name, entry);
    }
    this.bindingCount++;
    references?.scopes.add(namespace, entry);
    references?.derived?.delete(namespace);
    this.fileSubjects(entry, (index, name) => index.add(name, entry));
  }

  private deleteBinding(kind: BindingKind, namespace: string, name: string): void {
    const entry = this.binding(kind, namespace, name);
    if (!entry) return;
    if (kind === 'ClusterRoleBinding') this.clusterBindings.delete(name);
    else {
      const byName = this.roleBindings.get(namespace)!;
      byName.delete(name);
      if (!byName.size) this.roleBindings.delete(namespace);
    }
    this.bindingCount--;
    if (entry.roleKey) {
      const references = this.byRole.get(entry.roleKey);
      if (references) {
        references.scopes.delete(namespace, entry);
        references.derived?.delete(namespace);
        if (!references.scopes.size) this.byRole.delete(entry.roleKey);
      }
    }
    this.fileSubjects(entry, (index, name) => index.delete(name, entry));
  }

  private subjectIndex(key: SubjectKey): BindingsByKey<string> | undefined {
    return key.startsWith('u:') ? this.byUser : key.startsWith('g:') ? this.byGroup : undefined;
  }

  /** Each subject key of the binding once, as its index and name there (the subject's own name string when it is the key's). */
  private fileSubjects(entry: BindingEntry, file: (index: BindingsByKey<string>, name: string) => void): void {
    const subjects = Array.isArray(entry.object.subjects) ? entry.object.subjects : [];
    const seen = new Set<SubjectKey>();
    for (const subject of subjects) {
      for (const { key } of fileSubject(subject, entry.namespace)) {
        if (seen.has(key)) continue;
        seen.add(key);
        const index = this.subjectIndex(key);
        if (!index) continue;
        const name = typeof subject?.name === 'string' && key.length === subject.name.length + 2 && key.endsWith(subject.name) ? subject.name : key.slice(2);
        file(index, name);
      }
    }
  }
}
