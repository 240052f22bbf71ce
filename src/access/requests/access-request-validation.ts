import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { isPlainObject } from '../../apimachinery/types';
import { isDNS1123Label, validatePathSegmentName } from '../../apimachinery/validation/names';
import { LabelSelector, validateLabelSelector } from '../../apimachinery/validation/labels';
import { list, str } from '../../apimachinery/validation/shape';
import { FIELD_IMMUTABLE_ERROR_MSG } from '../../apimachinery/validation/object-meta';
import { jsonEqual } from '../../apimachinery/system-metadata';
import { DurationSyntaxError, parseGoDuration } from '../../config/go-duration';
import { GROUP_KIND, RBAC_GROUP, Subject, USER_KIND } from '../../apis/rbac/types';
import { validateRoleBindingSubject } from '../../rbac/kinds/rbac-validation';
import { AccessRequest, AccessRequestPolicy, PolicyRoleSelector } from './access-request-types';
import { autoApproveCompileError } from './auto-approve';

const SPEC = FieldPath.root('spec');
/** Longer justifications belong in a ticket the justification links to. */
export const MAX_JUSTIFICATION_LENGTH = 1024;
/** Nobody should need a role for more than a year in one request. */
const MAX_DURATION_MS = 366 * 24 * 3600_000;
const ROLE_KINDS = ['ClusterRole', 'Role'];

/** A Go duration, more than 0 and at most a year; undefined with `errs` filled when not. */
export function validDuration(value: unknown, path: FieldPath, errs: FieldError[]): number | undefined {
  if (typeof value !== 'string' || !value) {
    errs.push(fieldErrors.required(path));
    return undefined;
  }
  let ms: number;
  try {
    ms = parseGoDuration(value);
  } catch (err) {
    if (!(err instanceof DurationSyntaxError)) throw err;
    errs.push(fieldErrors.invalid(path, value, err.message));
    return undefined;
  }
  if (ms < 1000) errs.push(fieldErrors.invalid(path, value, 'must be at least 1s'));
  else if (ms > MAX_DURATION_MS) errs.push(fieldErrors.invalid(path, value, 'must be at most 8784h (a year)'));
  else return ms;
  return undefined;
}

function validateSelector(selector: unknown, path: FieldPath): FieldError[] {
  if (selector === undefined || selector === null) return [];
  if (!isPlainObject(selector)) return [fieldErrors.invalid(path, selector, 'must be a label selector')];
  return validateLabelSelector(selector as LabelSelector, {}, path);
}

function validateRoleSelector(role: PolicyRoleSelector, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!ROLE_KINDS.includes(str(role.kind))) errs.push(fieldErrors.notSupported(path.child('kind'), role.kind, ROLE_KINDS));
  const names = list<string>(role.names);
  names.forEach((name, i) => {
    for (const msg of validatePathSegmentName(str(name), false)) errs.push(fieldErrors.invalid(path.child('names').index(i), name, msg));
  });
  if (!names.length && (role.selector === undefined || role.selector === null)) errs.push(fieldErrors.required(path, 'names or selector is required'));
  errs.push(...validateSelector(role.selector, path.child('selector')));
  return errs;
}

function validateApprover(subject: Subject, path: FieldPath): FieldError[] {
  if (subject.kind !== USER_KIND && subject.kind !== GROUP_KIND) return [fieldErrors.notSupported(path.child('kind'), subject.kind, [USER_KIND, GROUP_KIND])];
  return validateRoleBindingSubject(subject, true, path);
}

