import { KubeObject } from '../apimachinery/types';
import { bindingWindow, VALID_FROM_ANNOTATION, VALID_UNTIL_ANNOTATION } from '../apis/rbac/binding-window';
import { PolicyIndex, RbacKind } from '../authorization/rbac/policy-index';
import { AccessIndex } from './access-index';
import { permissionDiff, PolicyChangeLimits } from './policy-change-analyzer';
import { CandidatePolicy, PolicyObjectChange } from './policy-change-candidate';
import { AccessChange, AccessChangeCause, HistoryPermission } from './access-change-kind';
import { ACCESS_GROUP, ACCESS_VERSION } from './access-types';
import { PermissionCause, PermissionChange } from './policy-change-types';
import { PolicyRule, RoleBinding, Subject } from '../apis/rbac/types';
import { fileSubject } from '../authorization/rbac/subjects';
import { jsonEqual } from '../apimachinery/system-metadata';
import { subjectOfKey } from './policy-change-diff';
import { mergeResources, packAccessChange, StoredAccessChange, StoredPermission } from './access-change-stored-form';

/**
 * The pure half of access history: how one diff becomes AccessChange objects (one per
 * subject and namespace, named after the change that caused them, so a second leader
 * recording the same change makes the same names and is refused), and which time windows
 * open or close in a span of time.
 */

const subjectId = (e: PermissionChange): string => `${e.subject.kind}\u0000${e.subject.namespace ?? ''}\u0000${e.subject.name}`;

/**
 * The entries of one side as an AccessChange holds them: without what the object carries at
 * its top level (subject, namespace), and the entries that differ only in their verb as one
 * with `verbs` (a role's `get`, `list` and `watch` of a resource), in first-seen order: the
 * stored history is then a third of the diff's size.
 */
function historyEntries(entries: PermissionChange[]): HistoryPermission[] {
  const byRest = new Map<string, HistoryPermission>();
  for (const e of entries) {
    const { subject: _subject, namespace: _namespace, verb, ...rest } = e;
    const key = restKey(e);
    const found = byRest.get(key);
    if (found) found.verbs.push(verb);
    else byRest.set(key, { verbs: [verb], ...rest });
  }
  return [...byRest.values()];
}

/**
 * What an entry is besides its subject, namespace and verb, as a key: its values in a flat
 * array (the JSON of the whole permission, field names and all, took a third of the
 * recorder's time per create).
 */
function restKey(e: PermissionChange): string {
  const via = e.via.map((c) => [c.binding.kind, c.binding.namespace, c.binding.name, c.role.kind, c.role.name]);
  return JSON.stringify([e.apiGroup, e.resource, e.resourceName, e.nonResourceURL, e.exceptNamespaces, e.except, e.restrictedByGuardrails, via]);
}

/**
 * The AccessChange objects of one cause: one per subject and namespace that gained or lost
 * anything, in a fixed order (subject, then cluster-wide before namespaces), named
 * `<prefix>-<index>`.
 */
export function accessChangesOf(diff: { gained: PermissionChange[]; lost: PermissionChange[] }, cause: AccessChangeCause, time: string, prefix: string): AccessChange[] {
  const groups = new Map<string, { sample: PermissionChange; gained: PermissionChange[]; lost: PermissionChange[] }>();
  const add = (e: PermissionChange, side: 'gained' | 'lost') => {
    const id = `${subjectId(e)}\u0001${e.namespace ?? ''}`;
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { sample: e, gained: [], lost: [] }));
    group[side].push(e);
  };
  for (const e of diff.gained) add(e, 'gained');
  for (const e of diff.lost) add(e, 'lost');
  const ids = [...groups.keys()].sort();
  return ids.map((id, i) => {
    const { sample, gained: gainedEntries, lost: lostEntries } = groups.get(id)!;
    const gained = historyEntries(gainedEntries);
    const lost = historyEntries(lostEntries);
    return {
      apiVersion: `${ACCESS_GROUP}/${ACCESS_VERSION}`,
      kind: 'AccessChange',
      metadata: { name: `${prefix}-${i}` },
      subject: sample.subject,
      ...(sample.namespace ? { namespace: sample.namespace } : {}),
      ...(gained.length ? { gained } : {}),
      ...(lost.length ? { lost } : {}),
      cause,
      time,
    };
  });
}

