import type { StatusError } from '../../apimachinery/errors';

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
