import { ResourceStrategy, ResourceType } from '../runtime/schema/resource-type';
import { createOnlyType, defaultReviewNamespace, reviewStrategy } from '../reviews/review-kinds';
import { StructSchema } from '../runtime/schema/schema';
import { accessMatrixReviewType } from './access-matrix-kind';
import { bindingUsageType } from './binding-usage-kind';
import { policyChangeReviewType } from './policy-change-kind';
import { accessExplanationSchema, localResourceAccessReviewSchema, resourceAccessReviewSchema, subjectRulesReviewSchema } from './access-schemas';
import { ACCESS_GROUP, ACCESS_VERSION, AccessExplanation, ResourceAccessReview, SubjectRulesReview } from './access-types';
import {
  validateAccessExplanation,
  validateLocalResourceAccessReview,
  validateResourceAccessReview,
  validateSubjectRulesReview,
} from './access-validation';

/**
 * The four kinds of access.platform.io/v1 as discovery and the generic handlers see them:
 * create only, no Table, JSON and YAML (no protobuf messages: kube has none for them).
 */

const accessType = (kind: string, plural: string, namespaced: boolean, schema: StructSchema, strategy: ResourceStrategy): ResourceType =>
  createOnlyType(ACCESS_GROUP, ACCESS_VERSION, kind, plural, namespaced, schema, strategy);

export const resourceAccessReviewType = accessType(
  'ResourceAccessReview',
  'resourceaccessreviews',
  false,
  resourceAccessReviewSchema,
  reviewStrategy((obj) => validateResourceAccessReview(obj as ResourceAccessReview)),
);

export const localResourceAccessReviewType = accessType(
  'LocalResourceAccessReview',
  'localresourceaccessreviews',
  true,
  localResourceAccessReviewSchema,
  reviewStrategy((obj) => validateLocalResourceAccessReview(obj as ResourceAccessReview), defaultReviewNamespace),
);

export const subjectRulesReviewType = accessType(
  'SubjectRulesReview',
  'subjectrulesreviews',
  false,
  subjectRulesReviewSchema,
  reviewStrategy((obj) => validateSubjectRulesReview(obj as SubjectRulesReview)),
);

export const accessExplanationType = accessType(
  'AccessExplanation',
  'accessexplanations',
  false,
  accessExplanationSchema,
  reviewStrategy((obj) => validateAccessExplanation(obj as AccessExplanation)),
);

/** In the installer's order (sorted by path), which discovery shows. */
export const ACCESS_TYPES = [
  accessExplanationType,
  accessMatrixReviewType,
  bindingUsageType as unknown as ResourceType,
  localResourceAccessReviewType,
  policyChangeReviewType,
  resourceAccessReviewType,
  subjectRulesReviewType,
];
