import { UserInfo } from '../apimachinery/user-info';
import { PolicyRule, Subject } from '../apis/rbac/types';
import { RuleSource, RuleVisiting } from '../authorization/rbac/policy-index';
import { ruleAllows } from '../authorization/rbac/rule-matching';
import { SubjectKey } from '../authorization/rbac/subjects';
import { ruleKey } from '../rbac/aggregation/aggregate-rules';
import { Atom, atomKey, attributesOf, Dimension, NON_RESOURCE_DIMENSIONS, OTHER, renderClass, RESOURCE_DIMENSIONS, Universe } from './policy-change-classes';
import { PermissionChange, PermissionCause } from './policy-change-types';

/**
 * The exact difference of what one subject may do between two states of the policy (each
 * a RuleVisiting: the live index, a candidate overlay), in a set of namespaces. The rules
 * applying to the subject in each state are read by the authorizer's own visit; the
 * attribute space is cut into classes (permission-classes); each class a rule of one state
 * allows that no rule of the other allows is a gain or a loss. Rules present in both states
 * cannot change anything and are not expanded, so an edit costs what it changes.
 */

/** Counts the work of one answer, so a change too large to answer is refused rather than served slowly. */
export class DiffBudget {
  private checks = 0;

  constructor(readonly maxRuleChecks: number) {}

  spend(n: number): void {
    this.checks += n;
    if (this.checks > this.maxRuleChecks) throw new DiffTooLarge(this.maxRuleChecks);
  }
}

export class DiffTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`answering it needs more than ${limit} rule evaluations`);
  }
}

interface SourcedRule {
  rule: PolicyRule;
  source: RuleSource;
}

/** The user whose decisions stand for a subject key: a user (or service account) alone, or a member of the group alone. */
export function userOfKey(key: SubjectKey): UserInfo {
  return key.startsWith('g:') ? { username: '', groups: [key.slice(2)] } : { username: key.slice(2), groups: [] };
}

const SA_PREFIX = 'system:serviceaccount:';

/** The subject a key stands for, as bindings name it. */
export function subjectOfKey(key: SubjectKey): Subject {
  const name = key.slice(2);
  if (key.startsWith('g:')) return { kind: 'Group', apiGroup: 'rbac.authorization.platform.io', name };
  if (name.startsWith(SA_PREFIX)) {
    const [namespace, ...rest] = name.slice(SA_PREFIX.length).split(':');
    if (namespace && rest.length === 1 && rest[0]) return { kind: 'ServiceAccount', name: rest[0], namespace };
  }
  return { kind: 'User', apiGroup: 'rbac.authorization.platform.io', name };
}

function sourcedRules(policy: RuleVisiting, user: UserInfo, namespace: string): SourcedRule[] {
  const found: SourcedRule[] = [];
  policy.visitRulesFor(user, namespace, (source, rule) => {
    if (source && rule) found.push({ rule, source });
    return true;
  });
  return found;
}

function causeOf(source: RuleSource): PermissionCause {
  const b = source.binding;
  return {
    binding: b.kind === 'RoleBinding' ? { kind: b.kind, namespace: b.namespace, name: b.name } : { kind: b.kind, name: b.name },
    role: { kind: String(b.roleRef?.kind ?? ''), name: String(b.roleRef?.name ?? '') },
  };
}

const causeKey = (c: PermissionCause) => `${c.binding.kind}/${c.binding.namespace ?? ''}/${c.binding.name}>${c.role.kind}/${c.role.name}`;

interface Hit {
  atom: Atom;
  causes: Map<string, PermissionCause>;
}

/** The classes the rules of `gaining` allow and no rule of `other` does, with the bindings that allow each. */
function newlyAllowed(gaining: readonly SourcedRule[], other: readonly SourcedRule[], universe: Universe, budget: DiffBudget, inNamespace: boolean): Map<string, Hit> {
  const hits = new Map<string, Hit>();
  const known = new Set(other.map((r) => ruleKey(r.rule)));
  const seen = new Set<string>();
  for (const { rule } of gaining) {
    if (known.has(ruleKey(rule))) continue;
    universe.expand(rule, (atom) => {
      // A non-resource request has no namespace: only cluster-wide grants decide it.
      if (inNamespace && !atom.resourceRequest) return;
      const key = atomKey(atom);
      if (seen.has(key)) return;
      seen.add(key);
      const attrs = attributesOf(atom);
      budget.spend(other.length + gaining.length);
      if (other.some((r) => ruleAllows(r.rule, attrs))) return;
      const causes = new Map<string, PermissionCause>();
      for (const r of gaining) {
        if (!ruleAllows(r.rule, attrs)) continue;
        const cause = causeOf(r.source);
        causes.set(causeKey(cause), cause);
      }
      hits.set(key, { atom, causes });
    });
  }
  return hits;
}

/** An entry being compacted: classes per dimension, the named values each `*` leaves out, where, and why. */
interface Entry {
  atom: Atom;
  except: Partial<Record<Dimension, string[]>>;
  exceptNamespaces: string[];
  causes: Map<string, PermissionCause>;
}

/**
 * Folds the classes a wider class of the same dimension stands over into it, one dimension
 * at a time: `*` then reads "every value but those in except". Exact: a folded entry's
 * values are exactly the union of the entries it replaces.
 */
