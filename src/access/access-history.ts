import { KubeObject } from '../apimachinery/types';
import { bindingWindow, VALID_FROM_ANNOTATION, VALID_UNTIL_ANNOTATION } from '../apis/rbac/binding-window';
import { PolicyIndex, RbacKind } from '../authorization/rbac/policy-index';
import { AccessIndex } from './access-index';
import { permissionDiff, PolicyChangeLimits } from './policy-change-analyzer';
import { CandidatePolicy, PolicyObjectChange } from './policy-change-candidate';
import { AccessChange, AccessChangeCause, HistoryPermission } from './access-change-kind';
import { ACCESS_GROUP, ACCESS_VERSION } from './access-types';
import { PermissionChange } from './policy-change-types';

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
    const key = JSON.stringify(rest);
    const found = byRest.get(key);
    if (found) found.verbs.push(verb);
    else byRest.set(key, { verbs: [verb], ...rest });
  }
  return [...byRest.values()];
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
