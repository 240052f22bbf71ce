import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { errors, StatusError } from '../../apimachinery/errors';
import { prettyRequested, SERVER_CAPABILITIES } from '../../runtime/serializer/negotiation';
import { bodyFor, renderStatus } from '../../runtime/serializer/response';
import { IncomingScope, RequestScope } from '../request/request-scope';
import { STORAGE_FAILURE_MESSAGES, storageFailureOf } from '../../storage/engine/storage-errors';

/** How long a client should wait before retrying while the store is away. */
export const STORAGE_RETRY_AFTER_SECONDS = 1;

/** 503 with Retry-After while the store does not answer, or cannot store a write (its disk full: storage-errors.ts). */
function storageUnavailable(message: string): StatusError {
  return new StatusError(
    503,
    'ServiceUnavailable',
    message,
    { retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS },
    { 'Retry-After': String(STORAGE_RETRY_AFTER_SECONDS) },
  );
}

/** 504 with Retry-After when the store did not answer in time (kube's NewTimeoutError). */
function storageTimeout(): StatusError {
  return new StatusError(
    504,
    'Timeout',
    'Timeout: request did not complete within the allotted timeout',
    { retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS },
    { 'Retry-After': String(STORAGE_RETRY_AFTER_SECONDS) },
  );
}
import { recordResponseError } from '../../audit/audit-context';

const UNEXPECTED_ERROR = 'the server could not complete the request (the cause is in its log)';

/** A request being answered with an error: at any stage, even before the first gave it a scope. */
type AnsweredRequest = Request & { scope?: IncomingScope };

/**
 * Answers a request with a Status (recorded for its audit event), negotiated as the filter
 * does; a response already under way is ended instead. `unexpected`: a 500 for an unknown error.
 */
export function writeStatus(req: AnsweredRequest, res: Response, err: StatusError, unexpected = false): void {
  const scope = req.scope as Partial<RequestScope> | undefined;
  recordResponseError(scope?.audit, err.toStatus(), unexpected);
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  const query = (req.query ?? {}) as Record<string, unknown>;
  const rendered = renderStatus(
    err.toStatus(),
    req.headers?.accept,
    scope?.rendering ?? SERVER_CAPABILITIES,
    prettyRequested(query, req.headers?.['user-agent']),
  );
  res.status(err.code).setHeader('Content-Type', rendered.contentType);
  res.end(bodyFor(res, rendered.body));
}

/**
 * Turns every error into a Kubernetes Status response; unknown errors become a logged 500.
 * The Status is negotiated like any response (YAML or protobuf when accepted, no Table),
 * and is JSON when the Accept header allows nothing else, a 406 included.
 */
@Catch()
export class StatusExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Status');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<AnsweredRequest>();
    const err = this.toStatusError(exception);
    // The client had its 504 when the deadline passed: how the request's work ended later is not its answer.
    if (req.scope?.deadline?.expired) return;
    writeStatus(req, res, err, !(exception instanceof StatusError || exception instanceof HttpException));
  }

  private toStatusError(exception: unknown): StatusError {
    if (exception instanceof StatusError) return exception;
    if (exception instanceof HttpException) {
      const code = exception.getStatus();
      if (code === 404) return errors.pathNotFound();
      if (code === 405) return errors.methodNotAllowed();
      if (code === 401) return errors.unauthorized();
      if (code === 403) return errors.forbidden('', exception.message);
      if (code < 500) return new StatusError(code, 'BadRequest', exception.message);
    }
    // The store being away is the client's to retry, never a 500, and never in the driver's words (they name hosts and ports).
    const outage = storageFailureOf(exception);
    if (outage) {
      this.logger.warn(`storage ${outage === 'timeout' ? 'timed out' : outage}: ${exception instanceof Error ? exception.message : String(exception)}`);
      return outage === 'timeout' ? storageTimeout() : storageUnavailable(STORAGE_FAILURE_MESSAGES[outage]);
    }
    // The cause goes to the log only: its text may be a database driver's or a stack's.
    this.logger.error(exception instanceof Error ? exception.stack ?? exception.message : String(exception));
    return errors.internal(UNEXPECTED_ERROR);
  }
}
