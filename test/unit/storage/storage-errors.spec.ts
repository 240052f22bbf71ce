import { QueryFailedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { storageFailureOf } from '../../../src/storage/storage-errors';

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
  ])('%s is an outage', (_what, err, kind) => {
    expect(storageFailureOf(err)).toBe(kind);
  });

  it('counts a transaction whose connection broke as unavailable', () => {
    expect(storageFailureOf(new QueryRunnerProviderAlreadyReleasedError())).toBe('unavailable');
  });

  it('looks through TypeORM query errors at the driver error', () => {
    const wrapped = new QueryFailedError('SELECT 1', [], pgError('57P01', 'terminating connection due to administrator command'));
    expect(storageFailureOf(wrapped)).toBe('unavailable');
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
