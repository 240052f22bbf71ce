import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { RequestBodyMiddleware } from './request-body.middleware';
import { ApiRequest } from '../request/request-context';
import { RequestInfoMiddleware } from './request-info.middleware';
import { RequestMetricsMiddleware } from './request-metrics.middleware';
import { AuthenticationMiddleware } from './authentication.middleware';
import { ImpersonationMiddleware } from './impersonation.middleware';
import { RequestAuditor } from './request-auditor';
import { ResourceRoutes } from '../handlers/resource-routes';
import { RequestAuthorization } from './request-authorization';
import { RequestTimeoutMiddleware } from './request-timeout.middleware';
import { MaxInflightMiddleware } from './max-inflight.middleware';
import { deadlinePassed } from '../../registry/rest/request-deadline';

/**
 * The stages every request passes before routing, in order: its audit ID, what the request
 * is, its metrics (recorded when it ends), its deadline, who sends it, its audit level (for
 * that caller, as kube evaluates the policy before impersonation), as whom it acts, its place
 * among the requests in flight, then (only for them) its body. One express middleware runs
 * them (`asMiddleware`, the application's only one), so the router matches one layer instead
 * of several on every request. A stage that throws ends the request (the Status filter
 * renders the error); each stage continues by calling its `next`. A resource request is then authorized and
 * served by the resource route table; anything else goes on to the routed endpoints
 * (discovery, health, metrics, ...), whose guard authorizes it. A request whose deadline
 * passed while a stage was waiting (its client has had the 504) goes no further.
 */
@Injectable()
export class RequestPipelineMiddleware implements NestMiddleware {
  private readonly stages: NestMiddleware[];

  constructor(
    info: RequestInfoMiddleware,
    metrics: RequestMetricsMiddleware,
    timeout: RequestTimeoutMiddleware,
    authentication: AuthenticationMiddleware,
    impersonation: ImpersonationMiddleware,
    inflight: MaxInflightMiddleware,
    body: RequestBodyMiddleware,
    audit: RequestAuditor,
    private readonly authorization: RequestAuthorization,
    private readonly resources: ResourceRoutes,
  ) {
    this.stages = [audit.init, info, metrics, timeout, authentication, audit.received, impersonation, inflight, body];
  }

  /**
   * The pipeline as the application's first middleware, behind the stages the server adds
   * from outside the module (the request log, shutdown's count of requests in flight).
   * One express layer: each further one would cost every request a match and closures.
   */
  asMiddleware(...first: Array<(req: ApiRequest, res: Response, next: NextFunction) => void>): (req: ApiRequest, res: Response, next: NextFunction) => Promise<void> {
    const stages = [...first.map((use) => ({ use })), ...this.stages];
    return (req, res, next) => this.run(stages, req, res, next);
  }

  use(req: ApiRequest, res: Response, next: NextFunction): Promise<void> {
    return this.run(this.stages, req, res, next);
  }

  private async run(stages: readonly NestMiddleware[], req: ApiRequest, res: Response, next: NextFunction): Promise<void> {
    // One continuation for all stages of the request, and only stages that work
    // asynchronously are awaited: the pipeline runs on every request.
    let continued = false;
    let failure: unknown;
    const proceed = (err?: unknown) => {
      continued = true;
      failure = err;
    };
    for (const stage of stages) {
      continued = false;
      const pending: unknown = stage.use(req, res, proceed);
      if (pending instanceof Promise) {
        await pending;
        if (deadlinePassed(req)) return;
      }
      if (failure !== undefined) return next(failure);
      if (!continued) return;
    }
    if (!this.resources.serves(req)) return next();
    try {
      await this.authorization.authorize(req);
      if (deadlinePassed(req)) return;
      await this.resources.serve(req, res);
    } catch (err) {
      next(err);
    }
  }
}
