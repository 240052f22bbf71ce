import { Logger } from '@nestjs/common';
import { RestartingEngine } from '../../../src/storage/engine/restarting-engine';
import { SessionMutex } from '../../../src/storage/engine/session-mutex';
import { FakeEngine } from '../../support/fake-engine';

const engineOf = async (engine: RestartingEngine) => ((await engine.query<{ engine: string }>('SELECT 1')).rows[0] as { engine: string }).engine;

describe('the embedded engine, started again when it ends by itself', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn']));
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('fails every statement with the cause until a start succeeds, retrying with growing pauses, then listens again', async () => {
    const first = new FakeEngine('first');
    const second = new FakeEngine('second');
    const starts: Array<() => Promise<FakeEngine>> = [
      () => Promise.reject(new Error('disk still full')),
      () => Promise.reject(new Error('disk still full')),
      () => Promise.resolve(second),
    ];
    const attemptsAt: number[] = [];
    const session = new SessionMutex();
    const engine = new RestartingEngine(
      first,
      () => {
        attemptsAt.push(Date.now());
        return starts.shift()!();
      },
      (fn) => session.run(fn),
    );
    const notified: string[] = [];
    await engine.listen('kv_changes', (payload) => notified.push(payload));
    expect(await engineOf(engine)).toBe('first');

    const cause = Object.assign(new Error('the embedded store engine stopped: no space'), { code: '53100' });
    const started = Date.now();
    first.end(cause);
    await jest.advanceTimersByTimeAsync(0);
    await expect(engine.query('SELECT 1')).rejects.toBe(cause);
    await jest.advanceTimersByTimeAsync(500 + 1000);
    await expect(engine.query('SELECT 1')).rejects.toBe(cause);
    await jest.advanceTimersByTimeAsync(2000);
    expect(attemptsAt.map((at) => at - started)).toEqual([500, 1500, 3500]);
    expect(await engineOf(engine)).toBe('second');
    expect(engine.closed).toBe(false);
    // Its listener listens on the new engine, and is told once to look.
    expect(second.listeners.map((l) => l.channel)).toEqual(['kv_changes']);
    expect(notified).toEqual(['']);
    second.listeners[0].onNotify('42');
    expect(notified).toEqual(['', '42']);
  });

  it('starts no engine while someone holds the session, and none once closed', async () => {
    const first = new FakeEngine('first');
    const session = new SessionMutex();
    const start = jest.fn(() => Promise.resolve(new FakeEngine('second')));
    const engine = new RestartingEngine(first, start, (fn) => session.run(fn));
    const unlock = await session.acquire();
    first.end(new Error('ended'));
    await jest.advanceTimersByTimeAsync(5000);
    expect(start).not.toHaveBeenCalled();
    unlock();
    await jest.advanceTimersByTimeAsync(0);
    expect(start).toHaveBeenCalledTimes(1);
    expect(await engineOf(engine)).toBe('second');

    await engine.close();
    expect(engine.closed).toBe(true);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it('is not started again after it was closed', async () => {
    const first = new FakeEngine('first');
    const start = jest.fn(() => Promise.resolve(new FakeEngine('second')));
    const engine = new RestartingEngine(first, start, (fn) => fn());
    await engine.close();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(start).not.toHaveBeenCalled();
    expect(first.closed).toBe(true);
  });
});
