import { Controller, Delete, Get, Patch, Post, Put, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RequestOptionsPipe, ResourceApiRequest, ResourceRequest } from './request-options.pipe';
import { ResourceHandler } from './resource-handler';

/** Core group paths, then named group paths; the handler resolves the kind from request info. */
const RESOURCE_PATHS = ['api/v1/*rest', 'apis/:group/:version/*rest'];

/** The one controller for every kind: each verb is a line that calls the shared handler. */
@Controller()
export class ResourceController {
  constructor(private readonly handler: ResourceHandler) {}

  @Get(RESOURCE_PATHS)
  read(@ResourceRequest(RequestOptionsPipe) req: ResourceApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.read(req, res);
  }

  @Post(RESOURCE_PATHS)
  create(@ResourceRequest(RequestOptionsPipe) req: ResourceApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.create(req, res);
  }

  @Put(RESOURCE_PATHS)
  update(@ResourceRequest(RequestOptionsPipe) req: ResourceApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.update(req, res);
  }

  @Patch(RESOURCE_PATHS)
  patch(@ResourceRequest(RequestOptionsPipe) req: ResourceApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.patch(req, res);
  }

  @Delete(RESOURCE_PATHS)
  delete(@ResourceRequest(RequestOptionsPipe) req: ResourceApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.delete(req, res);
  }
}
