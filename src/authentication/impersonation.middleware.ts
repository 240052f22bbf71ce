import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { errors } from '../apimachinery/errors';
import { ApiRequest } from '../api/request/request-context';
import { forbiddenError } from '../authorization/forbidden';
import { AuthorizerChain } from '../authorization/authorizer-chain';
import { impersonationAttributes, impersonationFromHeaders, ImpersonationRequestError, isImpersonationHeader } from './impersonation';
import { anonymousUser } from '../apimachinery/user-info';

/** Header lines as received: node joins repeated headers in req.headers, kube reads each one. */
function headerPairs(raw: string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i], raw[i + 1]]);
  return pairs;
}

/**
 * Third stage of the pipeline (after authentication, before authorization): a caller
 * allowed to `impersonate` every part of the identity the Impersonate-* headers ask for
 * continues as that identity; otherwise 403 with kube's message. The headers are removed.
 */
@Injectable()
export class ImpersonationMiddleware implements NestMiddleware {
  constructor(private readonly chain: AuthorizerChain) {}

  async use(req: ApiRequest, _res: Response, next: NextFunction): Promise<void> {
    // Nearly no request impersonates: look at the header names before collecting anything.
    if (!Object.keys(req.headers).some(isImpersonationHeader)) return next();
    let impersonation;
    try {
      impersonation = impersonationFromHeaders(headerPairs(req.rawHeaders));
    } catch (err) {
      if (err instanceof ImpersonationRequestError) throw errors.badRequest(err.message);
      throw err;
    }
    if (!impersonation) return next();
    const requestor = req.userInfo ?? anonymousUser();
    for (const request of impersonation.requests) {
      const attrs = impersonationAttributes(request, requestor);
      const result = await this.chain.authorize(attrs);
      if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
    }
    req.userInfo = impersonation.user;
    removeImpersonationHeaders(req);
    next();
  }
}

function removeImpersonationHeaders(req: ApiRequest): void {
  for (const name of Object.keys(req.headers)) if (isImpersonationHeader(name)) delete req.headers[name];
  const kept: string[] = [];
  for (const [name, value] of headerPairs(req.rawHeaders)) if (!isImpersonationHeader(name)) kept.push(name, value);
  req.rawHeaders.splice(0, req.rawHeaders.length, ...kept);
}
