import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { errors } from '../../apimachinery/errors';
import { recordImpersonationConstraint } from '../../audit/audit-context';
import { advanceScope, ApiRequest, RequestScope } from '../request/request-scope';
import { UserInfo } from '../../apimachinery/user-info';
import { AuthorizerChain } from '../../authorization/authorizer-chain';
import { forbiddenError } from '../../authorization/forbidden';
import { attributesOf } from './request-attributes';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { ConstrainedImpersonation, wantedUserFromHeaders } from '../../authentication/impersonation/constrained-impersonation';
import { impersonationAttributes, impersonationFromHeaders, ImpersonationRequestError, isImpersonationHeader } from '../../authentication/impersonation/impersonation';

/** Header lines as received: node joins repeated headers in req.headers, kube reads each one. */
function headerPairs(raw: string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i], raw[i + 1]]);
  return pairs;
}

/** A malformed impersonation request is a 400. */
function parsed<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ImpersonationRequestError) throw errors.badRequest(err.message);
    throw err;
  }
}

/**
 * Third stage of the pipeline (after authentication, before authorization): the caller
 * continues as the identity the Impersonate-* headers ask for, once allowed; otherwise 403
 * with kube's message. The headers are removed.
 *
 * With the ConstrainedImpersonation gate (kube's WithConstrainedImpersonation) the
 * constrained modes are tried before the legacy `impersonate` verb, and the audit event
 * records the verb that allowed a constrained impersonation; without it (kube's
 * WithImpersonation) only `impersonate` is asked, part by part.
 */
@Injectable()
export class ImpersonationMiddleware implements NestMiddleware {
  private readonly constrained?: ConstrainedImpersonation;
  private readonly authorizeWithSelectors: boolean;

  constructor(
    private readonly chain: AuthorizerChain,
    @Inject(SERVER_OPTIONS) options: Pick<ServerOptions, 'featureGates'>,
  ) {
    const gates = options.featureGates;
    if (gates.enabled('ConstrainedImpersonation')) this.constrained = new ConstrainedImpersonation((attrs, options) => this.chain.authorize(attrs, options));
    this.authorizeWithSelectors = gates.enabled('AuthorizeWithSelectors');
  }

  async use(req: ApiRequest, _res: Response, next: NextFunction): Promise<void> {
    // Nearly no request impersonates: look at the header names before collecting anything.
    if (!Object.keys(req.headers).some(isImpersonationHeader)) return next();
    const requestor = req.scope.user;
    const impersonated = this.constrained ? await this.constrainedUser(this.constrained, req, requestor) : await this.legacyUser(req, requestor);
    if (!impersonated) return next();
    advanceScope<RequestScope>(req, { user: impersonated });
    removeImpersonationHeaders(req);
    next();
  }

  /** kube's WithImpersonation: `impersonate` on every part of the identity. */
  private async legacyUser(req: ApiRequest, requestor: UserInfo): Promise<UserInfo | undefined> {
    const impersonation = parsed(() => impersonationFromHeaders(headerPairs(req.rawHeaders)));
    if (!impersonation) return undefined;
    for (const request of impersonation.requests) {
      const attrs = impersonationAttributes(request, requestor);
      const result = await this.chain.authorize(attrs, { arrivedAt: req.scope.receivedAt });
      if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
    }
    return impersonation.user;
  }

  /** kube's WithConstrainedImpersonation: the modes, asked about this very request. */
  private async constrainedUser(constrained: ConstrainedImpersonation, req: ApiRequest, requestor: UserInfo): Promise<UserInfo | undefined> {
    const wanted = parsed(() => wantedUserFromHeaders(headerPairs(req.rawHeaders)));
    if (!wanted) return undefined;
    const request = attributesOf(req.scope.info, requestor, req.query as Record<string, unknown>, { authorizeWithSelectors: this.authorizeWithSelectors });
    const { user, constraint } = await constrained.impersonate(wanted, request, req.scope.receivedAt);
    recordImpersonationConstraint(req.scope.audit, constraint);
    return user;
  }
}

function removeImpersonationHeaders(req: ApiRequest): void {
  for (const name of Object.keys(req.headers)) if (isImpersonationHeader(name)) delete req.headers[name];
  const kept: string[] = [];
  for (const [name, value] of headerPairs(req.rawHeaders)) if (!isImpersonationHeader(name)) kept.push(name, value);
  req.rawHeaders.splice(0, req.rawHeaders.length, ...kept);
}
