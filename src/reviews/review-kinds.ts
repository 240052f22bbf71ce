import { FieldError } from '../apimachinery/field-errors';
import { GroupVersionAlias } from '../registry/resources/registry';
import { ResourceStrategy, ResourceType, StrategyContext } from '../runtime/schema/resource-type';
import { StructSchema } from '../runtime/schema/schema';
import { KubeObject } from '../apimachinery/types';
import { validateLocalSubjectAccessReview, validateSelfSubjectAccessReview, validateSubjectAccessReview } from './access-review-validation';
import {
  localSubjectAccessReviewSchema,
  selfSubjectAccessReviewSchema,
  selfSubjectReviewSchema,
  selfSubjectRulesReviewSchema,
  subjectAccessReviewSchema,
  tokenReviewSchema,
} from './review-schemas';
import { AccessReview, AUTHENTICATION_GROUP, AUTHORIZATION_GROUP, REVIEW_VERSION } from './review-types';

/**
 * The five review kinds as discovery and the generic handlers see them: create only (their
 * storages implement nothing else), no Table (kube prints none for them), protobuf with
 * kube's messages. Review names are never validated: reviews are not stored.
 */

const noNameRules = (): string[] => [];

/** Reviews are only created; the update hooks exist because every strategy has them. */
export function reviewStrategy(validate: (review: KubeObject) => FieldError[], prepareForCreate?: ResourceStrategy['prepareForCreate']): ResourceStrategy {
  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    prepareForCreate,
    validate,
    validateUpdate: () => [],
  };
}

function reviewType(group: string, kind: string, plural: string, namespaced: boolean, schema: StructSchema, strategy: ResourceStrategy): ResourceType {
  const protoPackage = `platform.io.api.${group.split('.')[0]}.${REVIEW_VERSION}`;
  return { ...createOnlyType(group, REVIEW_VERSION, kind, plural, namespaced, schema, strategy), protobuf: { message: `${protoPackage}.${kind}` } };
}

/** A kind that is only ever created (a question answered in its status): no Table, no list, no name rules. */
export function createOnlyType(
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  schema: StructSchema,
  strategy: ResourceStrategy,
): ResourceType {
  return {
    group,
    version,
    kind,
    // Never served: a review cannot be listed (the definition needs a name all the same).
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    verbs: ['create'],
    nameValidator: noNameRules,
    schema,
    strategy,
    table: 'none',
  };
}

/**
 * A local review (LocalSubjectAccessReview, LocalResourceAccessReview) asks about its own
 * namespace: an empty spec.resourceAttributes.namespace takes the request's.
 */
export function defaultReviewNamespace(obj: KubeObject, ctx: StrategyContext): void {
  const attrs = (obj as AccessReview).spec?.resourceAttributes;
  if (attrs && !attrs.namespace) attrs.namespace = ctx.namespace;
}

export const subjectAccessReviewType = reviewType(
  AUTHORIZATION_GROUP,
  'SubjectAccessReview',
  'subjectaccessreviews',
  false,
  subjectAccessReviewSchema,
  reviewStrategy((obj) => validateSubjectAccessReview(obj as AccessReview)),
);

export const localSubjectAccessReviewType = reviewType(
  AUTHORIZATION_GROUP,
  'LocalSubjectAccessReview',
  'localsubjectaccessreviews',
  true,
  localSubjectAccessReviewSchema,
  reviewStrategy((obj) => validateLocalSubjectAccessReview(obj as AccessReview), defaultReviewNamespace),
);

export const selfSubjectAccessReviewType = reviewType(
  AUTHORIZATION_GROUP,
  'SelfSubjectAccessReview',
  'selfsubjectaccessreviews',
  false,
  selfSubjectAccessReviewSchema,
  reviewStrategy((obj) => validateSelfSubjectAccessReview(obj as AccessReview)),
);

/** kube validates nothing of a rules review but its namespace (its storage's 400). */
export const selfSubjectRulesReviewType = reviewType(
  AUTHORIZATION_GROUP,
  'SelfSubjectRulesReview',
  'selfsubjectrulesreviews',
  false,
  selfSubjectRulesReviewSchema,
  reviewStrategy(() => []),
);

export const selfSubjectReviewType = reviewType(
  AUTHENTICATION_GROUP,
  'SelfSubjectReview',
  'selfsubjectreviews',
  false,
  selfSubjectReviewSchema,
  reviewStrategy(() => []),
);

/** Delegated authentication: is this bearer token someone? The storage checks the token itself. */
export const tokenReviewType = reviewType(AUTHENTICATION_GROUP, 'TokenReview', 'tokenreviews', false, tokenReviewSchema, reviewStrategy(() => []));

/**
 * kubectl hard-codes kube's group names for the reviews it posts (`auth can-i` and `--list`
 * to `authorization.k8s.io/v1`; `auth whoami` to `authentication.k8s.io/v1`, then v1beta1,
 * then v1alpha1, where kubectl 1.27 starts). With --kubectl-review-aliases the same kinds
 * answer there, in the apiVersion posted (every SelfSubjectReview version has one shape).
 */
export const KUBECTL_REVIEW_ALIASES: GroupVersionAlias[] = [
  {
    alias: { group: 'authorization.k8s.io', version: 'v1' },
    served: { group: AUTHORIZATION_GROUP, version: REVIEW_VERSION },
    resources: [localSubjectAccessReviewType, selfSubjectAccessReviewType, selfSubjectRulesReviewType, subjectAccessReviewType].map((t) => t.plural),
  },
  ...['v1', 'v1beta1', 'v1alpha1'].map((version) => ({
    alias: { group: 'authentication.k8s.io', version },
    served: { group: AUTHENTICATION_GROUP, version: REVIEW_VERSION },
    resources: [selfSubjectReviewType.plural],
  })),
];
