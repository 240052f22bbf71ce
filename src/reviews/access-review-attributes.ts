import { UserInfo } from '../apimachinery/user-info';
import { AuthorizationAttributes } from '../authorization/authorizer';
import { nonResourceAttributes, resourceAttributes } from '../authorization/request-attributes';
import { NonResourceAttributes, ResourceAttributes, SelfSubjectAccessReviewSpec, SubjectAccessReviewSpec } from './review-types';
import { fieldSelectorAttribute, labelSelectorAttribute, selectorEvaluationErrors } from './selector-attributes';

/**
 * An access review's question as authorizer attributes (kube's AuthorizationAttributesFrom),
 * so a review is answered by the same chain, with the same attributes, as a real request:
 * `*` passes through as the wildcard it is, an empty namespace means all namespaces (or a
 * cluster-scoped resource), an empty version means every version.
 */

export interface ReviewAttributeOptions {
  /** The AuthorizeWithSelectors gate: selectors are part of the question only with it. */
  authorizeWithSelectors: boolean;
}

/** The user a SubjectAccessReview asks about; a user without groups is in no group. */
export function reviewedUser(spec: SubjectAccessReviewSpec): UserInfo {
  const user: UserInfo = { username: spec.user ?? '', groups: [...(spec.groups ?? [])] };
  if (spec.uid) user.uid = spec.uid;
  if (spec.extra) user.extra = Object.fromEntries(Object.entries(spec.extra).map(([k, v]) => [k, [...(v ?? [])]]));
  return user;
}

export function resourceReviewAttributes(user: UserInfo, attrs: ResourceAttributes, opts: ReviewAttributeOptions): AuthorizationAttributes {
  return resourceAttributes({
    user,
    verb: attrs.verb ?? '',
    apiGroup: attrs.group ?? '',
    apiVersion: attrs.version || '*',
    resource: attrs.resource ?? '',
    subresource: attrs.subresource ?? '',
    namespace: attrs.namespace ?? '',
    name: attrs.name ?? '',
    fieldSelector: opts.authorizeWithSelectors ? fieldSelectorAttribute(attrs.fieldSelector) : undefined,
    labelSelector: opts.authorizeWithSelectors ? labelSelectorAttribute(attrs.labelSelector) : undefined,
  });
}

export function nonResourceReviewAttributes(user: UserInfo, attrs: NonResourceAttributes): AuthorizationAttributes {
  return nonResourceAttributes(user, attrs.verb ?? '', attrs.path ?? '');
}

/** The attributes of a (validated) review spec: exactly one of the attribute kinds is set. */
export function reviewAttributes(user: UserInfo, spec: SelfSubjectAccessReviewSpec, opts: ReviewAttributeOptions): AuthorizationAttributes {
  if (spec.resourceAttributes) return resourceReviewAttributes(user, spec.resourceAttributes, opts);
  return nonResourceReviewAttributes(user, spec.nonResourceAttributes ?? {});
}

/** SubjectAccessReview and LocalSubjectAccessReview: about the user the spec names. */
export function subjectAccessReviewAttributes(spec: SubjectAccessReviewSpec, opts: ReviewAttributeOptions): AuthorizationAttributes {
  return reviewAttributes(reviewedUser(spec), spec, opts);
}

/**
 * status.evaluationError (kube's BuildEvaluationError): the chain's error, then a note for
 * each selector that could not be used, joined by `; `.
 */
export function reviewEvaluationError(chainError: string | undefined, attrs: AuthorizationAttributes): string | undefined {
  const errors = [...(chainError ? [chainError] : []), ...selectorEvaluationErrors(attrs)];
  return errors.length ? errors.join('; ') : undefined;
}
