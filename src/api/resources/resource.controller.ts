import { Controller, Delete, Get, Patch, Post, Put, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiRequest } from '../request-context';
import { ResourceHandler } from './resource-handler';

/** Core group paths, then named group paths; the handler resolves the kind from request info. */
const RESOURCE_PATHS = ['api/v1/*rest', 'apis/:group/:version/*rest'];

/** The one controller for every kind: each verb is a line that calls the shared handler. */
@Controller()
export class ResourceController {
  constructor(private readonly handler: ResourceHandler) {}

  @Get(RESOURCE_PATHS)
  read(@Req() req: ApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.read(req, res);
  }

  @Post(RESOURCE_PATHS)
  create(@Req() req: ApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.create(req, res);
  }

  @Put(RESOURCE_PATHS)
  update(@Req() req: ApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.update(req, res);
  }

  @Patch(RESOURCE_PATHS)
  patch(@Req() req: ApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.patch(req, res);
  }

  @Delete(RESOURCE_PATHS)
  delete(@Req() req: ApiRequest, @Res() res: Response): Promise<void> {
    return this.handler.delete(req, res);
  }
}
