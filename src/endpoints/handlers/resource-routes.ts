import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { ApiRequest } from '../request/request-context';
import { ResourceHandler } from './resource-handler';
import { ResourceApiRequest, ResourceRequestOptions } from './resource-request-options';

type VerbHandler = (handler: ResourceHandler, req: ResourceApiRequest, res: Response) => Promise<void>;

/** The handler of each HTTP method a resource path serves (HEAD is a GET whose body is not sent). */
const METHOD_HANDLERS: Record<string, VerbHandler> = {
  GET: (h, req, res) => h.read(req, res),
  HEAD: (h, req, res) => h.read(req, res),
  POST: (h, req, res) => h.create(req, res),
  PUT: (h, req, res) => h.update(req, res),
  PATCH: (h, req, res) => h.patch(req, res),
  DELETE: (h, req, res) => h.delete(req, res),
};

/**
 * The route table of every resource path (`/api/v1/...`, `/apis/{group}/{version}/...`): the
 * request info already says the request is one, so it is served by its method's handler
 * without a walk through the router's layers, which matched and decoded the path against
 * each route pattern in turn (the largest share of a review's allocations). Every kind
 * takes this one path; what the path names is settled by the request options (404, 405).
 */
@Injectable()
export class ResourceRoutes {
  constructor(
    private readonly options: ResourceRequestOptions,
    private readonly handler: ResourceHandler,
  ) {}

  /** Whether a request is served here: resource request info exists only for the methods above. */
  serves(req: ApiRequest): boolean {
    return req.requestInfo?.isResourceRequest === true && METHOD_HANDLERS[req.method] !== undefined;
  }

  /** Serves an authorized resource request; a refusal or failure rejects with the error to render. */
  serve(req: ApiRequest, res: Response): Promise<void> {
    return METHOD_HANDLERS[req.method](this.handler, this.options.settle(req), res);
  }
}