/** How much of the queued entries one statement stores (about 1 MiB of JSON). */
const ENTRY_CHUNK_BYTES = 1 << 20;

/** About an entry's size as JSON (its stored form), without encoding it: a stored permission is about 100 bytes. */
const entryBytes = (entry: { gained?: unknown[]; lost?: unknown[] }): number => 500 + 100 * ((entry.gained?.length ?? 0) + (entry.lost?.length ?? 0));

/** Takes the first queued entries, up to ENTRY_CHUNK_BYTES (one always), in order: what one statement stores. */
export function takeEntryChunk<T extends { gained?: unknown[]; lost?: unknown[] }>(queued: T[]): T[] {
  let bytes = 0;
  let n = 0;
  while (n < queued.length && (n === 0 || bytes < ENTRY_CHUNK_BYTES)) bytes += entryBytes(queued[n++]);
  return queued.splice(0, n);
}

/** The name prefix of the entries a committed write caused: its revision. */
export const revisionPrefix = (revision: string): string => `r${revision}`;

/** The name prefix of the entries a window caused: when, and which binding (its uid, else its name). */
export function windowPrefix(boundary: WindowBoundary): string {
  const meta = boundary.binding.metadata ?? {};
  const id = (meta.uid ?? `${meta.namespace ?? ''}.${meta.name ?? ''}`).toLowerCase().replace(/[^a-z0-9.-]/g, '-');
  return `w${boundary.at}-${boundary.opens ? 'from' : 'until'}-${id}`;
}

/** A binding's window opening (valid-from) or closing (valid-until) at `at`. */
export interface WindowBoundary {
  at: number;
  opens: boolean;
  kind: Extract<RbacKind, 'RoleBinding' | 'ClusterRoleBinding'>;
  binding: KubeObject;
}

export function hasWindow(binding: KubeObject): boolean {
  const annotations = binding.metadata?.annotations;
  return !!annotations && (Object.hasOwn(annotations, VALID_FROM_ANNOTATION) || Object.hasOwn(annotations, VALID_UNTIL_ANNOTATION));
}

/** The boundaries of these bindings' windows in (after, upTo], oldest first (ties: openings first, then by name). */
export function boundariesBetween(bindings: Iterable<{ kind: WindowBoundary['kind']; binding: KubeObject }>, after: number, upTo: number): WindowBoundary[] {
  const found: WindowBoundary[] = [];
  for (const { kind, binding } of bindings) {
    const { validFrom, validUntil } = bindingWindow(binding);
    // A window that closes no later than it opens never grants: nothing opens or closes.
    if (validFrom !== undefined && validUntil !== undefined && validUntil <= validFrom) continue;
    if (validFrom !== undefined && Number.isFinite(validFrom) && validFrom > after && validFrom <= upTo) found.push({ at: validFrom, opens: true, kind, binding });
    if (validUntil !== undefined && Number.isFinite(validUntil) && validUntil > after && validUntil <= upTo) found.push({ at: validUntil, opens: false, kind, binding });
  }
  const order = (b: WindowBoundary) => `${b.kind}/${b.binding.metadata?.namespace ?? ''}/${b.binding.metadata?.name ?? ''}`;
  return found.sort((a, b) => a.at - b.at || Number(b.opens) - Number(a.opens) || order(a).localeCompare(order(b)));
}

/** The next boundary after `after` (undefined: none). */
export function nextBoundary(bindings: Iterable<{ binding: KubeObject }>, after: number): number | undefined {
  let next: number | undefined;
  for (const { binding } of bindings) {
    const { validFrom, validUntil } = bindingWindow(binding);
    for (const at of [validFrom, validUntil]) {
      if (at !== undefined && Number.isFinite(at) && at > after) next = Math.min(next ?? at, at);
    }
  }
  return next;
}

/** The binding as it grants while its window is open: without the window's annotations. */
export function withoutWindow(binding: KubeObject): KubeObject {
  const annotations = { ...(binding.metadata?.annotations ?? {}) };
  delete annotations[VALID_FROM_ANNOTATION];
  delete annotations[VALID_UNTIL_ANNOTATION];
  return { ...binding, metadata: { ...binding.metadata, annotations } };
}

