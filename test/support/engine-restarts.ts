import { Logger } from '@nestjs/common';

const FAILED_START = 'the embedded store engine did not start again';

/**
 * Counts the embedded engine's failed attempts to start again, from what it logs (the first
 * one a warning, each later one at debug level), so a test waits for attempts, not for time.
 */
export function watchFailedEngineStarts(): { count(): number; stop(): void } {
  const spies = [jest.spyOn(Logger.prototype, 'warn'), jest.spyOn(Logger.prototype, 'debug')];
  return {
    count: () => spies.reduce((n, spy) => n + spy.mock.calls.filter(([message]) => String(message).startsWith(FAILED_START)).length, 0),
    stop: () => spies.forEach((spy) => spy.mockRestore()),
  };
}
