import { createOnlyType, reviewStrategy } from '../reviews/review-kinds';
import { ACCESS_GROUP, ACCESS_VERSION } from './access-types';
import { policyChangeReviewSchema } from './policy-change-schemas';
import { PolicyChangeReview } from './policy-change-types';
import { defaultPolicyChangeReview, validatePolicyChangeReview } from './policy-change-validation';

/** PolicyChangeReview: create only, like the other questions of access.platform.io. */
export const policyChangeReviewType = createOnlyType(
  ACCESS_GROUP,
  ACCESS_VERSION,
  'PolicyChangeReview',
  'policychangereviews',
  false,
  policyChangeReviewSchema,
  reviewStrategy((obj) => validatePolicyChangeReview(obj as PolicyChangeReview), defaultPolicyChangeReview),
);
