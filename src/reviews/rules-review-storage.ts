import { errors } from '../apimachinery/errors';
import { ResourceType } from '../runtime/schema/resource-type';
import { ResourceStorage, Target, WriteOptions, WriteResult } from '../registry/rest/storage';
import { AuthorizerChain } from '../authorization/authorizer-chain';
import { ReviewRequest } from './review-request';
import { RulesReview } from './review-types';
import { rulesReviewStatusToWire } from './review-wire';

/**
 * SelfSubjectRulesReview (kube's selfsubjectrulesreview REST): what the caller may do in
 * `spec.namespace`, from every authorizer of the chain that can list rules. An authorizer
 * that cannot (Webhook, Node for a node) makes the answer incomplete and names itself in
 * evaluationError. Like kube, the answer is a new review: empty spec, rules in status.
 */
export class RulesReviewStorage implements ResourceStorage {
  private readonly request: ReviewRequest;

  constructor(
    type: ResourceType,
    private readonly chain: AuthorizerChain,
  ) {
    this.request = new ReviewRequest(type);
  }

  async create(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    this.request.checkTypeMeta(target, body);
    const namespace = (body as RulesReview).spec?.namespace;
    if (!namespace) throw errors.badRequest('no namespace on request');
    const rules = await this.chain.rulesFor(opts.user, namespace, opts.receivedAt);
    const answer = this.request.answer(target, { metadata: { creationTimestamp: null }, spec: {}, status: rulesReviewStatusToWire(rules) });
    return { object: answer, created: true };
  }
}
