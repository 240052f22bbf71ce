import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '../../apimachinery/public.decorator';
import { ApiRequest } from '../request/request-context';
import { RequestAuthorization } from './request-authorization';

/** The authorization stage of routed endpoints: deny by default; public endpoints opt out explicitly. */
@Injectable()
export class AuthorizationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authorization: RequestAuthorization,
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
    if (!this.isPublic(context)) await this.authorization.authorize(context.switchToHttp().getRequest<ApiRequest>());
    return true;
  }
}
