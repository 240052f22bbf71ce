import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { ApiRequest } from '../api/request/request-context';
import { Authenticator } from './authenticator';

/** Second stage of the pipeline: who is calling (401 for a bad credential). */
@Injectable()
export class AuthenticationMiddleware implements NestMiddleware {
  constructor(private readonly authenticator: Authenticator) {}

  async use(req: ApiRequest, res: Response, next: NextFunction): Promise<void> {
    req.userInfo = await this.authenticator.authenticate(req, res);
    next();
  }
}
