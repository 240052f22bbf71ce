import { ArgumentsHost } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { StatusExceptionFilter } from '../../../src/endpoints/filters/status.filter';
import { metricsRegistry } from '../../../src/metrics/registry';
import { endsTheEngine, engineEndedError, engineEndingLogLine } from '../../../src/storage/engine/engine-errors';
import { storageFailureOf } from '../../../src/storage/engine/storage-errors';
import { DISK_FULL_REPORT_MS, StoreDiskSpace } from '../../../src/storage/engine/store-disk-space';

/** What the exception filter answers for an error: status, headers and the Status body. */
function answerTo(exception: unknown): { code?: number; headers: Record<string, string>; body: Record<string, unknown> } {
  const filter = new StatusExceptionFilter();
  (filter as unknown as { logger: { warn: () => void; error: () => void } }).logger = { warn: () => undefined, error: () => undefined };
  const sent: { code?: number; headers: Record<string, string>; body?: string } = { headers: {} };
  const res = {
    headersSent: false,
    setHeader: (name: string, value: string) => ((sent.headers[name] = value), res),
    getHeader: (name: string) => sent.headers[name],
    status: (code: number) => ((sent.code = code), res),
    end: (body: string) => (sent.body = body),
  };
  const host = { switchToHttp: () => ({ getResponse: () => res, getRequest: () => ({ headers: {}, query: {} }) }) } as unknown as ArgumentsHost;
  filter.catch(exception, host);
  return { code: sent.code, headers: sent.headers, body: JSON.parse(sent.body!) };
}

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('a write the store cannot keep for lack of space', () => {
  it.each([
    ['PostgreSQL: disk_full', new QueryFailedError('INSERT', [], pgError('53100', 'could not extend file "base/5/16470": No space left on device'))],
    ['the embedded engine: a table that cannot grow', pgError('53100', 'could not extend file "base/5/16470": No space left on device')],
    ['the embedded engine: ended by a PANIC over its log', engineEndedError(engineEndingLogLine('2026-01-01 00:00:00.000 UTC [42] PANIC:  could not write to file "pg_wal/xlogtemp.42": No space left on device')!)],
  ])('%s is 503 ServiceUnavailable naming the cause, with Retry-After', (_what, err) => {
    const answer = answerTo(err);
    expect(answer.code).toBe(503);
    expect(answer.headers['Retry-After']).toBe('1');
    expect(answer.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "the store's disk is full; please try again later",
      reason: 'ServiceUnavailable',
      details: { retryAfterSeconds: 1 },
      code: 503,
    });
  });

  it('out of other resources is 503 too, saying so without the driver\'s words', () => {
    const answer = answerTo(new QueryFailedError('SELECT', [], pgError('53200', 'out of memory')));
    expect([answer.code, answer.body.reason, answer.body.message]).toEqual([503, 'ServiceUnavailable', 'the store is out of resources (memory or a configured limit); please try again later']);
  });
});

describe("the embedded engine's end", () => {
  it('is read from the PANIC or FATAL line PostgreSQL logs, or from the runtime aborting', () => {
    expect(engineEndingLogLine('2026-01-01 00:00:00.000 UTC [42] PANIC:  could not write to file "pg_wal/xlogtemp.42": No space left on device')).toEqual({
      severity: 'PANIC',
      message: 'could not write to file "pg_wal/xlogtemp.42": No space left on device',
      code: '53100',
    });
    expect(engineEndingLogLine('2026-01-01 00:00:00.000 UTC [42] FATAL:  could not write init file')).toEqual({ severity: 'FATAL', message: 'could not write init file' });
    expect(engineEndingLogLine('Aborted()')).toMatchObject({ severity: 'PANIC' });
    // Errors the session survives, and statements quoted in the log, are not its end.
    expect(engineEndingLogLine('2026-01-01 00:00:00.000 UTC [42] ERROR:  could not extend file "base/5/1": No space left on device')).toBeUndefined();
    expect(engineEndingLogLine("2026-01-01 00:00:00.000 UTC [42] STATEMENT:  SELECT 'x [1] PANIC:  y'")).toBeUndefined();
  });

  it('tells every later statement its cause, with its code (crash_shutdown without one)', () => {
    const full = engineEndedError({ severity: 'PANIC', message: 'could not write to file "pg_wal/x": No space left on device', code: '53100' });
    expect(full.message).toBe('the embedded store engine stopped: could not write to file "pg_wal/x": No space left on device');
    expect(storageFailureOf(full)).toBe('disk-full');
    const aborted = engineEndedError({ severity: 'PANIC', message: 'Aborted()' });
    expect(aborted.code).toBe('57P02');
    expect(storageFailureOf(aborted)).toBe('unavailable');
  });

  it('comes with a PANIC or FATAL answer, not with an ERROR', () => {
    expect(endsTheEngine({ severity: 'PANIC', message: 'x' })).toBe(true);
    expect(endsTheEngine({ severity: 'FATAL', message: 'x' })).toBe(true);
    expect(endsTheEngine({ severity: 'ERROR', message: 'could not extend file', code: '53100' })).toBe(false);
  });
});

describe('the storage-space readiness check', () => {
  const refusals = async () => (await metricsRegistry.getSingleMetric('apiserver_storage_disk_full_total')!.get()).values[0]?.value ?? 0;

  it('fails from a refused write until none has been refused for a while, and each refusal is counted', async () => {
    let now = 1_000;
    const space = new StoreDiskSpace(() => now);
    const before = await refusals();
    expect(() => space.check()).not.toThrow();
    space.refused();
    expect(() => space.check()).toThrow("the store's disk is full");
    now += DISK_FULL_REPORT_MS - 1;
    space.refused();
    now += DISK_FULL_REPORT_MS - 1;
    expect(() => space.check()).toThrow("the store's disk is full");
    now += 1;
    expect(() => space.check()).not.toThrow();
    expect(await refusals()).toBe(before + 2);
  });
});
