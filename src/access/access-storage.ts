import { ResourceStorage, Target, WriteOptions, WriteResult } from '../registry/rest/storage';
import { ResourceType, StrategyContext } from '../runtime/schema/resource-type';
import { KubeObject } from '../apimachinery/types';
import { ReviewRequest } from '../reviews/review-request';
import { reviewMetadataToWire } from '../reviews/review-wire';

/** The answer to one decoded, validated question: the spec as echoed and the status. */
export type AccessAnswer<Spec> = (spec: Spec, opts: WriteOptions, target: Target) => Promise<{ spec: unknown; status: unknown }> | { spec: unknown; status: unknown };

/**
 * The create-only storage of every access.platform.io kind, as the access reviews' storage
 * works: the body's TypeMeta and namespace are checked, managedFields recorded, the kind's
 * strategy defaults and validates (422 with causes), and the answer is the object with its
 * status. Nothing is stored and no watch event is sent; a dry run gets the same answer.
 */
export class AccessStorage<Spec extends object> implements ResourceStorage {
  private readonly request: ReviewRequest;

  constructor(
    private readonly type: ResourceType,
    private readonly answerOf: AccessAnswer<Spec>,
    /** Run on the decoded spec before validation (dropping fields a feature gate hides). */
    private readonly normalize: (spec: Spec) => void = () => undefined,
  ) {
    this.request = new ReviewRequest(type, { spec: {}, status: {} });
  }

  async create(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    const review = this.request.decode<Spec>(target, body, opts);
    const spec = (review.spec ??= {} as Spec);
    this.normalize(spec);
    const ctx: StrategyContext = { user: opts.user, namespace: target.namespace, dryRun: opts.dryRun };
    const object = review as unknown as KubeObject;
    this.type.strategy.prepareForCreate?.(object, ctx);
    const errs = this.type.strategy.validate(object, ctx);
    if (errs.length) throw this.request.invalid(target, errs);
    const answer = await this.answerOf(spec, opts, target);
    return { object: this.request.answer(target, { metadata: reviewMetadataToWire(review.metadata), ...answer }), created: true };
  }
}
