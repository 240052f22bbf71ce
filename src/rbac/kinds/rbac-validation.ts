import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { isConvertibleLabelSelector, LabelSelector, LabelSelectorValidationOptions, validateLabelSelector } from '../../apimachinery/validation/labels';
import { validatePathSegmentName, validateServiceAccountName } from '../../apimachinery/validation/names';
import { list, record, str, strList } from '../../apimachinery/validation/shape';
import { validateBindingWindow, validateBindingWindowUpdate } from '../../apis/rbac/binding-window';
import {
  ClusterRole,
  ClusterRoleBinding,
  GROUP_KIND,
  PolicyRule,
  RBAC_GROUP,
  Role,
  RoleBinding,
  RoleRef,
  SERVICE_ACCOUNT_KIND,
  Subject,
  USER_KIND,
} from '../../apis/rbac/types';

/**
 * Validation of the RBAC kinds, as kube's pkg/apis/rbac/validation. ObjectMeta is not
 * checked here: the generic storage validates it for every kind with the kind's name rule.
 * JSON types were checked when the body was decoded into the kind (by its schema).
 */

const ROOT = FieldPath.root('');

// ---- rules ----------------------------------------------------------------------------

/**
 * Our spec allows '*' in a non-resource URL only alone or as the whole last segment
 * ('/apis/*'); kube does not check this and treats any trailing '*' as a prefix match.
 */
export const NON_RESOURCE_URL_WILDCARD_MSG = "'*' is only allowed alone or as the last whole path segment (e.g. '/apis/*')";

export function isValidNonResourceURLWildcard(url: string): boolean {
  if (!url.includes('*') || url === '*') return true;
  return url.endsWith('/*') && url.indexOf('*') === url.length - 1;
}

function validateNonResourceURLs(urls: string[], path: FieldPath): FieldError[] {
  return urls.flatMap((url, i) =>
    isValidNonResourceURLWildcard(url) ? [] : [fieldErrors.invalid(path.index(i), url, NON_RESOURCE_URL_WILDCARD_MSG)],
  );
}

