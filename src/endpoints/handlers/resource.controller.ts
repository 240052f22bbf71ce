import { Controller, createParamDecorator, Delete, ExecutionContext, Get, Patch, Post, Put, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiRequest, ResourceScope } from '../request/request-scope';
import { ContentNegotiationPipe } from './content-negotiation.pipe';
import { ResourceHandler } from './resource-handler';
import { ResourceOptionsPipe } from './resource-options.pipe';
import { WriteOptionsPipe } from './write-options.pipe';

/** kube's resource paths: below the core group's version, and below every named group's. */
const RESOURCE_PATHS = ['/api/:version/*path', '/apis/:group/:version/*path'];

/** The request, whose scope the pipes settle. */
const RequestScope = createParamDecorator((_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<ApiRequest>());

/**
 * A resource request's settled scope: the pipes resolve its kind and choose its response
 * (content negotiation: 404 and 406 before any work), then parse its write options (dryRun,
 * fieldValidation, ...), then its read options (405 first), in that order.
 *
 * They are pipes rather than interceptors: as interceptors the three cost a
 * SubjectAccessReview about 20 KiB of allocations and a third more CPU (Nest runs
 * interceptors through an rxjs pipeline and binds each continuation to the request's async
 * context), and all they do is settle the handler's input before it runs, which is what
 * Nest's pipes are for.
 */
const Settled = () => RequestScope(ContentNegotiationPipe, WriteOptionsPipe, ResourceOptionsPipe);

/**
 * The one controller of every kind's resource paths (a generic controller: which kind a path
 * names is the registry's, resolved by the first pipe). The global guard has authorized the
 * request; each HTTP method has its handler (HEAD is a GET whose body is not sent). Express
 * tries routes in the order they are declared here: creates first, as the reviews that
 * webhooks and proxies send on every request of theirs are creates.
 */
@Controller()
export class ResourceController {
  constructor(private readonly handler: ResourceHandler) {}

  @Post(RESOURCE_PATHS)
  create(@Settled() scope: ResourceScope, @Req() req: ApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.create(scope, req, res);
  }

  @Get(RESOURCE_PATHS)
  read(@Settled() scope: ResourceScope, @Req() req: ApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.read(scope, req, res);
  }

  @Put(RESOURCE_PATHS)
  update(@Settled() scope: ResourceScope, @Req() req: ApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.update(scope, req, res);
  }

  @Patch(RESOURCE_PATHS)
  patch(@Settled() scope: ResourceScope, @Req() req: ApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.patch(scope, req, res);
  }

  @Delete(RESOURCE_PATHS)
  delete(@Settled() scope: ResourceScope, @Req() req: ApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.delete(scope, req, res);
  }
}
