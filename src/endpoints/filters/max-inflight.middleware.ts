import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { errors } from '../../apimachinery/errors';
import { SYSTEM_MASTERS } from '../../apimachinery/user-info';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { recordDroppedRequest, recordRequestTermination } from '../../metrics/request-limit-metrics';
import { recordRequestStarted, RequestKind } from '../../metrics/request-metrics';
import { metricLabelsOf } from './request-metrics.middleware';
import { ApiRequest } from '../request/request-scope';
import { isHealthProbe, isLongRunning } from '../request/long-running';
import { requestKindOf } from '../request/request-metric-labels';
import { ResourceRegistry } from '../../registry/resources/registry';

/** kube's maxinflight filter: its answer beyond the limit, and the wait it asks for. */
export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';
export const TOO_MANY_REQUESTS_RETRY_AFTER_SECONDS = 1;

/** Requests served at once, per kind, against `--max-requests-inflight` and `--max-mutating-requests-inflight` (0: no limit). */
export class InflightLimiter {
  private readonly inFlight: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };

  constructor(private readonly limits: Record<RequestKind, number>) {}

  /** Takes a place for a request of this kind; false when all are taken. */
  tryAcquire(kind: RequestKind): boolean {
    const limit = this.limits[kind];
    if (limit > 0 && this.inFlight[kind] >= limit) return false;
    this.inFlight[kind]++;
    return true;
  }

  release(kind: RequestKind): void {
    this.inFlight[kind]--;
  }

  count(kind: RequestKind): number {
    return this.inFlight[kind];
  }
}

/**
 * The pipeline stage after impersonation, before authorization (kube's WithMaxInFlightLimit):
 * reads (get, list) and writes each have a number of places; a request finding none taken is
 * refused at once with 429 and Retry-After. Long-running requests (watches) take no place, nor
 * do the health probes; a member of system:masters is never refused (kube: it is a super-admin
 * or the server itself) and holds no place when it goes beyond the limit. A place is freed when
 * the response closes. The places in use are kube's in-flight gauge.
 */
@Injectable()
export class MaxInflightMiddleware implements NestMiddleware {
  private readonly limiter: InflightLimiter;
  private readonly gauged: boolean;

  constructor(
    @Inject(SERVER_OPTIONS) options: ServerOptions,
    private readonly registry: ResourceRegistry,
  ) {
    this.limiter = new InflightLimiter({ readOnly: options.maxRequestsInFlight, mutating: options.maxMutatingRequestsInFlight });
    this.gauged = options.requestMetrics;
  }

  use(req: ApiRequest, res: Response, next: NextFunction): void {
    const info = req.scope.info;
    if (isLongRunning(info) || isHealthProbe(info)) return next();
    const kind = requestKindOf(req.method, info);
    if (!this.limiter.tryAcquire(kind)) {
      if (req.scope.user.groups.includes(SYSTEM_MASTERS)) return next();
      recordDroppedRequest(kind);
      recordRequestTermination(metricLabelsOf(req, this.registry, 429), 429);
      return next(errors.tooManyRequests(TOO_MANY_REQUESTS_MESSAGE, TOO_MANY_REQUESTS_RETRY_AFTER_SECONDS));
    }
    const endGauge = this.gauged ? recordRequestStarted(kind) : undefined;
    const release = () => {
      this.limiter.release(kind);
      endGauge?.();
    };
    // A client gone already (its response closed while it was authenticated) frees its place at once.
    if (res.destroyed) release();
    else res.once('close', release);
    next();
  }
}
