import { SessionMutex } from '../../../src/storage/engine/session-mutex';

describe('SessionMutex', () => {
  it('lets one holder in at a time, in arrival order', async () => {
    const mutex = new SessionMutex();
    const events: string[] = [];
    /** The holders inside, each staying until the test lets it out. */
    const inside = new Map<string, () => void>();
    const holder = (name: string) =>
      mutex.run(async () => {
        events.push(`${name} in`);
        await new Promise<void>((resolve) => inside.set(name, resolve));
        inside.delete(name);
        events.push(`${name} out`);
      });
    const done = Promise.all(['a', 'b', 'c'].map(holder));
    for (const name of ['a', 'b', 'c']) {
      await new Promise((resolve) => setImmediate(resolve));
      // Only the first still waiting is in, however long it stays.
      expect([...inside.keys()]).toEqual([name]);
      inside.get(name)!();
    }
    await done;
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
