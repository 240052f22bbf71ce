import { missingUse, UsageRecorder } from '../../../../src/access/least-privilege/recording-coverage';

const MIN = 60_000;
const NOW = Date.parse('2026-01-10T00:00:00Z');
const recorder = (replica: string, r: Partial<UsageRecorder>): UsageRecorder => ({ replica, recording: true, flushIntervalMs: 10_000, startedAt: NOW - 600 * MIN, flushedAt: NOW, ...r });

describe('missing recorded use of a window', () => {
  const window = { from: NOW - 60 * MIN, now: NOW, self: 'a' };

  it('is none when every replica recorded through the window and flushed on time, or stopped cleanly', () => {
    expect(missingUse([recorder('a', {}), recorder('b', { flushedAt: NOW - 15_000 }), recorder('c', { flushedAt: NOW - 30 * MIN, stoppedAt: NOW - 30 * MIN })], window)).toEqual([]);
  });

  it('names a replica that stopped flushing without a clean shutdown, and since when', () => {
    expect(missingUse([recorder('a', {}), recorder('b', { flushedAt: NOW - 30 * MIN })], window)).toEqual([
      'replica b has not flushed its usage since 2026-01-09T23:30:00Z and did not shut down cleanly: what it recorded after that is missing',
    ]);
    // Killed before the window: nothing of the window is missing.
    expect(missingUse([recorder('a', {}), recorder('b', { flushedAt: NOW - 90 * MIN })], window)).toEqual([]);
  });

  it('says when the window starts before the first replica recorded, and when a replica ran with recording off', () => {
    expect(missingUse([recorder('a', { startedAt: NOW - 10 * MIN })], window)).toEqual([
      "usage is recorded since 2026-01-09T23:50:00Z, after the window's start 2026-01-09T23:00:00Z: earlier use is not known",
    ]);
    expect(missingUse([recorder('a', {}), recorder('b', { recording: false, startedAt: NOW - 20 * MIN, stoppedAt: NOW - 5 * MIN, flushedAt: NOW - 5 * MIN })], window)).toEqual([
      'replica b ran with usage recording off from 2026-01-09T23:40:00Z to 2026-01-09T23:55:00Z',
    ]);
  });
});
