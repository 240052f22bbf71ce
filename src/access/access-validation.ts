import { FieldError, fieldErrors } from '../apimachinery/field-errors';
import { goNonResourceAttributes, goObjectMeta } from '../apimachinery/go-text';
import { validateSelfSubjectAccessReview, validateSubjectAccessReview } from '../reviews/access-review-validation';
import { AccessExplanation, ResourceAccessReview, SubjectRulesReview } from './access-types';

/**
 * What the access kinds accept: the attribute rules of the access reviews (exactly one of
 * resource and non-resource attributes, selector shapes), a subject where one is asked
 * about, and empty metadata (nothing is stored).
 */

export function validateResourceAccessReview(review: ResourceAccessReview): FieldError[] {
  return validateSelfSubjectAccessReview(review);
}

/** A LocalResourceAccessReview asks about resources in its own namespace only. */
export function validateLocalResourceAccessReview(review: ResourceAccessReview): FieldError[] {
  const spec = review.spec ?? {};
  const namespace = review.metadata?.namespace ?? '';
  const errs = validateSelfSubjectAccessReview({ ...review, metadata: { ...review.metadata, namespace: undefined } });
  if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== namespace) {
    errs.push(fieldErrors.invalid('spec.resourceAttributes.namespace', spec.resourceAttributes.namespace ?? '', 'must match metadata.namespace'));
  }
  if (spec.nonResourceAttributes) {
    errs.push(fieldErrors.invalid('spec.nonResourceAttributes', goNonResourceAttributes(spec.nonResourceAttributes), 'disallowed on this kind of request'));
  }
  return errs;
}

export function validateSubjectRulesReview(review: SubjectRulesReview): FieldError[] {
  const spec = review.spec ?? {};
  const errs: FieldError[] = [];
  if (!spec.user && !spec.groups?.length) errs.push(fieldErrors.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
  const { managedFields: _managed, ...meta } = review.metadata ?? {};
  const set = Object.values(meta).some((v) => v !== undefined && v !== null && v !== '' && !(typeof v === 'object' && Object.keys(v).length === 0));
  if (set) errs.push(fieldErrors.invalid('metadata', goObjectMeta(review.metadata ?? {}), 'must be empty'));
  return errs;
}

export function validateAccessExplanation(review: AccessExplanation): FieldError[] {
  return validateSubjectAccessReview(review);
}
