import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { errors, StatusError } from '../apimachinery/errors';
import { IS_PUBLIC } from '../apimachinery/public.decorator';
import { ApiRequest } from '../api/request-context';
import { anonymousUser } from '../apimachinery/user-info';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { AuthorizationAttributes } from './authorizer';
import { AuthorizerChain } from './authorizer-chain';
import { attributesOf } from './request-attributes';

/** kube's forbidden message for a denied request, plus the authorizer's reason. */
export function forbiddenError(attrs: AuthorizationAttributes, reason?: string): StatusError {
  const user = attrs.user.username;
  const why = reason ? `: ${reason}` : '';
  if (!attrs.isResourceRequest) return errors.forbidden('', `User "${user}" cannot ${attrs.verb} path "${attrs.path}"${why}`);
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
  const message = `User "${user}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}" ${scope}${why}`;
  return errors.forbiddenResource({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, message);
}

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
    if (result.decision === 'Allow') return true;
    throw forbiddenError(attrs, result.reason);
  }
}
