import { QueryFailedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';

/**
 * How a failure of the store looks to a client. The database being away (stopped,
 * restarting, its connections dropped) is `unavailable`; a connection or query that did not
 * answer in time is `timeout`; a write the database could not store because its disk is full
 * is `disk-full`, and one refused for other missing resources (memory, a configured limit) is
 * `insufficient-resources`. A server that cannot write now (a standby, a primary being
 * demoted, one set read-only) is `read-only`: told by SQLSTATE (25006
 * read_only_sql_transaction), never by the message. Anything else (a constraint, a bug) is
 * not an outage.
 *
 * kube has no answer of its own for a full disk: etcd refuses writes with "etcdserver: mvcc:
 * database space exceeded" (its NOSPACE alarm), no case of the storage layer's
 * Interpret*Error (apiserver/pkg/storage/errors) or of etcd3's errors.go recognises it, and
 * responsewriters' convertStorageErrorOrNot makes it a 500 with no reason and etcd's words.
 * The closest answer kube does give is that function's for an unreachable store: 503
 * ServiceUnavailable. A full disk is that kind of outage (transient, the operator's to fix,
 * the same request succeeds once space is freed), so it is answered the same way, with
 * Retry-After and a message naming the cause instead of the database's text.
 */
export type StorageFailure = 'unavailable' | 'read-only' | 'timeout' | 'disk-full' | 'insufficient-resources';

/**
 * SQLSTATE codes that mean the server or the connection went away; besides them, all of class
 * 08 (connection exception) and of class 57 (operator intervention: 57P01 admin_shutdown, a
 * fast shutdown or a demotion; 57P02 crash_shutdown; 57P03 cannot_connect_now, starting up or
 * in recovery; 57P04 database_dropped; 57P05 idle_session_timeout) but 57014.
 */
const UNAVAILABLE_CODES = new Set([
  '53300', // too_many_connections
  '55000', // object_not_in_prerequisite_state: the database does not accept connections, recovery is in progress
  '3D000', // invalid_catalog_name: the database is gone
]);
const UNAVAILABLE_CLASSES = ['08', '57'];
/** read_only_sql_transaction: a write in a read-only transaction, or on a standby ("... during recovery"). */
const READ_ONLY_CODE = '25006';
/** query_canceled: a statement timeout (class 57, but a timeout). */
const QUERY_CANCELED_CODE = '57014';
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
const TIMEOUT_ERRNOS = new Set(['ETIMEDOUT']);
/** disk_full: PostgreSQL's code for ENOSPC on any file it writes (a table extended, a WAL segment made). */
const DISK_FULL_CODE = '53100';
/** Class 53, insufficient resources (disk_full and too_many_connections have their own answers). */
const INSUFFICIENT_RESOURCES_CLASS = '53';
/** The file system's own words for it (a quota counts as full). */
const DISK_FULL_ERRNOS = new Set(['ENOSPC', 'EDQUOT']);
/** PostgreSQL's messages for it, should a layer lose the code. */
const DISK_FULL_MESSAGES = [/^could not extend file/, /No space left on device/];

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
    if (code === READ_ONLY_CODE) return 'read-only';
    if (TIMEOUT_ERRNOS.has(code) || code === QUERY_CANCELED_CODE) return 'timeout';
    const sqlClass = code.length === 5 ? code.slice(0, 2) : '';
    if (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_CLASSES.includes(sqlClass) || UNAVAILABLE_ERRNOS.has(code)) return 'unavailable';
    if (code === DISK_FULL_CODE || DISK_FULL_ERRNOS.has(code)) return 'disk-full';
    if (code.length === 5 && code.startsWith(INSUFFICIENT_RESOURCES_CLASS)) return 'insufficient-resources';
  }
  if (typeof message !== 'string') return undefined;
  if (DISK_FULL_MESSAGES.some((m) => m.test(message))) return 'disk-full';
  if (TIMEOUT_MESSAGES.some((m) => m.test(message))) return 'timeout';
  if (UNAVAILABLE_MESSAGES.some((m) => m.test(message))) return 'unavailable';
  return undefined;
}

/** What a client is told of each outage answered 503 (never the driver's text: it may name hosts and files). */
export const STORAGE_FAILURE_MESSAGES: Record<Exclude<StorageFailure, 'timeout'>, string> = {
  unavailable: 'the storage is unavailable; please try again later',
  'read-only': 'the storage cannot accept writes now (its database server is read-only); please try again later',
  'disk-full': "the store's disk is full; please try again later",
  'insufficient-resources': 'the store is out of resources (memory or a configured limit); please try again later',
};
