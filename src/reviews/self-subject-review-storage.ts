import { ResourceType } from '../runtime/schema/resource-type';
import { ResourceStorage, Target, WriteOptions, WriteResult } from '../registry/rest/storage';
import { nowTimestamp } from '../apimachinery/system-metadata';
import { ReviewRequest } from './review-request';
import { userInfoToWire } from './review-wire';

/**
 * SelfSubjectReview (authentication.platform.io/v1, kube's `kubectl auth whoami`): who the
 * server thinks the caller is, impersonation already applied. kube answers with a new
 * object stamped with the current time.
 */
export class SelfSubjectReviewStorage implements ResourceStorage {
  private readonly request: ReviewRequest;

  constructor(type: ResourceType) {
    this.request = new ReviewRequest(type);
  }

  async create(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    this.request.checkTypeMeta(target, body);
    const answer = this.request.answer(target, {
      metadata: { creationTimestamp: nowTimestamp() },
      status: { userInfo: userInfoToWire(opts.user) },
    });
    return { object: answer, created: true };
  }
}
