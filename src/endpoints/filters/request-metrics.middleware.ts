import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { recordLongRunningStarted, recordRequest, RequestLabels } from '../../metrics/request-metrics';
import { IncomingRequest } from '../request/request-scope';
import { requestMetricLabels } from '../request/request-metric-labels';
import { ResourceRegistry } from '../../registry/resources/registry';

/** The labels of kube's request metrics for a request answered with `code`. */
export function metricLabelsOf(req: IncomingRequest, registry: ResourceRegistry, code: number): RequestLabels {
  const info = req.scope.info;
  return requestMetricLabels({
    info,
    method: req.method,
    path: req.path,
    contentType: req.headers['content-type'],
    dryRun: (req.query as Record<string, unknown>).dryRun,
    served: info.isResourceRequest && registry.isServed(info.apiPrefix === 'api' ? '' : info.apiGroup, info.apiVersion, info.resource),
    code,
  });
}

/**
 * The pipeline stage after request info: kube's request metrics for every request,
 * whatever answers it (401 and 403 included): a watch as a long-running request while it
 * runs, then each request counted with its code, latency and (for reads) the size of its
 * response once the response closes. The in-flight gauge is the in-flight limit's, which
 * counts the requests it admits (after authentication, as kube's).
 */
@Injectable()
export class RequestMetricsMiddleware implements NestMiddleware {
  private readonly enabled: boolean;

  constructor(
    private readonly registry: ResourceRegistry,
    @Inject(SERVER_OPTIONS) options: ServerOptions,
  ) {
    this.enabled = options.requestMetrics;
  }

  use(req: IncomingRequest, res: Response, next: NextFunction): void {
    if (!this.enabled) return next();
    const started = performance.now();
    const info = req.scope.info;
    const labelsAt = (code: number) => metricLabelsOf(req, this.registry, code);
    const watch = info.isResourceRequest && info.verb === 'watch';
    // kube tracks long-running requests on their own.
    const endLongRunning = watch ? recordLongRunningStarted(labelsAt(200)) : undefined;
    const sized = req.method === 'GET' && !watch;
    let bytes = 0;
    if (sized) {
      const write = res.write;
      const end = res.end;
      const count = (chunk: unknown, encoding?: unknown) => {
        if (typeof chunk === 'string') bytes += Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
        else if (chunk instanceof Uint8Array) bytes += chunk.byteLength;
      };
      res.write = function (this: Response, chunk: unknown, ...rest: unknown[]) {
        count(chunk, rest[0]);
        return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
      } as Response['write'];
      res.end = function (this: Response, chunk?: unknown, ...rest: unknown[]) {
        if (typeof chunk !== 'function') count(chunk, rest[0]);
        return (end as (...a: unknown[]) => Response).call(this, chunk, ...rest);
      } as Response['end'];
    }
    res.once('close', () => {
      endLongRunning?.();
      recordRequest(labelsAt(res.statusCode), res.statusCode, (performance.now() - started) / 1000, bytes);
    });
    next();
  }
}
