import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { RequestBodyMiddleware } from '../api/request-body.middleware';
import { ApiRequest } from '../api/request/request-context';
import { RequestInfoMiddleware } from '../api/request-info.middleware';
import { RequestMetricsMiddleware } from '../api/request-metrics.middleware';
import { AuthenticationMiddleware } from '../authentication/authentication.middleware';
import { ImpersonationMiddleware } from '../authentication/impersonation.middleware';
import { RequestAuditor } from '../audit/request-auditor';

/**
 * The stages every request passes before routing, in order: its audit ID, what the request
 * is, its metrics (recorded when it ends), who sends it, its audit level (for that caller, as
 * kube evaluates the policy before impersonation), as whom it acts, then (only for them) its
 * body. One Nest middleware runs them, so the
 * router matches one layer instead of four on every request. A stage that throws ends the
 * request (the Status filter renders the error); each stage continues by calling its `next`.
 */
@Injectable()
export class RequestPipelineMiddleware implements NestMiddleware {
  private readonly stages: NestMiddleware[];

  constructor(
    info: RequestInfoMiddleware,
    metrics: RequestMetricsMiddleware,
    authentication: AuthenticationMiddleware,
    impersonation: ImpersonationMiddleware,
    body: RequestBodyMiddleware,
    audit: RequestAuditor,
  ) {
    this.stages = [audit.init, info, metrics, authentication, audit.received, impersonation, body];
  }

  async use(req: ApiRequest, res: Response, next: NextFunction): Promise<void> {
    // One continuation for all stages of the request, and only stages that work
    // asynchronously are awaited: the pipeline runs on every request.
    let continued = false;
    let failure: unknown;
    const proceed = (err?: unknown) => {
      continued = true;
      failure = err;
    };
    for (const stage of this.stages) {
      continued = false;
      const pending: unknown = stage.use(req, res, proceed);
      if (pending instanceof Promise) await pending;
      if (failure !== undefined) return next(failure);
      if (!continued) return;
    }
    next();
  }
}
