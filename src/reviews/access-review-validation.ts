import { FieldError, fieldErrors, FieldPath } from '../apimachinery/field-errors';
import { ObjectMeta } from '../apimachinery/types';
import { validateLabelName } from '../apimachinery/validation/labels';
import { isValidLabelValue } from '../apimachinery/validation/names';
import { goNonResourceAttributes, goObjectMeta } from '../apimachinery/go-text';
import {
  AccessReview,
  ResourceAttributes,
  SelectorAttributes,
  SelectorRequirement,
  SelfAccessReview,
  SelfSubjectAccessReviewSpec,
  SubjectAccessReviewSpec,
} from './review-types';

/**
 * kube's pkg/apis/authorization/validation: which questions a review may ask. Field paths,
 * bad values and details are kube's, so the 422 reads as kube-apiserver's. Unknown selector
 * operators pass (kube lets newer clients send them; they are ignored when answering).
 */

const SET_OPERATORS = ['In', 'NotIn'];
const EXISTENCE_OPERATORS = ['Exists', 'DoesNotExist'];

/** A nil pointer as a field error's bad value: Go prints the text `null`, quoted. */
const NIL = 'null';

/** Exactly one of the attribute kinds (the bad value kube names is the non-resource one). */
function attributeChoiceErrors(spec: SelfSubjectAccessReviewSpec, path: FieldPath): FieldError[] {
  const { resourceAttributes, nonResourceAttributes } = spec;
  if (resourceAttributes && nonResourceAttributes) {
    return [fieldErrors.invalid(path.child('nonResourceAttributes'), goNonResourceAttributes(nonResourceAttributes), 'cannot be specified in combination with resourceAttributes')];
  }
  if (!resourceAttributes && !nonResourceAttributes) {
    return [fieldErrors.invalid(path.child('resourceAttributes'), NIL, 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  }
  return [];
}

function requirementValues(requirement: SelectorRequirement, path: FieldPath): FieldError[] {
  const operator = requirement.operator ?? '';
  const count = requirement.values?.length ?? 0;
  if (SET_OPERATORS.includes(operator) && count === 0) {
    return [fieldErrors.required(path.child('values'), "must be specified when `operator` is 'In' or 'NotIn'")];
  }
  if (EXISTENCE_OPERATORS.includes(operator) && count > 0) {
    return [fieldErrors.forbidden(path.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")];
  }
  return [];
}

/** meta/v1 ValidateFieldSelectorRequirement, unknown operators allowed. */
function fieldRequirementErrors(requirement: SelectorRequirement, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!requirement.key) errs.push(fieldErrors.required(path.child('key'), 'must be specified'));
  return [...errs, ...requirementValues(requirement, path)];
}

/** meta/v1 ValidateLabelSelectorRequirement, unknown operators allowed. */
function labelRequirementErrors(requirement: SelectorRequirement, path: FieldPath): FieldError[] {
  const errs = [...requirementValues(requirement, path), ...validateLabelName(requirement.key ?? '', path.child('key'))];
  (requirement.values ?? []).forEach((value, i) => {
    errs.push(...isValidLabelValue(value).map((msg) => fieldErrors.invalid(path.child('values').index(i), value, msg)));
  });
  return errs;
}

/**
 * A selector attribute takes a raw selector or parsed requirements, never both. An empty
 * one (neither) asks for no restriction, as the service's contract has it.
 */
function selectorErrors(
  selector: SelectorAttributes | undefined,
  path: FieldPath,
  requirementErrors: (r: SelectorRequirement, p: FieldPath) => FieldError[],
): FieldError[] {
  if (!selector) return [];
  const errs: FieldError[] = [];
  const requirements = selector.requirements ?? [];
  if (selector.rawSelector && requirements.length) {
    errs.push(fieldErrors.invalid(path.child('rawSelector'), selector.rawSelector, 'may not specified at the same time as requirements'));
  }
  requirements.forEach((r, i) => errs.push(...requirementErrors(r, path.child('requirements').index(i))));
  return errs;
}

function resourceAttributesErrors(attrs: ResourceAttributes | undefined): FieldError[] {
  if (!attrs) return [];
  const path = FieldPath.root('spec').child('resourceAttributes');
  return [
    ...selectorErrors(attrs.fieldSelector, path.child('fieldSelector'), fieldRequirementErrors),
    ...selectorErrors(attrs.labelSelector, path.child('labelSelector'), labelRequirementErrors),
  ];
}

export function validateSubjectAccessReviewSpec(spec: SubjectAccessReviewSpec): FieldError[] {
  const path = FieldPath.root('spec');
  const errs = attributeChoiceErrors(spec, path);
  if (!spec.user && !spec.groups?.length) errs.push(fieldErrors.invalid(path.child('user'), spec.user ?? '', 'at least one of user or group must be specified'));
  return [...errs, ...resourceAttributesErrors(spec.resourceAttributes)];
}

export function validateSelfSubjectAccessReviewSpec(spec: SelfSubjectAccessReviewSpec): FieldError[] {
  return [...attributeChoiceErrors(spec, FieldPath.root('spec')), ...resourceAttributesErrors(spec.resourceAttributes)];
}

/** Whether ObjectMeta is its zero value (kube's semantic equality: empty maps and lists count as nil). */
function isEmptyMeta(meta: ObjectMeta): boolean {
  return (Object.values(meta) as unknown[]).every((value) => {
    if (value === undefined || value === null || value === '' || value === 0) return true;
    if (Array.isArray(value)) return value.length === 0;
    if (typeof value === 'object') return Object.keys(value).length === 0;
    return false;
  });
}

/** Reviews are not stored: their metadata must be empty, managedFields (set by the server) aside. */
function metadataErrors(meta: ObjectMeta | undefined, allowNamespace: boolean): FieldError[] {
  const { managedFields: _managed, namespace, ...rest } = meta ?? {};
  if (isEmptyMeta(allowNamespace ? rest : { ...rest, namespace })) return [];
  const detail = allowNamespace ? 'must be empty except for namespace' : 'must be empty';
  return [fieldErrors.invalid('metadata', goObjectMeta(meta ?? {}), detail)];
}

export function validateSubjectAccessReview(review: AccessReview): FieldError[] {
  return [...validateSubjectAccessReviewSpec(review.spec ?? {}), ...metadataErrors(review.metadata, false)];
}

export function validateSelfSubjectAccessReview(review: SelfAccessReview): FieldError[] {
  return [...validateSelfSubjectAccessReviewSpec(review.spec ?? {}), ...metadataErrors(review.metadata, false)];
}

/** A LocalSubjectAccessReview asks about resources in its own namespace only. */
export function validateLocalSubjectAccessReview(review: AccessReview): FieldError[] {
  const spec = review.spec ?? {};
  const namespace = review.metadata?.namespace ?? '';
  const errs = [...validateSubjectAccessReviewSpec(spec), ...metadataErrors(review.metadata, true)];
  if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== namespace) {
    errs.push(fieldErrors.invalid('spec.resourceAttributes.namespace', spec.resourceAttributes.namespace ?? '', 'must match metadata.namespace'));
  }
  if (spec.nonResourceAttributes) {
    errs.push(fieldErrors.invalid('spec.nonResourceAttributes', goNonResourceAttributes(spec.nonResourceAttributes), 'disallowed on this kind of request'));
  }
  return errs;
}
