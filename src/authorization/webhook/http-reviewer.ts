import { SubjectAccessReviewer } from './webhook-authorizer';
import { WebhookTransport } from '../../webhook-client/webhook-transport';
import {
  parseReviewResponse,
  reviewRequestBody,
  SubjectAccessReviewSpec,
  SubjectAccessReviewStatus,
  SubjectAccessReviewVersionName,
} from './subject-access-review';

/** Posts SubjectAccessReviews of one version to the webhook and decodes the answers. */
export class HttpSubjectAccessReviewer implements SubjectAccessReviewer {
  constructor(
    private readonly transport: WebhookTransport,
    private readonly version: SubjectAccessReviewVersionName,
    private readonly timeoutMs: number,
  ) {}

  review(spec: SubjectAccessReviewSpec): Promise<SubjectAccessReviewStatus> {
    const body = JSON.stringify(reviewRequestBody(spec, this.version));
    return this.transport.post(body, this.timeoutMs, (text) => parseReviewResponse(text, this.version));
  }

  close(): void {
    this.transport.close();
  }
}
