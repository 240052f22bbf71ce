import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '../../apimachinery/public.decorator';
import { addAuditAnnotation } from '../../audit/audit-context';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { AuthorizerChain } from '../../authorization/authorizer-chain';
import { AuthorizationAttributes, AuthorizationResult } from '../../authorization/authorizer';
import { forbiddenError } from '../../authorization/forbidden';
import { ApiRequest } from '../request/request-scope';
import { attributesOf } from './request-attributes';

export const DECISION_ANNOTATION = 'authorization.platform.io/decision';
export const REASON_ANNOTATION = 'authorization.platform.io/reason';
/** The AccessGuardrail that denied the request, when one did. */
export const GUARDRAIL_ANNOTATION = 'access.platform.io/guardrail';

/**
 * The authorization stage of every request (kube's WithAuthorization), as the global guard:
 * the authorizer chain's decision for what the request's scope says the caller does,
 * recorded on the audit event; anything but an allow is kube's 403. Resource paths, discovery
 * and every other route pass it; only endpoints marked `@Public()` (health probes, the
 * issuer's discovery documents) opt out, explicitly.
 */
@Injectable()
export class AuthorizationGuard implements CanActivate {
  private readonly authorizeWithSelectors: boolean;
  /** Whether a controller's handler is public: metadata is fixed at start, so it is read once. */
  private readonly publicHandlers = new WeakMap<object, WeakMap<object, boolean>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly chain: AuthorizerChain,
    @Inject(SERVER_OPTIONS) options: ServerOptions,
  ) {
    this.authorizeWithSelectors = options.featureGates.enabled('AuthorizeWithSelectors');
  }

  /** Answers at once when the decision does (Nest then awaits nothing more). */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (this.isPublic(context)) return true;
    const req = context.switchToHttp().getRequest<ApiRequest>();
    const scope = req.scope;
    const attrs = attributesOf(scope.info, scope.user, req.query as Record<string, unknown>, { authorizeWithSelectors: this.authorizeWithSelectors });
    const result = this.chain.decide(attrs, { arrivedAt: scope.receivedAt });
    if (result instanceof Promise) return result.then((decided) => this.admit(scope, attrs, decided));
    return this.admit(scope, attrs, result);
  }

  /** The decision recorded on the audit event; anything but an allow is kube's 403. */
  private admit(scope: ApiRequest['scope'], attrs: AuthorizationAttributes, result: AuthorizationResult): true {
    const { audit, deadline } = scope;
    addAuditAnnotation(audit, DECISION_ANNOTATION, result.decision === 'Allow' ? 'allow' : 'forbid');
    addAuditAnnotation(audit, REASON_ANNOTATION, result.reason ?? '');
    if (result.guardrail) addAuditAnnotation(audit, GUARDRAIL_ANNOTATION, result.guardrail);
    if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
    // The client had its 504 while the decision was awaited: the request goes no further.
    deadline?.check();
    return true;
  }

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
}
