import { SessionMutex } from '../../../src/storage/engine/session-mutex';

describe('SessionMutex', () => {
  it('lets one holder in at a time, in arrival order', async () => {
    const mutex = new SessionMutex();
    const events: string[] = [];
    const holder = (name: string, ms: number) =>
      mutex.run(async () => {
        events.push(`${name} in`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        events.push(`${name} out`);
      });
    await Promise.all([holder('a', 20), holder('b', 0), holder('c', 5)]);
    expect(events).toEqual(['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
  });

  it('releases when the holder throws, and ignores a second unlock', async () => {
    const mutex = new SessionMutex();
    await expect(mutex.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const unlock = await mutex.acquire();
    unlock();
    unlock();
    const order: string[] = [];
    const first = mutex.acquire().then((u) => (order.push('first'), u));
    const second = mutex.acquire().then((u) => (order.push('second'), u));
    (await first)();
    (await second)();
    expect(order).toEqual(['first', 'second']);
  });
});
