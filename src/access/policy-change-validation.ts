import { FieldError, fieldErrors, FieldPath } from '../apimachinery/field-errors';
import { isPlainObject, KubeObject } from '../apimachinery/types';
import { ClusterRole, ClusterRoleBinding, RBAC_GROUP, RBAC_VERSION, Role, RoleBinding, Subject } from '../apis/rbac/types';
import { RbacKind } from '../authorization/rbac/policy-index';
import { setBindingDefaults } from '../rbac/kinds/strategies';
import { validateClusterRole, validateClusterRoleBinding, validateRole, validateRoleBinding, validateRoleBindingSubject } from '../rbac/kinds/rbac-validation';
import { AccessQuestion, PolicyChangeReview, PolicyChangeSpec } from './policy-change-types';

/**
 * What a PolicyChangeReview accepts: RBAC manifests valid as the RBAC kinds' own validation
 * decides (each error's path prefixed with the change's), each object changed once, and
 * assertions that name a subject and one action. The spec is defaulted first as the write
 * path defaults RBAC objects, and manifests written for kube (`rbac.authorization.k8s.io`,
 * as `helm template` prints them) are read as ours.
 */

export const MAX_CHANGES = 1000;
export const MAX_ASSERTIONS = 1000;
const KUBE_RBAC_GROUP = 'rbac.authorization.k8s.io';
const RBAC_KINDS: readonly RbacKind[] = ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'];
const SUBJECT_DEFAULT_GROUP: Record<string, string> = { User: RBAC_GROUP, Group: RBAC_GROUP };

/** The RBAC kind of a change's object, or undefined when it is not one. */
export function rbacKindOf(object: KubeObject | undefined): RbacKind | undefined {
  if (!isPlainObject(object) || object.apiVersion !== `${RBAC_GROUP}/${RBAC_VERSION}`) return undefined;
  return RBAC_KINDS.find((k) => k === object.kind);
}

const ourGroup = (group: unknown) => (group === KUBE_RBAC_GROUP ? RBAC_GROUP : group);

function defaultSubject(subject: unknown): void {
  if (!isPlainObject(subject)) return;
  subject.apiGroup = ourGroup(subject.apiGroup);
  if (!subject.apiGroup && typeof subject.kind === 'string' && SUBJECT_DEFAULT_GROUP[subject.kind]) subject.apiGroup = SUBJECT_DEFAULT_GROUP[subject.kind];
}

/** Defaults, before validation: kube's RBAC group read as ours, binding defaults, a cluster-scoped object's namespace dropped. */
export function defaultPolicyChangeReview(review: KubeObject): void {
  const spec = (review as PolicyChangeReview).spec ?? {};
  for (const change of Array.isArray(spec.changes) ? spec.changes : []) {
    const object = change?.object;
    if (!isPlainObject(object)) continue;
    if (object.apiVersion === `${KUBE_RBAC_GROUP}/${RBAC_VERSION}`) object.apiVersion = `${RBAC_GROUP}/${RBAC_VERSION}`;
    delete object.status;
    const kind = rbacKindOf(object);
    if ((kind === 'ClusterRole' || kind === 'ClusterRoleBinding') && isPlainObject(object.metadata)) delete object.metadata.namespace;
    if (kind === 'RoleBinding' || kind === 'ClusterRoleBinding') {
      if (isPlainObject(object.roleRef)) object.roleRef.apiGroup = ourGroup(object.roleRef.apiGroup);
      if (Array.isArray(object.subjects)) object.subjects.forEach(defaultSubject);
      setBindingDefaults(object);
    }
  }
  for (const subject of spec.scope?.subjects ?? []) defaultSubject(subject);
  for (const assertion of Array.isArray(spec.assertions) ? spec.assertions : []) {
    defaultSubject(assertion?.can?.subject);
    defaultSubject(assertion?.cannot?.subject);
    for (const subject of assertion?.onlySubjects?.subjects ?? []) defaultSubject(subject);
  }
}

/** The RBAC kind's own validation of one object, with paths under `path`. */
function validateObject(kind: RbacKind, object: KubeObject, path: FieldPath): FieldError[] {
  const errs =
    kind === 'Role'
      ? validateRole(object as Role)
      : kind === 'ClusterRole'
        ? validateClusterRole(object as ClusterRole)
        : kind === 'RoleBinding'
          ? validateRoleBinding(object as RoleBinding)
          : validateClusterRoleBinding(object as ClusterRoleBinding);
  return errs.map((e) => ({ ...e, field: `${path.toString()}.${e.field}` }));
}