/** History is written once per change, whatever it touches: no budget stops a diff. */
const UNLIMITED: PolicyChangeLimits = { maxSubjectScopes: Number.MAX_SAFE_INTEGER, maxRuleChecks: Number.MAX_SAFE_INTEGER };

export interface PermissionDiff {
  gained: PermissionChange[];
  lost: PermissionChange[];
}

/**
 * What one committed change of an RBAC object grants and takes away: the policy as `index`
 * holds it (the state just before the change) against the same with the change applied as
 * stored, without re-aggregating (aggregation is a write of its own, recorded as such).
 */
export function diffOfCommittedChange(index: PolicyIndex, access: AccessIndex, change: PolicyObjectChange): PermissionDiff {
  const candidate = new CandidatePolicy(index, access, [change], false);
  return permissionDiff(index, access, candidate, undefined, UNLIMITED);
}

/**
 * What a window opening or closing grants and takes away, with `index` at the boundary's
 * moment (its clock there): compared with the other side of the boundary, the binding absent
 * (before it opens) or granting without its window (before it closes).
 */
export function diffOfWindow(index: PolicyIndex, access: AccessIndex, boundary: WindowBoundary): PermissionDiff {
  const meta = boundary.binding.metadata ?? {};
  const namespace = boundary.kind === 'RoleBinding' ? (meta.namespace ?? '') : '';
  const otherSide: PolicyObjectChange = { kind: boundary.kind, namespace, name: meta.name ?? '', object: boundary.opens ? null : withoutWindow(boundary.binding) };
  const reverse = permissionDiff(index, access, new CandidatePolicy(index, access, [otherSide], false), undefined, UNLIMITED);
  return { gained: reverse.lost, lost: reverse.gained };
}

interface LoneBinding {
  created: boolean;
  rules: readonly PolicyRule[];
  subject: Subject;
  namespace: string;
  cause: PermissionCause;
}

/**
 * The diffs of bindings created or deleted for a subject no other binding names (the common
 * change: a binding per user or team). Such a subject has no rules before a create (after a
 * delete) and the role's rules in the binding's scope after it (before it), so it gains (or
 * loses) exactly what the role grants there: the same entries for every such binding of one
 * role state, the subject, namespace and binding apart. The engine computes them for the
 * first one of each role state (its rules' array, replaced with every change of the role)
 * and binding kind; later ones are relabelled copies. Anything else goes to the engine.
 */
export class LoneBindingDiffs {
  private readonly templates = new WeakMap<readonly PolicyRule[], Map<string, PermissionChange[]>>();
  /** Each template's entries as a stored AccessChange lists them (verbs together, `via` the first list). */
  private readonly stored = new WeakMap<PermissionChange[], StoredPermission[]>();

  /** What the committed change grants and takes away (as diffOfCommittedChange). */
  diff(index: PolicyIndex, access: AccessIndex, change: PolicyObjectChange): PermissionDiff {
    const lone = this.loneBinding(index, access, change);
    if (!lone) return diffOfCommittedChange(index, access, change);
    const template = this.templateOf(lone, change.kind);
    if (template) {
      const entries = template.map((e) => ({ ...e, subject: lone.subject, ...(lone.namespace ? { namespace: lone.namespace } : {}), via: [lone.cause] }));
      return lone.created ? { gained: entries, lost: [] } : { gained: [], lost: entries };
    }
    return this.diffOf(index, access, change, lone);
  }

