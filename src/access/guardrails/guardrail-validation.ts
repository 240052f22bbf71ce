import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { isDNS1123Label } from '../../apimachinery/validation/names';
import { LabelSelector, validateLabelSelector } from '../../apimachinery/validation/labels';
import { isPlainObject } from '../../apimachinery/types';
import { PolicyRule, Subject } from '../../apis/rbac/types';
import { validatePolicyRule, validateRoleBindingSubject } from '../../rbac/kinds/rbac-validation';
import { CelCompileError } from '../../cel';
import { AccessGuardrail, GUARDRAIL_FAILURE_POLICIES } from './guardrail-types';

/** Compiles a condition; throws CelCompileError when it is not a boolean CEL expression over `request`. */
export type ConditionCompiler = (expression: string) => void;

const SPEC = FieldPath.root('spec');
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

function validateSubjects(value: unknown, path: FieldPath): FieldError[] {
  if (!Array.isArray(value)) return [];
  // Guardrails are cluster-scoped: a service account names its namespace, as in a ClusterRoleBinding.
  return value.flatMap((s, i) => validateRoleBindingSubject((isPlainObject(s) ? s : {}) as unknown as Subject, false, path.index(i)));
}

function validateMatch(spec: AccessGuardrail['spec']): FieldError[] {
  const path = SPEC.child('match');
  const match = spec.match;
  if (!isPlainObject(match)) return [fieldErrors.required(path)];
  // The request part is a PolicyRule, checked as a ClusterRole's rule is.
  const errs = validatePolicyRule(match as unknown as PolicyRule, false, path);
  const namespaces = strList(match.namespaces);
  namespaces.forEach((ns, i) => {
    for (const msg of isDNS1123Label(ns)) errs.push(fieldErrors.invalid(path.child('namespaces').index(i), ns, msg));
  });
  const selector = match.namespaceSelector as LabelSelector | undefined;
  if (selector) errs.push(...validateLabelSelector(selector, { allowInvalidLabelValueInSelector: false }, path.child('namespaceSelector')));
  if (strList(match.nonResourceURLs).length && (namespaces.length || selector)) {
    errs.push(fieldErrors.invalid(path.child('namespaces'), namespaces, 'non-resource URLs are in no namespace: a match with nonResourceURLs cannot name namespaces'));
  }
  return errs;
}

function validateCondition(condition: unknown, compile: ConditionCompiler): FieldError[] {
  const path = SPEC.child('condition');
  if (condition === undefined || condition === null) return [];
  if (typeof condition !== 'string') return [fieldErrors.invalid(path, condition, 'must be a string')];
  if (condition.trim() === '') return [fieldErrors.required(path, 'an empty condition is not allowed; leave the field out to match always')];
  try {
    compile(condition);
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err;
    return [err.type === 'Required' ? fieldErrors.required(path, err.detail) : fieldErrors.invalid(path, condition, err.detail)];
  }
  return [];
}

/** Everything that makes a guardrail unusable, all at once (422). */
export function validateAccessGuardrail(guardrail: AccessGuardrail, compile: ConditionCompiler): FieldError[] {
  const spec = guardrail.spec;
  if (!isPlainObject(spec)) return [fieldErrors.required(SPEC)];
  const errs = [...validateMatch(spec), ...validateSubjects(spec.subjects, SPEC.child('subjects')), ...validateSubjects(spec.exceptions, SPEC.child('exceptions'))];
  errs.push(...validateCondition(spec.condition, compile));
  const policy: unknown = spec.failurePolicy;
  if (policy !== undefined && !(GUARDRAIL_FAILURE_POLICIES as readonly unknown[]).includes(policy)) {
    errs.push(fieldErrors.notSupported(SPEC.child('failurePolicy'), policy, [...GUARDRAIL_FAILURE_POLICIES]));
  }
  return errs;
}
