import { ResourceType } from '../runtime/schema/resource-type';
import { ResourceStorage, Target, WriteOptions, WriteResult } from '../registry/rest/storage';
import { errors } from '../apimachinery/errors';
import { Authenticator } from '../authentication/authenticator';
import { ReviewRequest } from './review-request';
import { ReviewObject } from './review-types';
import { reviewMetadataToWire, userInfoToWire } from './review-wire';

interface TokenReviewSpec {
  token?: string;
  audiences?: string[];
}

/**
 * TokenReview (authentication.platform.io/v1): the token runs through the same union of
 * authentication methods as a request's bearer token, for the review's audiences (the
 * API's when none), never as anonymous. A token nobody accepts is a 201 with
 * `authenticated: false` (and the methods' reasons in `error`), not a 401. The token is
 * never repeated in the answer.
 */
export class TokenReviewStorage implements ResourceStorage {
  private readonly request: ReviewRequest;

  constructor(
    type: ResourceType,
    private readonly authenticator: Authenticator,
  ) {
    this.request = new ReviewRequest(type, { spec: {}, status: {} });
  }

  async create(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    const review = this.request.decode<TokenReviewSpec>(target, body, opts) as ReviewObject<TokenReviewSpec>;
    const spec = review.spec ?? {};
    if (typeof spec.token !== 'string' || spec.token.length === 0) throw errors.badRequest('token is required for TokenReview in authentication');
    const audiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
    const result = await this.authenticator.authenticateToken(spec.token, audiences);
    const status: Record<string, unknown> = result.authenticated
      ? { authenticated: true, user: userInfoToWire(result.user), ...(result.audiences.length ? { audiences: result.audiences } : {}) }
      : { authenticated: false, user: {}, ...(result.error ? { error: result.error } : {}) };
    const wireSpec: Record<string, unknown> = {};
    if (audiences.length) wireSpec.audiences = audiences;
    const answer = this.request.answer(target, {
      metadata: reviewMetadataToWire(review.metadata as never),
      spec: wireSpec,
      status,
    });
    return { object: answer, created: true };
  }
}
