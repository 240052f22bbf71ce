import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { RequestBodyMiddleware } from './request-body.middleware';
import { IncomingRequest } from '../request/request-scope';
import { RequestInfoMiddleware } from './request-info.middleware';
import { RequestMetricsMiddleware } from './request-metrics.middleware';
import { AuthenticationMiddleware } from './authentication.middleware';
import { ImpersonationMiddleware } from './impersonation.middleware';
import { RequestAuditor } from './request-auditor';
import { RequestTimeoutMiddleware } from './request-timeout.middleware';
import { MaxInflightMiddleware } from './max-inflight.middleware';

type Stage = (req: IncomingRequest, res: Response, next: NextFunction) => void;

/**
 * The request chain: every request, resource or not, passes these stages in this order
 * (kube's DefaultBuildHandlerChain, outermost first).
 *
 * Before routing, in this middleware:
 *  1. request info and scope — when it arrived, its audit ID, what it is about (RequestInfoMiddleware)
 *  2. the stages the server adds (the request log, shutdown's count of requests in flight)
 *  3. audit init — the clock and end-of-request hook of the audit trail (RequestAuditor.init)
 *  4. metrics — recorded when the request ends (RequestMetricsMiddleware)
 *  5. deadline — the 504 of a request that is not long-running (RequestTimeoutMiddleware)
 *  6. authentication — who is calling, by passport strategies per method (AuthenticationMiddleware)
 *  7. audit — the policy's level for that caller, before impersonation (RequestAuditor.received)
 *  8. impersonation — as whom it acts (ImpersonationMiddleware)
 *  9. in-flight limits — its place among the requests in flight (MaxInflightMiddleware)
 * 10. body — read, up to the size limit (RequestBodyMiddleware)
 * Then Nest routes the request, and its own parts run (registered in FiltersModule and on
 * the resource controller):
 * 11. authorization — the global guard, the one place a request is authorized (AuthorizationGuard)
 * 12. for resource paths, the pipes that settle the request's scope: content negotiation
 *     (the kind resolved once, 404 and 406), write options (dryRun, fieldValidation, ...),
 *     read options (ResourceController)
 * 13. the handler: the resource controller, discovery, OpenAPI, health, metrics, ... or the
 *     unknown-path route's 404
 * and every error, at any stage, leaves through the one exception filter as a Status
 * (StatusExceptionFilter).
 *
 * One express middleware runs stages 1–10 (`asMiddleware`, the application's only one), so
 * the router matches one layer instead of several on every request. A stage that throws ends
 * the request (the Status filter renders the error); each continues by calling its `next`. A
 * request whose deadline passed while a stage was waiting (its client has had the 504) goes
 * no further.
 */
@Injectable()
export class RequestPipelineMiddleware implements NestMiddleware {
  private readonly first: Stage;
  private readonly stages: Stage[];

  constructor(
    info: RequestInfoMiddleware,
    metrics: RequestMetricsMiddleware,
    timeout: RequestTimeoutMiddleware,
    authentication: AuthenticationMiddleware,
    impersonation: ImpersonationMiddleware,
    inflight: MaxInflightMiddleware,
    body: RequestBodyMiddleware,
    audit: RequestAuditor,
  ) {
    const stage = (middleware: NestMiddleware): Stage => middleware.use.bind(middleware) as Stage;
    this.first = stage(info);
    this.stages = [audit.init, metrics, timeout, authentication, audit.received, impersonation, inflight, body].map(stage);
  }

  /** The chain as the application's first middleware, with the server's own stages after the scope is made. */
  asMiddleware(...added: Stage[]): (req: Request, res: Response, next: NextFunction) => Promise<void> {
    const stages = [this.first, ...added, ...this.stages];
    return (req, res, next) => this.run(stages, req as IncomingRequest, res, next);
  }

  use(req: Request, res: Response, next: NextFunction): Promise<void> {
    return this.run([this.first, ...this.stages], req as IncomingRequest, res, next);
  }

  private async run(stages: readonly Stage[], req: IncomingRequest, res: Response, next: NextFunction): Promise<void> {
    // One continuation for all stages of the request, and only stages that work
    // asynchronously are awaited: the chain runs on every request.
    let continued = false;
    let failure: unknown;
    const proceed = (err?: unknown) => {
      continued = true;
      failure = err;
    };
    for (const stage of stages) {
      continued = false;
      const pending: unknown = stage(req, res, proceed);
      if (pending instanceof Promise) {
        try {
          await pending;
        } catch (err) {
          return next(err);
        }
        if (req.scope.deadline?.expired) return;
      }
      if (failure !== undefined) return next(failure);
      if (!continued) return;
    }
    next();
  }
}
