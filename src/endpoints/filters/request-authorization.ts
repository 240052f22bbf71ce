import { Inject, Injectable } from '@nestjs/common';
import { ApiRequest } from '../request/request-context';
import { addAuditAnnotation } from '../../audit/audit-context';
import { anonymousUser } from '../../apimachinery/user-info';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { AuthorizerChain } from '../../authorization/authorizer-chain';
import { forbiddenError } from '../../authorization/forbidden';
import { attributesOf } from './request-attributes';

export const DECISION_ANNOTATION = 'authorization.platform.io/decision';
export const REASON_ANNOTATION = 'authorization.platform.io/reason';

/**
 * The authorization stage of a request (kube's WithAuthorization): the chain's decision for
 * what the request info says the caller does, recorded on the audit event; anything but an
 * allow is kube's 403. Resource requests pass it in the request pipeline, routed endpoints
 * through the guard.
 */
@Injectable()
export class RequestAuthorization {
  private readonly authorizeWithSelectors: boolean;

  constructor(
    private readonly chain: AuthorizerChain,
    @Inject(SERVER_OPTIONS) options: ServerOptions,
  ) {
    this.authorizeWithSelectors = options.featureGates.enabled('AuthorizeWithSelectors');
  }

  async authorize(req: ApiRequest): Promise<void> {
    const attrs = attributesOf(req.requestInfo, req.userInfo ?? anonymousUser(), req.query as Record<string, unknown>, {
      authorizeWithSelectors: this.authorizeWithSelectors,
    });
    const result = await this.chain.authorize(attrs, { arrivedAt: req.receivedAt });
    addAuditAnnotation(req, DECISION_ANNOTATION, result.decision === 'Allow' ? 'allow' : 'forbid');
    addAuditAnnotation(req, REASON_ANNOTATION, result.reason ?? '');
    if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
  }
}
