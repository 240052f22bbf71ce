import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { errors, StatusError } from '../../apimachinery/errors';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { DurationSyntaxError, parseGoDuration } from '../../config/go-duration';
import { recordRequestTermination } from '../../metrics/request-limit-metrics';
import { metricLabelsOf } from './request-metrics.middleware';
import { advanceScope, IncomingRequest, IncomingScope } from '../request/request-scope';
import { isLongRunning } from '../request/long-running';
import { RequestDeadline } from '../../registry/rest/request-deadline';
import { ResourceRegistry } from '../../registry/resources/registry';
import { writeStatus } from './status.filter';

/** kube's timeout filter's answer (WithTimeoutForNonLongRunningRequests). */
export const REQUEST_TIMEOUT_MESSAGE = 'request did not complete within the allotted timeout';
const INVALID_TIMEOUT = 'invalid timeout specified in the request URL';

/** Headers set before this stage (the audit ID, shutdown's Connection: close): a 504 keeps them, and only them. */
const OUTER_HEADERS = new Set(['audit-id', 'connection']);

/**
 * kube's WithRequestDeadline: the timeout of a request is `--request-timeout`, or the
 * `timeout` query parameter (a Go duration) when that is shorter and positive (0 sets none of
 * the client's own). A value that is not a duration is 400.
 */
export function requestTimeoutMs(timeoutParameter: unknown, maximumMs: number): number {
  const value: unknown = Array.isArray(timeoutParameter) ? (timeoutParameter as unknown[])[0] : timeoutParameter;
  if (typeof value !== 'string' || value === '') return maximumMs;
  let requested: number;
  try {
    requested = parseGoDuration(value);
  } catch (err) {
    if (err instanceof DurationSyntaxError) throw errors.badRequest(`${INVALID_TIMEOUT} - ${err.message}`);
    throw err;
  }
  return requested > 0 && requested < maximumMs ? requested : maximumMs;
}

const TIMED_OUT = new Error('http: Handler timeout');

/**
 * After the 504, what the request's work still writes goes nowhere (Go's http.ErrHandlerTimeout):
 * no "write after end", no header change on a sent response, and the status stays the one sent.
 */
function ignoreLaterWrites(res: Response): void {
  const sent = res.statusCode;
  const failCallback = (args: unknown[]) => {
    const callback = args.find((arg) => typeof arg === 'function') as ((err: Error) => void) | undefined;
    if (callback) process.nextTick(callback, TIMED_OUT);
  };
  const ignored = {
    writeHead(this: Response) {
      return this;
    },
    setHeader(this: Response) {
      return this;
    },
    appendHeader(this: Response) {
      return this;
    },
    removeHeader() {},
    flushHeaders() {},
    addTrailers() {},
    write(...args: unknown[]) {
      failCallback(args);
      return true;
    },
    end(this: Response, ...args: unknown[]) {
      failCallback(args);
      return this;
    },
  };
  Object.assign(res, ignored);
  Object.defineProperty(res, 'statusCode', { configurable: true, enumerable: true, get: () => sent, set: () => undefined });
}

/**
 * The pipeline stage before authentication (kube's WithRequestDeadline and timeout filter): a
 * request that is not long-running gets a deadline, and once it passes the client gets kube's
 * 504 Timeout Status at once. The request's work may still be running (kube lets the handler run
 * on); it stops at its next check of the deadline (see RequestDeadline) and whatever it writes
 * to the response afterwards is dropped. An answer already under way is cut off instead, as
 * kube aborts the connection.
 */
@Injectable()
export class RequestTimeoutMiddleware implements NestMiddleware {
  private readonly maximumMs: number;

  constructor(
    @Inject(SERVER_OPTIONS) options: ServerOptions,
    private readonly registry: ResourceRegistry,
  ) {
    this.maximumMs = options.requestTimeoutMs;
  }

  use(req: IncomingRequest, res: Response, next: NextFunction): void {
    if (isLongRunning(req.scope.info)) return next();
    let timeoutMs: number;
    try {
      timeoutMs = requestTimeoutMs((req.query as Record<string, unknown>).timeout, this.maximumMs);
    } catch (err) {
      return next(err);
    }
    const deadline = new RequestDeadline();
    advanceScope<IncomingScope>(req, { deadline });
    const timer = setTimeout(() => this.timeOut(req, res, deadline), timeoutMs);
    // Not a reason to keep the process up; every request's timer goes when its response closes.
    timer.unref();
    if (res.destroyed) clearTimeout(timer);
    else res.once('close', () => clearTimeout(timer));
    next();
  }

  private timeOut(req: IncomingRequest, res: Response, deadline: RequestDeadline): void {
    const err: StatusError = errors.timeout(REQUEST_TIMEOUT_MESSAGE);
    deadline.expire(err);
    recordRequestTermination(metricLabelsOf(req, this.registry, 504), 504);
    if (res.headersSent) {
      res.destroy();
    } else {
      // kube's timeout writer holds the headers its handler set until the handler writes: the 504 has none of them.
      for (const name of res.getHeaderNames()) if (!OUTER_HEADERS.has(name)) res.removeHeader(name);
      writeStatus(req, res, err);
    }
    ignoreLaterWrites(res);
  }
}
