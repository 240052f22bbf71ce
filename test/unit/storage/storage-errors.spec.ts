import { QueryFailedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { storageFailureOf } from '../../../src/storage/engine/storage-errors';

function pgError(code: string, message = 'x'): Error {
  return Object.assign(new Error(message), { code });
}

describe('storage failures', () => {
  it.each([
    ['a terminated backend (pg_terminate_backend)', pgError('57P01', 'terminating connection due to administrator command'), 'unavailable'],
    ['a database that starts up', pgError('57P03', 'the database system is starting up'), 'unavailable'],
    ['a database not accepting connections', pgError('55000', 'database "d" is not currently accepting connections'), 'unavailable'],
    ['a connection exception class', pgError('08006'), 'unavailable'],
    ['a refused connection', pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'unavailable'],
    ['a reset connection', pgError('ECONNRESET'), 'unavailable'],
    ['a connection that ended', new Error('Connection terminated unexpectedly'), 'unavailable'],
    ['the pool giving up waiting', new Error('timeout exceeded when trying to connect'), 'timeout'],
    ['a statement timeout', pgError('57014', 'canceling statement due to statement timeout'), 'timeout'],
    ['a network timeout', pgError('ETIMEDOUT'), 'timeout'],
    ['a write on a standby', pgError('25006', 'cannot execute INSERT in a read-only transaction'), 'read-only'],
    ['a write where default_transaction_read_only is on', pgError('25006', 'cannot execute UPDATE in a read-only transaction'), 'read-only'],
    ['a statement refused during recovery, in other words', pgError('25006', 'whatever the server says'), 'read-only'],
    ['a crash of another backend', pgError('57P02'), 'unavailable'],
    ['a dropped database', pgError('57P04'), 'unavailable'],
    ['an idle session timeout', pgError('57P05'), 'unavailable'],
    ['operator intervention', pgError('57000'), 'unavailable'],
    ['a failed connection attempt (no host of the URL suits)', pgError('08001'), 'unavailable'],
    ["a pooler's protocol violation", pgError('08P01', 'server conn crashed?'), 'unavailable'],
  ])('%s is an outage', (_what, err, kind) => {
    expect(storageFailureOf(err)).toBe(kind);
  });

  it('counts a transaction whose connection broke as unavailable', () => {
    expect(storageFailureOf(new QueryRunnerProviderAlreadyReleasedError())).toBe('unavailable');
  });

  it('looks through TypeORM query errors at the driver error', () => {
    const wrapped = new QueryFailedError('SELECT 1', [], pgError('57P01', 'terminating connection due to administrator command'));
    expect(storageFailureOf(wrapped)).toBe('unavailable');
    expect(storageFailureOf(new QueryFailedError('INSERT', [], pgError('25006')))).toBe('read-only');
  });

  it('tells a read-only server by its SQLSTATE, not by the words', () => {
    expect(storageFailureOf(new Error('cannot execute INSERT in a read-only transaction'))).toBeUndefined();
  });

  it.each([
    ['a unique violation', new QueryFailedError('INSERT', [], pgError('23505', 'duplicate key'))],
    ['a syntax error', pgError('42601')],
    ['a plain bug', new TypeError('x is undefined')],
    ['a string', 'oops'],
  ])('%s is not', (_what, err) => {
    expect(storageFailureOf(err)).toBeUndefined();
  });
});

/**
 * PostgreSQL out of space or other resources (class 53). A disk-full PostgreSQL server is not
 * practical in a test run, so its errors are built here as node-postgres reports them; the
 * embedded engine meets a real full disk in the e2e tests (test/e2e/full-disk.e2e-spec.ts).
 */
describe('storage failures for want of resources', () => {
  it.each([
    ['disk_full (53100), as a failed table extension', pgError('53100', 'could not extend file "base/16384/16402": No space left on device'), 'disk-full'],
    ['disk_full (53100), as a write-ahead log segment that cannot be made', pgError('53100', 'could not write to file "pg_wal/xlogtemp.123": No space left on device'), 'disk-full'],
    ['disk_full (53100) behind a TypeORM query error', new QueryFailedError('INSERT', [], pgError('53100', 'could not extend file "base/1/2": wrote only 4096 of 8192 bytes at block 7')), 'disk-full'],
    ['a failed extension whose code was lost', new Error('could not extend file "base/1/2": No space left on device'), 'disk-full'],
    ['the file system saying ENOSPC', pgError('ENOSPC', 'ENOSPC: no space left on device, write'), 'disk-full'],
    ['a disk quota exceeded', pgError('EDQUOT', 'EDQUOT: disk quota exceeded, write'), 'disk-full'],
    ['insufficient_resources (53000)', pgError('53000', 'insufficient resources'), 'insufficient-resources'],
    ['out_of_memory (53200)', pgError('53200', 'out of memory'), 'insufficient-resources'],
    ['configuration_limit_exceeded (53400)', pgError('53400', 'too many range table entries'), 'insufficient-resources'],
    ['too_many_connections (53300): an outage like the others', pgError('53300', 'sorry, too many clients already'), 'unavailable'],
  ])('%s', (_what, err, kind) => {
    expect(storageFailureOf(err)).toBe(kind);
  });
});
