import { LabelSelector, LabelSelectorRequirement } from '../../apimachinery/validation/labels';
import { ClusterRole, ClusterRoleBinding, PolicyRule, Subject } from '../../apis/rbac/types';
import { AUTOUPDATE_ANNOTATION } from './default-policy';
import { covers } from '../kinds/rule-coverage';

/**
 * What reconciling one default object against what is stored should do, as kube's
 * pkg/registry/rbac/reconciliation decides it in the mode the API server uses at start
 * (union: add what is missing, never remove what users added). Pure: the caller writes.
 */

export type ReconcileOperation = 'None' | 'Create' | 'Update' | 'Recreate';

export interface ClusterRoleReconciliation {
  operation: ReconcileOperation;
  /** The stored object says autoupdate "false": the caller must not write. */
  protected: boolean;
  /** The object to write (for Create the expected one, else the existing one amended). */
  role: ClusterRole;
  missingRules: PolicyRule[];
  missingSelectors: LabelSelector[];
}

export interface ClusterRoleBindingReconciliation {
  operation: ReconcileOperation;
  protected: boolean;
  binding: ClusterRoleBinding;
  missingSubjects: Subject[];
}

function isProtected(annotations: Record<string, string> | undefined): boolean {
  return annotations?.[AUTOUPDATE_ANNOTATION] === 'false';
}

/** Keys missing from `existing` are added from `expected`; values already there win. */
function mergeMissing(
  expected: Record<string, string> | undefined,
  existing: Record<string, string> | undefined,
): { merged: Record<string, string> | undefined; changed: boolean } {
  const missing = Object.entries(expected ?? {}).filter(([key]) => !(existing && key in existing));
  if (!missing.length) return { merged: existing, changed: false };
  return { merged: { ...Object.fromEntries(missing), ...existing }, changed: true };
}

function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

function sameRequirement(a: LabelSelectorRequirement, b: LabelSelectorRequirement): boolean {
  return a?.key === b?.key && a?.operator === b?.operator && sameStrings(a?.values, b?.values);
}

/** Selector equality as kube's equality.Semantic.DeepEqual: absent and empty are equal. */
export function sameLabelSelector(a: LabelSelector | null | undefined, b: LabelSelector | null | undefined): boolean {
  const la = Object.entries(a?.matchLabels ?? {});
  const lb = b?.matchLabels ?? {};
  if (la.length !== Object.keys(lb).length || la.some(([k, v]) => lb[k] !== v)) return false;
  const ea = a?.matchExpressions ?? [];
  const eb = b?.matchExpressions ?? [];
  return ea.length === eb.length && ea.every((req, i) => sameRequirement(req, eb[i]));
}

/** The expected selectors no existing selector equals. */
function missingSelectors(existing: ClusterRole, expected: ClusterRole): LabelSelector[] {
  if (!expected.aggregationRule) return [];
  const have = existing.aggregationRule?.clusterRoleSelectors ?? [];
  return (expected.aggregationRule.clusterRoleSelectors ?? []).filter((want) => !have.some((h) => sameLabelSelector(h, want)));
}

/**
 * A stored default ClusterRole against the expected one: add missing labels and
 * annotations, rules not covered by the stored rules (as kube adds them: broken down into
 * atomic rules) and missing aggregation selectors; drop an aggregationRule the default does
 * not have. Rules of an aggregating role are left to the aggregation controller (the
 * expected aggregating roles have none, so nothing is missing).
 */
export function reconcileClusterRole(existing: ClusterRole | null, expected: ClusterRole): ClusterRoleReconciliation {
  if (!existing) {
    return {
      operation: 'Create',
      protected: false,
      role: structuredClone(expected),
      missingRules: expected.rules ?? [],
      missingSelectors: expected.aggregationRule?.clusterRoleSelectors ?? [],
    };
  }
  const role = structuredClone(existing);
  let changed = false;

  const annotations = mergeMissing(expected.metadata.annotations, existing.metadata.annotations);
  const labels = mergeMissing(expected.metadata.labels, existing.metadata.labels);
  if (annotations.changed) role.metadata.annotations = annotations.merged;
  if (labels.changed) role.metadata.labels = labels.merged;
  changed = annotations.changed || labels.changed;

  const missingRules = covers(existing.rules ?? [], expected.rules ?? []).uncovered;
  if (missingRules.length) {
    role.rules = [...(existing.rules ?? []), ...missingRules];
    changed = true;
  }

  const selectors = missingSelectors(existing, expected);
  if (!expected.aggregationRule && existing.aggregationRule) {
    delete role.aggregationRule;
    changed = true;
  } else if (selectors.length) {
    role.aggregationRule = { clusterRoleSelectors: [...(existing.aggregationRule?.clusterRoleSelectors ?? []), ...selectors] };
    changed = true;
  }

  return {
    operation: changed ? 'Update' : 'None',
    protected: isProtected(existing.metadata.annotations),
    role,
    missingRules,
    missingSelectors: selectors,
  };
}

function sameSubject(a: Subject, b: Subject): boolean {
  return a.kind === b.kind && (a.apiGroup ?? '') === (b.apiGroup ?? '') && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');
}

/**
 * A stored default ClusterRoleBinding against the expected one: a different roleRef
 * (immutable) means delete and create again; otherwise add missing labels, annotations and
 * subjects, keeping every subject users added.
 */
export function reconcileClusterRoleBinding(
  existing: ClusterRoleBinding | null,
  expected: ClusterRoleBinding,
): ClusterRoleBindingReconciliation {
  if (!existing) {
    return { operation: 'Create', protected: false, binding: structuredClone(expected), missingSubjects: expected.subjects ?? [] };
  }
  const isProtectedBinding = isProtected(existing.metadata.annotations);
  const ref = existing.roleRef;
  const want = expected.roleRef;
  if (ref?.apiGroup !== want.apiGroup || ref?.kind !== want.kind || ref?.name !== want.name) {
    return { operation: 'Recreate', protected: isProtectedBinding, binding: structuredClone(expected), missingSubjects: expected.subjects ?? [] };
  }
  const binding = structuredClone(existing);
  const annotations = mergeMissing(expected.metadata.annotations, existing.metadata.annotations);
  const labels = mergeMissing(expected.metadata.labels, existing.metadata.labels);
  if (annotations.changed) binding.metadata.annotations = annotations.merged;
  if (labels.changed) binding.metadata.labels = labels.merged;

  const have = existing.subjects ?? [];
  const missingSubjects: Subject[] = [];
  for (const subject of expected.subjects ?? []) {
    if (!have.some((s) => sameSubject(s, subject)) && !missingSubjects.some((s) => sameSubject(s, subject))) missingSubjects.push(subject);
  }
  if (missingSubjects.length) binding.subjects = [...have, ...missingSubjects];

  const changed = annotations.changed || labels.changed || missingSubjects.length > 0;
  return { operation: changed ? 'Update' : 'None', protected: isProtectedBinding, binding, missingSubjects };
}