  /**
   * The AccessChange objects of a committed change, in their stored form: those of
   * `accessChangesOf` of its diff, packed. A lone binding's with a template are made from
   * the template's stored permissions directly (shared by every such entry, never changed),
   * without the diff's entry per verb: the recorder's work per binding create.
   */
  storedEntries(index: PolicyIndex, access: AccessIndex, change: PolicyObjectChange, cause: AccessChangeCause, time: string, prefix: string): StoredAccessChange[] {
    const lone = this.loneBinding(index, access, change);
    const template = lone && this.templateOf(lone, change.kind);
    if (!lone || !template) return accessChangesOf(lone ? this.diffOf(index, access, change, lone) : diffOfCommittedChange(index, access, change), cause, time, prefix).map(packAccessChange);
    if (template.length === 0) return [];
    let permissions = this.stored.get(template);
    if (!permissions) {
      permissions = mergeResources(historyEntries(template.map((e) => ({ ...e, via: [] }))).map((p) => ({ ...p, via: 0 })));
      this.stored.set(template, permissions);
    }
    // As accessChangesOf and packAccessChange make it: one subject in one namespace, its one via list.
    return [
      {
        apiVersion: `${ACCESS_GROUP}/${ACCESS_VERSION}`,
        kind: 'AccessChange',
        metadata: { name: `${prefix}-0` },
        subject: lone.subject,
        ...(lone.namespace ? { namespace: lone.namespace } : {}),
        ...(lone.created ? { gained: permissions } : { lost: permissions }),
        cause,
        time,
        vias: [[lone.cause]],
      },
    ];
  }

  private templateOf(lone: LoneBinding, kind: string): PermissionChange[] | undefined {
    return this.templates.get(lone.rules)?.get(kind);
  }

  /** The engine's diff of a lone binding's change, kept as a template when it fits. */
  private diffOf(index: PolicyIndex, access: AccessIndex, change: PolicyObjectChange, lone: LoneBinding): PermissionDiff {
    const diff = diffOfCommittedChange(index, access, change);
    this.keep(lone, change.kind, diff);
    return diff;
  }

  /** Keeps the engine's diff of a lone binding as its role state's template, when it has the shape reasoned above. */
  private keep(lone: LoneBinding, kind: string, diff: PermissionDiff): void {
    const entries = lone.created ? diff.gained : diff.lost;
    const other = lone.created ? diff.lost : diff.gained;
    const labelled = (e: PermissionChange) =>
      e.namespace === (lone.namespace || undefined) && !e.exceptNamespaces && e.via.length === 1 && jsonEqual(e.via[0], lone.cause) && jsonEqual(e.subject, lone.subject);
    // Only a diff of the shape reasoned above is kept (anything else is answered, not reused).
    if (other.length !== 0 || !entries.every(labelled)) return;
    const kept = entries.map(({ subject: _subject, namespace: _namespace, via: _via, ...rest }) => rest as PermissionChange);
    const byKind = this.templates.get(lone.rules);
    if (byKind) byKind.set(kind, kept);
    else this.templates.set(lone.rules, new Map([[kind, kept]]));
  }

  /** The binding a change creates or deletes, when it fits: one well-formed subject no other binding names, no window, its role found. */
  private loneBinding(index: PolicyIndex, access: AccessIndex, change: PolicyObjectChange): LoneBinding | undefined {
    if (change.kind !== 'RoleBinding' && change.kind !== 'ClusterRoleBinding') return undefined;
    const namespace = change.kind === 'RoleBinding' ? change.namespace : '';
    const existing = access.binding(change.kind, namespace, change.name);
    // A create is of a binding the index does not hold; a delete of one it holds.
    const created = change.object !== null;
    if (created === !!existing) return undefined;
    const binding = (created ? change.object : existing!.object) as RoleBinding;
    if (hasWindow(binding) || !Array.isArray(binding.subjects) || binding.subjects.length !== 1) return undefined;
    const filings = fileSubject(binding.subjects[0], namespace);
    if (filings.length !== 1 || filings[0].error !== undefined) return undefined;
    const key = filings[0].key;
    const naming = access.bindingsNaming([key]);
    if (naming.length !== (created ? 0 : 1) || (!created && naming[0] !== existing)) return undefined;
    const resolved = index.rulesOfRoleRef(binding.roleRef, namespace);
    if (resolved.error !== undefined) return undefined;
    const cause: PermissionCause = {
      binding: change.kind === 'RoleBinding' ? { kind: change.kind, namespace, name: change.name } : { kind: change.kind, name: change.name },
      role: { kind: String(binding.roleRef?.kind ?? ''), name: String(binding.roleRef?.name ?? '') },
    };
    return { created, rules: resolved.rules, subject: subjectOfKey(key), namespace, cause };
  }
}
