import type { IncomingMessage } from 'node:http';
import type { StatusError } from '../../apimachinery/errors';

/** Where a request keeps its deadline (declared on the server's request class). */
export const REQUEST_DEADLINE = Symbol('requestDeadline');
type WithDeadline = IncomingMessage & { [REQUEST_DEADLINE]?: RequestDeadline };

/**
 * The deadline of a request that is not long-running (kube's request context deadline). Once it
 * has passed the client has its 504, and the request's own work stops at the next point that
 * checks: between the pipeline's stages, and in the storage before each write. kube lets the
 * handler run on too, but its storage calls carry the request's context, so a timed-out request
 * writes nothing more; this is the same promise.
 */
export class RequestDeadline {
  private error: StatusError | undefined = undefined;

  get expired(): boolean {
    return this.error !== undefined;
  }

  /** The deadline passed: `error` is what the client was answered. */
  expire(error: StatusError): void {
    this.error ??= error;
  }

  /** Throws the request's Timeout once the deadline has passed. */
  check(): void {
    if (this.error) throw this.error;
  }
}

export function setRequestDeadline(req: IncomingMessage, deadline: RequestDeadline): void {
  (req as WithDeadline)[REQUEST_DEADLINE] = deadline;
}

/** The request's deadline; none for long-running requests. */
export function requestDeadlineOf(req: IncomingMessage): RequestDeadline | undefined {
  return (req as WithDeadline)[REQUEST_DEADLINE];
}

/** Whether the request was answered 504 because its deadline passed. */
export function deadlinePassed(req: IncomingMessage): boolean {
  return (req as WithDeadline)[REQUEST_DEADLINE]?.expired === true;
}
