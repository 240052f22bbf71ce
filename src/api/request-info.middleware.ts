import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { ApiRequest } from './request-context';
import { resolveRequestInfo } from './request-info';

/** First stage of the pipeline: what the request is about, for authorization and handlers. */
@Injectable()
export class RequestInfoMiddleware implements NestMiddleware {
  use(req: ApiRequest, _res: Response, next: NextFunction): void {
    // Express 5's req.query parses the query string again on every read: read it once.
    const query = req.query;
    Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true, enumerable: true });
    req.requestInfo = resolveRequestInfo(req.method, req.originalUrl, query as Record<string, unknown>);
    next();
  }
}
