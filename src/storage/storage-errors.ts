import { QueryFailedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';

/**
 * How a failure of the store looks to a client. The database being away (stopped,
 * restarting, its connections dropped) is `unavailable`; a connection or query that did not
 * answer in time is `timeout`. Anything else (a constraint, a bug) is not an outage.
 */
export type StorageFailure = 'unavailable' | 'timeout';

/** SQLSTATE classes and codes that mean the server or the connection went away. */
const UNAVAILABLE_CODES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
  '55000', // object_not_in_prerequisite_state: the database does not accept connections
  '3D000', // invalid_catalog_name: the database is gone
]);
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
const TIMEOUT_ERRNOS = new Set(['ETIMEDOUT']);

/** node-postgres words these failures without a code. */
const UNAVAILABLE_MESSAGES = [/^Connection terminated/, /not queryable/, /^Client was closed/, /^Cannot use a pool after calling end/];
const TIMEOUT_MESSAGES = [/^timeout exceeded when trying to connect/, /^Connection terminated due to connection timeout/, /^Query read timeout/];

/** The outage a store error stands for, or undefined when it is not one. */
export function storageFailureOf(err: unknown): StorageFailure | undefined {
  // TypeORM lets go of a transaction's connection when it breaks; the next statement of the transaction says so.
  if (err instanceof QueryRunnerProviderAlreadyReleasedError) return 'unavailable';
  const cause = err instanceof QueryFailedError ? ((err as QueryFailedError & { driverError?: unknown }).driverError ?? err) : err;
  // Not `instanceof Error`: socket errors may come from another realm (Node's internals under a test sandbox).
  if (typeof cause !== 'object' || cause === null) return undefined;
  const { code, message = '' } = cause as { code?: unknown; message?: string };
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || UNAVAILABLE_ERRNOS.has(code)) return 'unavailable';
    if (TIMEOUT_ERRNOS.has(code) || code === '57014') return 'timeout'; // 57014: query_canceled (statement timeout)
  }
  if (typeof message !== 'string') return undefined;
  if (TIMEOUT_MESSAGES.some((m) => m.test(message))) return 'timeout';
  if (UNAVAILABLE_MESSAGES.some((m) => m.test(message))) return 'unavailable';
  return undefined;
}
