import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '../apimachinery/public.decorator';
import { ApiRequest } from '../api/request/request-context';
import { addAuditAnnotation } from '../api/request/audit-context';
import { anonymousUser } from '../apimachinery/user-info';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { AuthorizerChain } from './authorizer-chain';
import { forbiddenError } from './forbidden';
import { attributesOf } from './request-attributes';

export const DECISION_ANNOTATION = 'authorization.platform.io/decision';
export const REASON_ANNOTATION = 'authorization.platform.io/reason';

/** Third stage of the pipeline: deny by default; public endpoints opt out explicitly. */
@Injectable()
export class AuthorizationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly chain: AuthorizerChain,
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
  ) {}

  /** Whether a controller's handler is public: metadata is fixed at start, so it is read once. */
  private readonly publicHandlers = new WeakMap<object, WeakMap<object, boolean>>();

  private isPublic(context: ExecutionContext): boolean {
    const controller = context.getClass();
    const handler = context.getHandler();
    let handlers = this.publicHandlers.get(controller);
    if (!handlers) this.publicHandlers.set(controller, (handlers = new WeakMap()));
    let isPublic = handlers.get(handler);
    if (isPublic === undefined) {
      isPublic = Boolean(this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, controller]));
      handlers.set(handler, isPublic);
    }
    return isPublic;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isPublic(context)) return true;
    const req = context.switchToHttp().getRequest<ApiRequest>();
    const attrs = attributesOf(req.requestInfo, req.userInfo ?? anonymousUser(), req.query as Record<string, unknown>, {
      authorizeWithSelectors: this.options.featureGates.enabled('AuthorizeWithSelectors'),
    });
    const result = await this.chain.authorize(attrs);
    // kube's WithAuthorization annotates the audit event with the decision and its reason.
    addAuditAnnotation(req, DECISION_ANNOTATION, result.decision === 'Allow' ? 'allow' : 'forbid');
    addAuditAnnotation(req, REASON_ANNOTATION, result.reason ?? '');
    if (result.decision === 'Allow') return true;
    throw forbiddenError(attrs, result.reason);
  }
}
