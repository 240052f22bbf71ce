import { Logger } from '@nestjs/common';
import {
  recordMatchConditionEvaluation,
  recordMatchConditionExclusion,
  recordWebhookFailOpen,
  WebhookResult,
} from '../../metrics/authorization-metrics';
import { AuthorizationAttributes, AuthorizationResult, Authorizer, RuleResolution } from '../authorizer';
import { FailurePolicy } from './webhook-configuration';
import { Clock } from '../../apimachinery/clock';
import { TtlCache } from '../../apimachinery/ttl-cache';
import { MatchConditionError, MatchConditions } from './match-conditions';
import { reviewSpecFor, SubjectAccessReviewSpec, SubjectAccessReviewStatus, wireSpec } from './subject-access-review';

/** kube caches at most this many answers per webhook. */
const CACHE_CAPACITY = 8192;
/** Requests whose requester-controlled attributes are this long are not cached (a DoS guard, as kube). */
const MAX_CACHEABLE_ATTRIBUTE_LENGTH = 10_000;

/** Asks the remote service about one review; throws a ReviewFailure when it cannot answer. */
export interface SubjectAccessReviewer {
  review(spec: SubjectAccessReviewSpec): Promise<SubjectAccessReviewStatus>;
  close?(): void;
}

/** A call that failed (transport, status code, malformed answer); `result` labels the metrics. */
export interface ReviewFailure extends Error {
  result?: Exclude<WebhookResult, 'success'>;
}

export interface WebhookAuthorizerOptions {
  name: string;
  reviewer: SubjectAccessReviewer;
  /** Allow answers are cached this long (0: not cached). */
  authorizedTTLMs: number;
  /** Every other answer is cached this long (0: not cached). */
  unauthorizedTTLMs: number;
  /** The decision when the call fails, the answer is malformed, or a match condition errs. */
  failurePolicy: FailurePolicy;
  matchConditions?: MatchConditions;
  /** The clock of the answer cache (tests move it). */
  clock?: Clock;
}

function shouldCache(attrs: AuthorizationAttributes): boolean {
  const size =
    attrs.namespace.length +
    attrs.verb.length +
    attrs.apiGroup.length +
    attrs.apiVersion.length +
    attrs.resource.length +
    attrs.subresource.length +
    attrs.name.length +
    attrs.path.length;
  return size < MAX_CACHEABLE_ATTRIBUTE_LENGTH;
}

/**
 * kube's webhook authorizer: a SubjectAccessReview per request (after the match conditions
 * agree), answers cached by the review spec (allows for authorizedTTL, the rest for
 * unauthorizedTTL), failures decided by the failure policy.
 */
export class WebhookAuthorizer implements Authorizer {
  readonly type = 'Webhook';
  readonly name: string;
  private readonly logger = new Logger('WebhookAuthorizer');
  private readonly cache: TtlCache<SubjectAccessReviewStatus>;

  constructor(private readonly options: WebhookAuthorizerOptions) {
    this.name = options.name;
    this.cache = new TtlCache(CACHE_CAPACITY, options.clock);
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const spec = reviewSpecFor(attrs);
    const matched = this.match(spec);
    if (matched !== true) return matched;

    const key = JSON.stringify(wireSpec(spec, 'v1'));
    let status = this.cache.get(key);
    if (!status) {
      try {
        status = await this.options.reviewer.review(spec);
      } catch (err) {
        const failure = err as ReviewFailure;
        this.logger.error(`Failed to make webhook authorizer request: ${failure.message}`);
        if (this.options.failurePolicy === 'NoOpinion') recordWebhookFailOpen(this.name, failure.result ?? 'error');
        return this.onFailure(failure.message);
      }
      if (shouldCache(attrs)) this.cache.set(key, status, status.allowed ? this.options.authorizedTTLMs : this.options.unauthorizedTTLMs);
    }
    if (status.allowed && status.denied) {
      return { decision: 'Deny', reason: status.reason ?? '', evaluationError: 'webhook subject access review returned both allow and deny response' };
    }
    if (status.denied) return { decision: 'Deny', reason: status.reason ?? '' };
    if (status.allowed) return { decision: 'Allow', reason: status.reason ?? '' };
    return { decision: 'NoOpinion', reason: status.reason ?? '' };
  }

  /** kube's webhook cannot list rules. */
  rulesFor(): RuleResolution {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' };
  }

  close(): void {
    this.cache.clear();
    this.options.reviewer.close?.();
  }

  /** true to call the webhook; otherwise the decision (a skip, or the failure policy on an error). */
  private match(spec: SubjectAccessReviewSpec): true | AuthorizationResult {
    const conditions = this.options.matchConditions;
    if (!conditions || conditions.size === 0) return true;
    const started = performance.now();
    let failed = false;
    try {
      if (conditions.matches(spec)) return true;
      recordMatchConditionExclusion(this.type, this.name);
      return { decision: 'NoOpinion', reason: '' };
    } catch (err) {
      if (!(err instanceof MatchConditionError)) throw err;
      failed = true;
      return this.onFailure(err.message);
    } finally {
      recordMatchConditionEvaluation(this.type, this.name, (performance.now() - started) / 1000, failed);
    }
  }

  private onFailure(message: string): AuthorizationResult {
    return { decision: this.options.failurePolicy === 'Deny' ? 'Deny' : 'NoOpinion', reason: '', evaluationError: message };
  }
}