export function validateAccessRequestPolicy(policy: AccessRequestPolicy): FieldError[] {
  if (!isPlainObject(policy.spec)) return [fieldErrors.required(SPEC)];
  const spec = policy.spec;
  const errs: FieldError[] = [];
  const roles = list<PolicyRoleSelector>(spec.roles);
  if (!roles.length) errs.push(fieldErrors.required(SPEC.child('roles'), 'at least one role must be named or selected'));
  roles.forEach((role, i) => errs.push(...validateRoleSelector(role ?? ({} as PolicyRoleSelector), SPEC.child('roles').index(i))));
  list<string>(spec.namespaces).forEach((ns, i) => {
    for (const msg of isDNS1123Label(str(ns))) errs.push(fieldErrors.invalid(SPEC.child('namespaces').index(i), ns, msg));
  });
  errs.push(...validateSelector(spec.namespaceSelector, SPEC.child('namespaceSelector')));
  if (!list(spec.namespaces).length && !spec.namespaceSelector && spec.clusterWide !== true) {
    errs.push(fieldErrors.required(SPEC.child('namespaces'), 'namespaces, namespaceSelector or clusterWide is required: the policy would allow nothing'));
  }
  const requesters = list<Subject>(spec.requesters);
  if (!requesters.length) errs.push(fieldErrors.required(SPEC.child('requesters')));
  requesters.forEach((s, i) => errs.push(...validateRoleBindingSubject(s ?? ({} as Subject), false, SPEC.child('requesters').index(i))));
  const approvers = list<Subject>(spec.approvers);
  approvers.forEach((s, i) => errs.push(...validateApprover(s ?? ({} as Subject), SPEC.child('approvers').index(i))));
  const autoApprove = list<{ expression?: unknown }>(spec.autoApprove);
  if (!approvers.length && !autoApprove.length) errs.push(fieldErrors.required(SPEC.child('approvers'), 'approvers or autoApprove is required: nothing could approve'));
  const required = spec.requiredApprovals;
  if (typeof required !== 'number' || !Number.isInteger(required) || required < 1) {
    errs.push(fieldErrors.invalid(SPEC.child('requiredApprovals'), required, 'must be an integer of at least 1'));
  }
  validDuration(spec.maxDuration, SPEC.child('maxDuration'), errs);
  autoApprove.forEach((condition, i) => {
    const path = SPEC.child('autoApprove').index(i).child('expression');
    const expression = condition?.expression;
    if (typeof expression !== 'string' || !expression.trim()) return errs.push(fieldErrors.required(path));
    const error = autoApproveCompileError(expression);
    if (error) errs.push(fieldErrors.invalid(path, expression, error));
  });
  return errs;
}

/** `clusterScoped`: a ClusterAccessRequest, which can only ask for a ClusterRole. */
export function validateAccessRequest(request: AccessRequest, clusterScoped: boolean): FieldError[] {
  if (!isPlainObject(request.spec)) return [fieldErrors.required(SPEC)];
  const spec = request.spec;
  const errs: FieldError[] = [];
  const ref = SPEC.child('roleRef');
  const roleRef = isPlainObject(spec.roleRef) ? spec.roleRef : ({} as AccessRequest['spec']['roleRef']);
  const kinds = clusterScoped ? ['ClusterRole'] : ROLE_KINDS;
  if (str(roleRef.apiGroup) !== RBAC_GROUP) errs.push(fieldErrors.notSupported(ref.child('apiGroup'), roleRef.apiGroup, [RBAC_GROUP]));
  if (!kinds.includes(str(roleRef.kind))) errs.push(fieldErrors.notSupported(ref.child('kind'), roleRef.kind, kinds));
  const name = str(roleRef.name);
  if (!name) errs.push(fieldErrors.required(ref.child('name')));
  else for (const msg of validatePathSegmentName(name, false)) errs.push(fieldErrors.invalid(ref.child('name'), name, msg));
  validDuration(spec.duration, SPEC.child('duration'), errs);
  const justification = spec.justification;
  if (justification !== undefined && typeof justification === 'string' && justification.length > MAX_JUSTIFICATION_LENGTH) {
    errs.push(fieldErrors.tooLong(SPEC.child('justification'), '', MAX_JUSTIFICATION_LENGTH));
  }
  return errs;
}

/** The spec is what was approved: it never changes after creation (as a CSR's). */
export function validateAccessRequestUpdate(request: AccessRequest, old: AccessRequest): FieldError[] {
  if (jsonEqual(request.spec, old.spec)) return [];
  return [fieldErrors.forbidden(SPEC, `${FIELD_IMMUTABLE_ERROR_MSG}: a request cannot be changed once made; make a new one`)];
}
