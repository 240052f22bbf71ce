import { ResourceType, StrategyContext } from '../runtime/schema/resource-type';
import { ResourceStorage, Target, WriteOptions, WriteResult } from '../registry/rest/storage';
import { KubeObject } from '../apimachinery/types';
import { UserInfo } from '../apimachinery/user-info';
import { AuthorizerChain } from '../authorization/authorizer-chain';
import { reviewAttributes, reviewedUser, reviewEvaluationError, ReviewAttributeOptions } from './access-review-attributes';
import { ReviewRequest } from './review-request';
import { SelfSubjectAccessReviewSpec, SubjectAccessReviewSpec, SubjectAccessReviewStatus } from './review-types';
import { accessReviewSpecToWire, accessReviewStatusToWire, reviewMetadataToWire } from './review-wire';

/** Whose access a review asks about: the user its spec names, or the caller (after impersonation). */
export type ReviewSubject = (spec: SubjectAccessReviewSpec, caller: UserInfo) => UserInfo;

export const specSubject: ReviewSubject = (spec) => reviewedUser(spec);
export const callerSubject: ReviewSubject = (_spec, caller) => caller;

/** An access review with nothing set, as kube writes one: its spec and status are plain structs. */
const EMPTY_ACCESS_REVIEW = { spec: {}, status: { allowed: false } };

/** Without the AuthorizeWithSelectors gate the selector fields do not exist: they are dropped first. */
function dropSelectors(spec: SelfSubjectAccessReviewSpec): void {
  if (!spec.resourceAttributes) return;
  delete spec.resourceAttributes.fieldSelector;
  delete spec.resourceAttributes.labelSelector;
}

/**
 * The create-only storage of SubjectAccessReview, LocalSubjectAccessReview and
 * SelfSubjectAccessReview (kube's registry/authorization/*accessreview REST): it asks the
 * authorizer chain the review's question and answers with the review, its status filled.
 * Nothing is stored and no watch event is sent; a dry run gets the same answer.
 */
export class AccessReviewStorage implements ResourceStorage {
  private readonly request: ReviewRequest;

  constructor(
    private readonly type: ResourceType,
    private readonly chain: AuthorizerChain,
    private readonly subject: ReviewSubject,
    private readonly options: () => ReviewAttributeOptions,
  ) {
    this.request = new ReviewRequest(type, EMPTY_ACCESS_REVIEW);
  }

  async create(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    const review = this.request.decode<SubjectAccessReviewSpec>(target, body, opts);
    const spec = (review.spec ??= {});
    const options = this.options();
    if (!options.authorizeWithSelectors) dropSelectors(spec);
    const ctx: StrategyContext = { user: opts.user, namespace: target.namespace, dryRun: opts.dryRun };
    const object = review as unknown as KubeObject;
    this.type.strategy.prepareForCreate?.(object, ctx);
    const errs = this.type.strategy.validate(object, ctx);
    if (errs.length) throw this.request.invalid(target, errs);

    const attrs = reviewAttributes(this.subject(spec, opts.user), spec, options);
    const decided = this.chain.decide(attrs, { arrivedAt: opts.receivedAt });
    const result = decided instanceof Promise ? await decided : decided;
    const status: SubjectAccessReviewStatus = {
      allowed: result.decision === 'Allow',
      denied: result.decision === 'Deny',
      reason: result.reason,
      evaluationError: reviewEvaluationError(result.evaluationError, attrs),
    };
    const answer = this.request.answer(target, {
      metadata: reviewMetadataToWire(review.metadata),
      spec: accessReviewSpecToWire(spec),
      status: accessReviewStatusToWire(status),
    });
    return { object: answer, created: true };
  }
}
