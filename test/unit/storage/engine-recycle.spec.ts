import { Logger } from '@nestjs/common';
import { memoryFigure, RECYCLE_MARGIN_BYTES, RecyclePolicy, recyclePolicy, RestartingEngine, shouldRecycle } from '../../../src/storage/engine/restarting-engine';
import { SessionMutex } from '../../../src/storage/engine/session-mutex';
import { FakeEngine } from '../../support/fake-engine';

const MiB = 1024 * 1024;

describe('whether to recycle the embedded engine', () => {
  const policy: RecyclePolicy = { growthBytes: 48 * MiB, idleMs: 10_000, maxRecycles: 2, recycleWindowMs: 600_000, checkMs: 5_000 };
  const grown = { startFigure: 40 * MiB, figure: 90 * MiB, idleMs: 10_000 };

  it('recycles an engine grown past the margin once the store has been idle long enough', () => {
    expect(shouldRecycle(policy, grown)).toBe(true);
    expect(shouldRecycle(policy, { ...grown, idleMs: 9_999 })).toBe(false);
    expect(shouldRecycle(policy, { ...grown, figure: 40 * MiB + 48 * MiB - 1 })).toBe(false);
  });

  it('recycles at most so many times within the window, whatever the figures say', () => {
    expect(shouldRecycle(policy, { ...grown, recyclesAgoMs: [1_000] })).toBe(true);
    expect(shouldRecycle(policy, { ...grown, recyclesAgoMs: [1_000, 599_999] })).toBe(false);
    expect(shouldRecycle(policy, { ...grown, recyclesAgoMs: [1_000, 600_000] })).toBe(true);
  });

  it('lets the working set of shared_buffers grow without a recycle', () => {
    expect(recyclePolicy(16 * MiB).growthBytes).toBe(16 * MiB + RECYCLE_MARGIN_BYTES);
    expect(recyclePolicy(1024 * MiB).growthBytes).toBe(1024 * MiB + RECYCLE_MARGIN_BYTES);
    expect(recyclePolicy(16 * MiB, { idleMs: 5 }).idleMs).toBe(5);
  });

  it('judges by resident pages where they are counted, by size otherwise', () => {
    expect(memoryFigure({ bytes: 128 * MiB, residentBytes: 50 * MiB })).toBe(50 * MiB);
    expect(memoryFigure({ bytes: 128 * MiB })).toBe(128 * MiB);
  });
});

describe('the embedded engine, recycled once its memory grew', () => {
  const policy: RecyclePolicy = { growthBytes: 48 * MiB, idleMs: 10_000, maxRecycles: 1, recycleWindowMs: 600_000, checkMs: 1_000 };
  let logged: jest.SpyInstance;

  beforeEach(() => {
    jest.useFakeTimers();
    logged = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => {
    logged.mockRestore();
    jest.useRealTimers();
  });

  const recycles = () => logged.mock.calls.filter(([message]) => String(message).includes('started it anew')).length;

  it('replaces a grown engine once idle, holding the session: statements wait for the new engine, listeners listen on it', async () => {
    const first = new FakeEngine('first');
    let startSecond!: () => void;
    const second = new FakeEngine('second');
    const start = jest.fn(() => new Promise<FakeEngine>((resolve) => (startSecond = () => resolve(second))));
    const session = new SessionMutex();
    const engine = new RestartingEngine(first, start, (fn) => session.run(fn), policy);
    const notified: string[] = [];
    await engine.listen('kv_changes', (payload) => notified.push(payload));

    first.resident = 100 * MiB;
    await engine.query('SELECT 1');
    // Not idle yet: nothing happens.
    await jest.advanceTimersByTimeAsync(9_000);
    expect(start).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(start).toHaveBeenCalledTimes(1);
    expect(first.closed).toBe(true);

    // A statement asked for meanwhile waits for the session, then runs on the new engine.
    const waiting = session.run(() => engine.query<{ engine: string }>('SELECT 1'));
    let answered = false;
    void waiting.then(() => (answered = true));
    await jest.advanceTimersByTimeAsync(5_000);
    expect(answered).toBe(false);
    startSecond();
    expect((await waiting).rows).toEqual([{ engine: 'second' }]);
    // Listening on the new engine; no commit was missed, so nobody is woken without one.
    expect(second.listeners.map((l) => l.channel)).toEqual(['kv_changes']);
    expect(notified).toEqual([]);
    second.listeners[0].onNotify('42');
    expect(notified).toEqual(['42']);
    expect(recycles()).toBe(1);

    // The old engine's end is no failure to start again from; the new one, not grown, stays.
    await jest.advanceTimersByTimeAsync(60_000);
    expect(start).toHaveBeenCalledTimes(1);
    expect(engine.closed).toBe(false);
    await engine.close();
  });

  it('recycles no engine that grew less than the margin, nor one the store keeps busy, nor more often than the window allows', async () => {
    const first = new FakeEngine('first');
    const second = new FakeEngine('second');
    const engines = [second, new FakeEngine('third')];
    const start = jest.fn(() => Promise.resolve(engines.shift()!));
    const engine = new RestartingEngine(first, start, (fn) => fn(), policy);
    await jest.advanceTimersByTimeAsync(0);

    first.resident = 40 * MiB + policy.growthBytes - 1;
    await engine.query('SELECT 1');
    await jest.advanceTimersByTimeAsync(30_000);
    expect(start).not.toHaveBeenCalled();

    // Grown, but a statement every few seconds: never idle.
    first.resident = 200 * MiB;
    for (let i = 0; i < 10; i++) {
      await engine.query('SELECT 1');
      await jest.advanceTimersByTimeAsync(5_000);
    }
    expect(start).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(11_000);
    expect(start).toHaveBeenCalledTimes(1);

    // The next engine grows at once: it waits until the last recycle has left the window.
    expect((await engine.query<{ engine: string }>('SELECT 1')).rows).toEqual([{ engine: 'second' }]);
    second.resident = 200 * MiB;
    await engine.query('SELECT 1');
    await jest.advanceTimersByTimeAsync(policy.recycleWindowMs - 20_000);
    expect(start).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(30_000);
    expect(start).toHaveBeenCalledTimes(2);
    expect(recycles()).toBe(2);
    await engine.close();
    await jest.advanceTimersByTimeAsync(policy.recycleWindowMs * 2);
    expect(start).toHaveBeenCalledTimes(2);
  });

  it('is never recycled without a policy', async () => {
    const first = new FakeEngine('first', 40 * MiB);
    const start = jest.fn(() => Promise.resolve(new FakeEngine('second')));
    const engine = new RestartingEngine(first, start, (fn) => fn());
    first.resident = 500 * MiB;
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(start).not.toHaveBeenCalled();
    await engine.close();
  });
});