/** One rule: verbs always; either non-resource URLs (cluster roles only) or groups and resources. */
export function validatePolicyRule(rule: PolicyRule, isNamespaced: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const verbs = strList(rule.verbs);
  const apiGroups = strList(rule.apiGroups);
  const resources = strList(rule.resources);
  const resourceNames = strList(rule.resourceNames);
  const urls = strList(rule.nonResourceURLs);
  if (!verbs.length) errs.push(fieldErrors.required(path.child('verbs'), 'verbs must contain at least one value'));

  if (urls.length) {
    const urlsPath = path.child('nonResourceURLs');
    if (isNamespaced) errs.push(fieldErrors.invalid(urlsPath, urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (apiGroups.length || resources.length || resourceNames.length) {
      errs.push(fieldErrors.invalid(urlsPath, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    errs.push(...validateNonResourceURLs(urls, urlsPath));
    return errs;
  }

  if (!apiGroups.length) errs.push(fieldErrors.required(path.child('apiGroups'), 'resource rules must supply at least one api group'));
  if (!resources.length) errs.push(fieldErrors.required(path.child('resources'), 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(rules: unknown, isNamespaced: boolean): FieldError[] {
  const rulesPath = ROOT.child('rules');
  return list<PolicyRule>(rules).flatMap((rule, i) => validatePolicyRule(rule ?? ({} as PolicyRule), isNamespaced, rulesPath.index(i)));
}

// ---- Role and ClusterRole ---------------------------------------------------------------

export function validateRole(role: Role): FieldError[] {
  return validateRules(role.rules, true);
}

/** A Role may change freely; only its metadata has update rules. */
export function validateRoleUpdate(role: Role, _old: Role): FieldError[] {
  return validateRole(role);
}

export interface ClusterRoleValidationOptions {
  allowInvalidLabelValueInSelector?: boolean;
}

function validateSelectors(selectors: LabelSelector[], opts: LabelSelectorValidationOptions): FieldError[] {
  const selectorsPath = ROOT.child('aggregationRule').child('clusterRoleSelectors');
  return selectors.flatMap((selector, i) => {
    const at = selectorsPath.index(i);
    const errs = validateLabelSelector(selector, opts, at);
    // kube also converts each selector and reports a failure with the (nil) result,
    // which its error printer shows as "null" in quotes.
    if (!isConvertibleLabelSelector(selector)) errs.push(fieldErrors.invalid(at, 'null', 'invalid label selector.'));
    return errs;
  });
}

/** Rules may use non-resource URLs; an aggregationRule needs at least one valid selector. */
export function validateClusterRole(role: ClusterRole, opts: ClusterRoleValidationOptions = {}): FieldError[] {
  const errs = validateRules(role.rules, false);
  const aggregation = role.aggregationRule;
  if (aggregation) {
    const selectors = list<LabelSelector>(aggregation.clusterRoleSelectors);
    if (!selectors.length) {
      errs.push(
        fieldErrors.required(
          ROOT.child('aggregationRule').child('clusterRoleSelectors'),
          'at least one clusterRoleSelector required if aggregationRule is non-nil',
        ),
      );
    }
    errs.push(...validateSelectors(selectors, opts));
  }
  return errs;
}

/** Whether a stored ClusterRole already has selector values kube would now refuse. */
export function hasInvalidLabelValueInLabelSelector(role: ClusterRole): boolean {
  if (!role.aggregationRule) return false;
  return list<LabelSelector>(role.aggregationRule.clusterRoleSelectors).some(
    (selector) => validateLabelSelector(selector, {}, ROOT).length > 0,
  );
}

/** As kube: bad selector values already stored may stay, so old objects remain updatable. */
export function validateClusterRoleUpdate(role: ClusterRole, old: ClusterRole): FieldError[] {
  return validateClusterRole(role, { allowInvalidLabelValueInSelector: hasInvalidLabelValueInLabelSelector(old) });
}

// ---- bindings -------------------------------------------------------------------------

/**
 * A subject: a name always; service accounts take no apiGroup, a DNS-subdomain name and,
 * in cluster-wide bindings, a namespace (a RoleBinding's own namespace is used otherwise);
 * users and groups belong to the RBAC group.
 */
export function validateRoleBindingSubject(subject: Subject, isNamespaced: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(subject.name);
  const apiGroup = str(subject.apiGroup);
  const kind = str(subject.kind);
  if (!name) errs.push(fieldErrors.required(path.child('name')));

  switch (kind) {
    case SERVICE_ACCOUNT_KIND:
      if (name) errs.push(...validateServiceAccountName(name, false).map((msg) => fieldErrors.invalid(path.child('name'), name, msg)));
      if (apiGroup) errs.push(fieldErrors.notSupported(path.child('apiGroup'), apiGroup, ['']));
      if (!isNamespaced && !str(subject.namespace)) errs.push(fieldErrors.required(path.child('namespace')));
      break;
    case USER_KIND:
    case GROUP_KIND:
      if (apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported(path.child('apiGroup'), apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldErrors.notSupported(path.child('kind'), kind, [SERVICE_ACCOUNT_KIND, USER_KIND, GROUP_KIND]));
  }
  return errs;
}

function validateRoleRef(roleRef: Partial<RoleRef>, allowedKinds: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const refPath = ROOT.child('roleRef');
  const apiGroup = str(roleRef.apiGroup);
  const kind = str(roleRef.kind);
  const name = str(roleRef.name);
  if (apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported(refPath.child('apiGroup'), apiGroup, [RBAC_GROUP]));
  if (!allowedKinds.includes(kind)) errs.push(fieldErrors.notSupported(refPath.child('kind'), kind, allowedKinds));
  if (!name) errs.push(fieldErrors.required(refPath.child('name')));
  else errs.push(...validatePathSegmentName(name, false).map((msg) => fieldErrors.invalid(refPath.child('name'), name, msg)));
  return errs;
}

/** `old` on update: a validity window left as stored is not checked again. */
function validateBinding(binding: RoleBinding, allowedKinds: string[], isNamespaced: boolean, old?: RoleBinding): FieldError[] {
  const subjectsPath = ROOT.child('subjects');
  const subjectErrors = list<Subject>(binding.subjects).flatMap((subject, i) =>
    validateRoleBindingSubject(subject ?? ({} as Subject), isNamespaced, subjectsPath.index(i)),
  );
  const windowErrors = old ? validateBindingWindowUpdate(binding, old) : validateBindingWindow(binding);
  return [...validateRoleRef(binding.roleRef ?? {}, allowedKinds), ...subjectErrors, ...windowErrors];
}

/** A RoleBinding references a Role of its namespace or a ClusterRole. */
export function validateRoleBinding(binding: RoleBinding, old?: RoleBinding): FieldError[] {
  return validateBinding(binding, ['Role', 'ClusterRole'], true, old);
}

/** A ClusterRoleBinding references only ClusterRoles. */
export function validateClusterRoleBinding(binding: ClusterRoleBinding, old?: ClusterRoleBinding): FieldError[] {
  return validateBinding(binding, ['ClusterRole'], false, old);
}

function roleRefOf(binding: RoleBinding): RoleRef {
  const ref = record(binding.roleRef);
  return { apiGroup: str(ref.apiGroup), kind: str(ref.kind), name: str(ref.name) };
}

/** roleRef is immutable so update permission on a binding cannot switch its role. */
export function validateRoleRefUnchanged(binding: RoleBinding, old: RoleBinding): FieldError[] {
  const next = roleRefOf(binding);
  const prev = roleRefOf(old);
  const same = next.apiGroup === prev.apiGroup && next.kind === prev.kind && next.name === prev.name;
  return same ? [] : [fieldErrors.invalid(ROOT.child('roleRef'), next, 'cannot change roleRef')];
}

export function validateRoleBindingUpdate(binding: RoleBinding, old: RoleBinding): FieldError[] {
  return [...validateRoleBinding(binding, old), ...validateRoleRefUnchanged(binding, old)];
}

export function validateClusterRoleBindingUpdate(binding: ClusterRoleBinding, old: ClusterRoleBinding): FieldError[] {
  return [...validateClusterRoleBinding(binding, old), ...validateRoleRefUnchanged(binding, old)];
}