function compact(entries: Entry[], universe: Universe): Entry[] {
  let current = entries;
  const dimensionsOf = (e: Entry) => (e.atom.resourceRequest ? RESOURCE_DIMENSIONS : NON_RESOURCE_DIMENSIONS);
  for (const dimension of ['verb', 'resourceName', 'resource', 'apiGroup', 'url'] as Dimension[]) {
    const groups = new Map<string, Entry[]>();
    for (const entry of current) {
      if (!dimensionsOf(entry).includes(dimension)) {
        groups.set(`solo${groups.size}`, [entry]);
        continue;
      }
      const rest = dimensionsOf(entry)
        .filter((d) => d !== dimension)
        .map((d) => `${entry.atom[d]}\u0002${(entry.except[d] ?? []).join('\u0003')}`);
      const key = [entry.atom.resourceRequest, ...rest, entry.exceptNamespaces.join('\u0003')].join('\u0004');
      const group = groups.get(key);
      if (group) group.push(entry);
      else groups.set(key, [entry]);
    }
    const next: Entry[] = [];
    for (const group of groups.values()) {
      // Widest first, so a `*/*` takes in the `*/s` before those take in their `x/s`.
      const byValue = new Map(group.map((e) => [e.atom[dimension], e]));
      const wide = group
        .map((e) => ({ e, covers: universe.covered(dimension, e.atom[dimension]) }))
        .filter((w) => w.covers.length > 0)
        .sort((a, b) => b.covers.length - a.covers.length);
      const absorbed = new Set<Entry>();
      for (const { e, covers } of wide) {
        if (absorbed.has(e)) continue;
        const except = covers.filter((value) => !byValue.has(value));
        // An excepted wide class leaves out everything under it: members under it stay entries of their own.
        const shadowed = new Set(except.flatMap((value) => universe.covered(dimension, value)));
        for (const value of covers) {
          const member = byValue.get(value);
          if (!member || absorbed.has(member) || shadowed.has(value)) continue;
          absorbed.add(member);
          for (const [k, c] of member.causes) e.causes.set(k, c);
        }
        if (except.length) e.except[dimension] = except.sort();
      }
      for (const e of group) if (!absorbed.has(e)) next.push(e);
    }
    current = next;
  }
  return current;
}

export interface SubjectDiff {
  gained: PermissionChange[];
  lost: PermissionChange[];
}

/**
 * What `key` gains and loses from `before` to `after`: cluster-wide (namespace '', which
 * stands for every namespace where it holds no RoleBinding of its own) and in each of
 * `namespaces`. A cluster-wide change that a namespace's own grants already make (or
 * keep) lists that namespace in exceptNamespaces.
 */
export function diffSubject(key: SubjectKey, namespaces: readonly string[], before: RuleVisiting, after: RuleVisiting, budget: DiffBudget): SubjectDiff {
  const user = userOfKey(key);
  const scopes = ['', ...namespaces.filter((n) => n !== '')];
  const states = scopes.map((ns) => ({ ns, before: sourcedRules(before, user, ns), after: sourcedRules(after, user, ns) }));
  const universe = new Universe();
  for (const s of states) for (const r of [...s.before, ...s.after]) universe.add(r.rule);
  const subject = subjectOfKey(key);
  const side = (pick: (s: (typeof states)[number]) => [SourcedRule[], SourcedRule[]]): PermissionChange[] => {
    const byScope = states.map((s) => ({ ns: s.ns, hits: newlyAllowed(...pick(s), universe, budget, s.ns !== '') }));
    const cluster = byScope[0].hits;
    const entries: Array<{ ns: string; entry: Entry }> = [];
    for (const [k, hit] of cluster) {
      const exceptNamespaces = hit.atom.resourceRequest ? byScope.slice(1).filter((s) => !s.hits.has(k)).map((s) => s.ns) : [];
      entries.push({ ns: '', entry: { atom: hit.atom, except: {}, exceptNamespaces, causes: hit.causes } });
    }
    for (const s of byScope.slice(1)) {
      for (const [k, hit] of s.hits) if (!cluster.has(k)) entries.push({ ns: s.ns, entry: { atom: hit.atom, except: {}, exceptNamespaces: [], causes: hit.causes } });
    }
    const out: PermissionChange[] = [];
    for (const ns of scopes) {
      const inScope = entries.filter((e) => e.ns === ns).map((e) => e.entry);
      for (const entry of compact(inScope, universe)) out.push(render(subject, ns, entry));
    }
    return out;
  };
  return { gained: side((s) => [s.after, s.before]), lost: side((s) => [s.before, s.after]) };
}

function render(subject: Subject, namespace: string, entry: Entry): PermissionChange {
  const a = entry.atom;
  const except: NonNullable<PermissionChange['except']> = {};
  const names: Record<Dimension, keyof typeof except> = { verb: 'verbs', apiGroup: 'apiGroups', resource: 'resources', resourceName: 'resourceNames', url: 'nonResourceURLs' };
  for (const [d, values] of Object.entries(entry.except) as Array<[Dimension, string[]]>) {
    if (values.length) except[names[d]] = values.map((v) => renderClass(d, v));
  }
  const causes = [...entry.causes.values()].sort((x, y) => causeKey(x).localeCompare(causeKey(y)));
  return {
    subject,
    ...(namespace ? { namespace } : {}),
    verb: renderClass('verb', a.verb),
    ...(a.resourceRequest
      ? {
          apiGroup: renderClass('apiGroup', a.apiGroup),
          resource: renderClass('resource', a.resource),
          ...(a.resourceName !== OTHER ? { resourceName: a.resourceName } : {}),
        }
      : { nonResourceURL: renderClass('url', a.url) }),
    ...(entry.exceptNamespaces.length ? { exceptNamespaces: [...entry.exceptNamespaces].sort() } : {}),
    ...(Object.keys(except).length ? { except } : {}),
    via: causes,
  };
}
