import { Controller, Delete, Get, Patch, Post, Put, Res } from '@nestjs/common';
import type { Response } from 'express';
import { advanceScope, ApiRequest, IncomingScope, ResourceScope, WriteOptionsScope } from '../request/request-scope';
import { Query } from '../../registry/options/read-options';
import { ContentNegotiationPipe } from './content-negotiation.pipe';
import { ResourceHandler } from './resource-handler';
import { ResourceOptionsPipe } from './resource-options.pipe';
import { WriteOptionsPipe } from './write-options.pipe';

/** kube's resource paths: below the core group's version, and below every named group's. */
const RESOURCE_PATHS = ['/api/:version/*path', '/apis/:group/:version/*path'];

/**
 * The one controller of every kind's resource paths (a generic controller: which kind a path
 * names is the registry's, resolved by the first pipe). The global guard has authorized the
 * request; each HTTP method has its handler (HEAD is a GET whose body is not sent). Express
 * tries routes in the order they are declared here: creates first, as the reviews that
 * webhooks and proxies send on every request of theirs are creates.
 *
 * Each handler first settles the request's scope with the pipes: they resolve its kind and
 * choose its response (content negotiation: 404 and 406 before any work), then parse its
 * write options (dryRun, fieldValidation, ...), then its read options (405 first), in that
 * order, and the request gets one scope with all three (one frozen copy of the scope rather
 * than three). They run here, one after the other, rather than as Nest's parameter pipes: Nest
 * runs those through several promises per parameter and pipe, which cost a SubjectAccessReview
 * about 5 KiB of allocations, and each pipe answers at once. (As interceptors, earlier, they
 * cost about 20 KiB and a third more CPU: Nest runs interceptors through an rxjs pipeline.)
 * The handlers' only parameter is the response, so Nest leaves it to them; the request is
 * the response's own.
 */
@Controller()
export class ResourceController {
  constructor(
    private readonly handler: ResourceHandler,
    private readonly negotiation: ContentNegotiationPipe,
    private readonly writeOptions: WriteOptionsPipe,
    private readonly resourceOptions: ResourceOptionsPipe,
  ) {}

  @Post(RESOURCE_PATHS)
  create(@Res() res: Response): Promise<void> {
    const req = res.req as ApiRequest;
    return this.handler.create(this.settle(req), req, res);
  }

  @Get(RESOURCE_PATHS)
  read(@Res() res: Response): Promise<void> {
    const req = res.req as ApiRequest;
    return this.handler.read(this.settle(req), req, res);
  }

  @Put(RESOURCE_PATHS)
  update(@Res() res: Response): Promise<void> {
    const req = res.req as ApiRequest;
    return this.handler.update(this.settle(req), req, res);
  }

  @Patch(RESOURCE_PATHS)
  patch(@Res() res: Response): Promise<void> {
    const req = res.req as ApiRequest;
    return this.handler.patch(this.settle(req), req, res);
  }

  @Delete(RESOURCE_PATHS)
  delete(@Res() res: Response): Promise<void> {
    const req = res.req as ApiRequest;
    return this.handler.delete(this.settle(req), req, res);
  }

  /**
   * The request's settled scope: kind and response, write options, then read options, given
   * to the request as one new scope. An error of the options is rendered for the kind, as
   * it would be after the first pipe.
   */
  private settle(req: ApiRequest): ResourceScope {
    const negotiated = this.negotiation.negotiate(req);
    try {
      const write = this.writeOptions.writeOptionsOf(req);
      const options = this.resourceOptions.optionsOf({ info: req.scope.info, target: negotiated.target, write }, req.query as Query);
      return advanceScope<ResourceScope & WriteOptionsScope>(req, { ...negotiated, write, options });
    } catch (err) {
      advanceScope<IncomingScope>(req, { rendering: negotiated.rendering });
      throw err;
    }
  }
}