function validateQuestion(q: AccessQuestion, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!q.verb) errs.push(fieldErrors.required(path.child('verb')));
  if (q.nonResourceURL) {
    if (!q.nonResourceURL.startsWith('/')) errs.push(fieldErrors.invalid(path.child('nonResourceURL'), q.nonResourceURL, 'must begin with /'));
    for (const field of ['apiGroup', 'resource', 'subresource', 'name', 'namespace'] as const) {
      if (q[field]) errs.push(fieldErrors.forbidden(path.child(field), 'may not be set with nonResourceURL'));
    }
  } else if (!q.resource) {
    errs.push(fieldErrors.required(path.child('resource'), 'one of resource and nonResourceURL is required'));
  }
  return errs;
}

function validateSubject(subject: Subject | undefined, path: FieldPath): FieldError[] {
  if (!isPlainObject(subject)) return [fieldErrors.required(path)];
  return validateRoleBindingSubject(subject, false, path);
}

export function validatePolicyChangeReview(review: PolicyChangeReview): FieldError[] {
  const spec: PolicyChangeSpec = review.spec ?? {};
  const errs: FieldError[] = [];
  const root = FieldPath.root('spec');
  const changes = spec.changes ?? [];
  if (changes.length > MAX_CHANGES) errs.push({ type: 'FieldValueTooMany', field: 'spec.changes', badValue: changes.length, detail: `must have at most ${MAX_CHANGES} items` });
  const seen = new Map<string, number>();
  changes.forEach((change, i) => {
    const path = root.child('changes').index(i).child('object');
    const object = change?.object;
    if (!isPlainObject(object)) return errs.push(fieldErrors.required(path));
    const kind = rbacKindOf(object);
    if (object.apiVersion !== `${RBAC_GROUP}/${RBAC_VERSION}`) {
      return errs.push(fieldErrors.notSupported(path.child('apiVersion'), object.apiVersion ?? '', [`${RBAC_GROUP}/${RBAC_VERSION}`, `${KUBE_RBAC_GROUP}/${RBAC_VERSION}`]));
    }
    if (!kind) return errs.push(fieldErrors.notSupported(path.child('kind'), object.kind ?? '', [...RBAC_KINDS]));
    const namespaced = kind === 'Role' || kind === 'RoleBinding';
    const name = object.metadata?.name ?? '';
    const namespace = namespaced ? (object.metadata?.namespace ?? '') : '';
    if (!name && change.delete) errs.push(fieldErrors.required(path.child('metadata').child('name')));
    if (namespaced && !namespace) errs.push(fieldErrors.required(path.child('metadata').child('namespace')));
    if (!change.delete) errs.push(...validateObject(kind, object, path));
    const id = `${kind}/${namespace}/${name}`;
    if (name && seen.has(id)) errs.push(fieldErrors.duplicate(path.child('metadata').child('name'), name));
    seen.set(id, i);
  });
  (spec.scope?.subjects ?? []).forEach((s, i) => errs.push(...validateSubject(s, root.child('scope').child('subjects').index(i))));
  const assertions = spec.assertions ?? [];
  if (assertions.length > MAX_ASSERTIONS) {
    errs.push({ type: 'FieldValueTooMany', field: 'spec.assertions', badValue: assertions.length, detail: `must have at most ${MAX_ASSERTIONS} items` });
  }
  assertions.forEach((a, i) => {
    const path = root.child('assertions').index(i);
    const set = (['can', 'cannot', 'onlySubjects'] as const).filter((k) => isPlainObject(a?.[k]));
    if (set.length !== 1) return errs.push(fieldErrors.invalid(path, set.join(','), 'exactly one of can, cannot and onlySubjects must be set'));
    const key = set[0];
    const q = a[key]!;
    errs.push(...validateQuestion(q, path.child(key)));
    if (key === 'onlySubjects') {
      (a.onlySubjects!.subjects ?? []).forEach((s, j) => errs.push(...validateSubject(s, path.child(key).child('subjects').index(j))));
    } else {
      errs.push(...validateSubject(a[key]!.subject, path.child(key).child('subject')));
    }
  });
  return errs;
}
