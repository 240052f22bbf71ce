import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { MemoryStore } from '../../support/memory-store';

const key = (name: string) => ({ resource: 'g/things', namespace: '', name });
const obj = (name: string, n = 0) => ({ metadata: { name }, n });

describe('ChangeFeed', () => {
  let store: MemoryStore;
  let feed: ChangeFeed;

  beforeEach(async () => {
    store = new MemoryStore();
    await store.create(key('before'), obj('before'));
    feed = new ChangeFeed(store, null, { pollIntervalMs: 20, windowSize: 3, batchSize: 2 });
    await feed.start();
  });
  afterEach(() => feed.stop());

  it('starts at the current revision and tails new changes in order', async () => {
    expect(feed.headRevision()).toBe('1');
    await store.create(key('a'), obj('a'));
    await store.update(key('a'), obj('a', 1));
    await store.delete(key('a'));
    await feed.poke();
    expect(feed.headRevision()).toBe('4');
    const changes = await feed.changesAfter('1', 10);
    expect(changes.map((c) => [c.type, c.revision])).toEqual([
      ['ADDED', '2'],
      ['MODIFIED', '3'],
      ['DELETED', '4'],
    ]);
  });

  it('is caught up by polling when nobody pokes it', async () => {
    await store.create(key('b'), obj('b'));
    expect(await feed.waitForNewer('1', 1000)).toBe(true);
    expect(feed.headRevision()).toBe('2');
  });

  it('does not poll the log when every commit wakes it, and reads it on each wake-up', async () => {
    let wake: () => void = () => undefined;
    const complete = new ChangeFeed(
      store,
      { complete: true, subscribe: async (onWake) => ((wake = onWake), async () => undefined) },
      { pollIntervalMs: 20 },
    );
    await complete.start();
    try {
      await store.create(key('quiet'), obj('quiet'));
      expect(await complete.waitForNewer('1', 200)).toBe(false);
      expect(complete.headRevision()).toBe('1');
      wake();
      expect(await complete.waitForNewer('1', 1000)).toBe(true);
      expect(complete.headRevision()).toBe('2');
    } finally {
      await complete.stop();
    }
  });

  it('replays from the log what fell out of its memory window', async () => {
    for (let i = 0; i < 6; i++) await store.create(key(`x${i}`), obj(`x${i}`));
    await feed.poke();
    const all = await feed.changesAfter('1', 100);
    expect(all.map((c) => c.revision)).toEqual(['2', '3', '4', '5', '6', '7']);
    const fromWindow = await feed.changesAfter('5', 100);
    expect(fromWindow.map((c) => c.revision)).toEqual(['6', '7']);
  });

  it('keeps at most its byte bound of changes in memory, the newest always, and replays the rest from the log', async () => {
    const bounded = new ChangeFeed(store, null, { pollIntervalMs: 20, windowBytes: 1000, batchSize: 2 });
    await bounded.start();
    try {
      const pad = 'p'.repeat(300);
      for (let i = 0; i < 6; i++) await store.create(key(`big${i}`), { ...obj(`big${i}`), pad });
      await store.update(key('big5'), { ...obj('big5', 1), pad: 'q'.repeat(3000) });
      await bounded.poke();
      expect(bounded.windowStats()).toEqual({ changes: 1, bytes: expect.any(Number), oldestRevision: '8' });
      expect(bounded.windowStats().bytes).toBeGreaterThan(3000);
      await store.create(key('small'), obj('small'));
      await bounded.poke();
      const stats = bounded.windowStats();
      expect(stats.bytes).toBeLessThanOrEqual(1000);
      expect(stats.oldestRevision).toBe('9');
      const all = await bounded.changesAfter('1', 100);
      expect(all.map((c) => c.revision)).toEqual(['2', '3', '4', '5', '6', '7', '8', '9']);
      expect(all[6]).toMatchObject({ type: 'MODIFIED', object: { n: 1 }, previous: { pad } });
    } finally {
      await bounded.stop();
    }
  });

  it('lets go of a waiter at once when its signal aborts', async () => {
    const aborter = new AbortController();
    const waiting = feed.waitForNewer(feed.headRevision(), 60_000, aborter.signal);
    expect(feed.waiting()).toBe(1);
    aborter.abort();
    expect(await waiting).toBe(false);
    expect(feed.waiting()).toBe(0);
    expect(await feed.waitForNewer(feed.headRevision(), 60_000, aborter.signal)).toBe(false);
    expect(feed.waiting()).toBe(0);
  });

  it('ends every wait of a signal used for many waits when it aborts, and only those', async () => {
    const aborter = new AbortController();
    // Waits that ended by a change or timeout before: nothing of them may answer the abort.
    for (let i = 0; i < 5; i++) {
      const waited = feed.waitForNewer(feed.headRevision(), 60_000, aborter.signal);
      await store.create(key(`s${i}`), obj(`s${i}`));
      await feed.poke();
      expect(await waited).toBe(true);
    }
    expect(await feed.waitForNewer(feed.headRevision(), 10, aborter.signal)).toBe(false);
    const first = feed.waitForNewer(feed.headRevision(), 60_000, aborter.signal);
    const second = feed.waitForNewer(feed.headRevision(), 60_000, aborter.signal);
    const other = feed.waitForNewer(feed.headRevision(), 60_000, new AbortController().signal);
    expect(feed.waiting()).toBe(3);
    aborter.abort();
    expect(await first).toBe(false);
    expect(await second).toBe(false);
    expect(feed.waiting()).toBe(1);
    await store.create(key('s-last'), obj('s-last'));
    await feed.poke();
    expect(await other).toBe(true);
  });

  it('waits for a revision and gives up after the timeout', async () => {
    const waiting = feed.waitForRevision('2', 2000);
    await store.create(key('c'), obj('c'));
    expect(await waiting).toBe(true);
    expect(await feed.waitForRevision('99', 100)).toBe(false);
  });

  it('wakes its waiters when it falls behind compaction and resets, so followers find their gap', async () => {
    const slow = new ChangeFeed(store, null, { pollIntervalMs: 60_000 });
    await slow.start();
    try {
      const waiting = slow.waitForNewer(slow.headRevision(), 60_000);
      await store.create(key('a'), obj('a'));
      await store.compact();
      await slow.poke();
      expect(await waiting).toBe(true);
      expect(slow.headRevision()).toBe('2');
      await expect(slow.changesAfter('1', 10)).rejects.toThrow('compacted');
    } finally {
      await slow.stop();
    }
  });

  describe('subscriptions', () => {
    /** A subscriber that records what it is handed. */
    const recorder = () => {
      const got: string[][] = [];
      const ended: unknown[] = [];
      return { got, ended, subscriber: { next: (changes: readonly { revision: string }[]) => got.push(changes.map((c) => c.revision)), end: (err?: unknown) => ended.push(err ?? 'ended') } };
    };

    it('hands a subscriber at the head every later change once, in order, as the head passes it', async () => {
      const r = recorder();
      const unsubscribe = feed.subscribe(feed.headRevision(), r.subscriber);
      expect(unsubscribe).not.toBeNull();
      await store.create(key('a'), obj('a'));
      await store.create(key('b'), obj('b'));
      await feed.poke();
      await store.update(key('a'), obj('a', 1));
      await feed.poke();
      // batchSize 2: the first read took two changes, the second one.
      expect(r.got).toEqual([['2', '3'], ['4']]);
      unsubscribe!();
      expect(feed.subscribed()).toBe(0);
      await store.create(key('c'), obj('c'));
      await feed.poke();
      expect(r.got).toEqual([['2', '3'], ['4']]);
      expect(r.ended).toEqual([]);
    });

    it('does not subscribe a follower that is not at the head: it reads the changes it lacks first', async () => {
      await store.create(key('a'), obj('a'));
      await feed.poke();
      expect(feed.subscribe('1', recorder().subscriber)).toBeNull();
      expect(feed.subscribe('7', recorder().subscriber)).toBeNull();
      expect(feed.subscribed()).toBe(0);
    });

    it('drops a subscriber whose delivery throws, telling it why, and goes on with the others', async () => {
      const failing = { next: () => { throw new Error('socket gone'); }, end: jest.fn() };
      const r = recorder();
      feed.subscribe(feed.headRevision(), failing);
      feed.subscribe(feed.headRevision(), r.subscriber);
      await store.create(key('a'), obj('a'));
      await feed.poke();
      expect(failing.end).toHaveBeenCalledWith(new Error('socket gone'));
      expect(r.got).toEqual([['2']]);
      expect(feed.subscribed()).toBe(1);
    });

    it('lets go of its subscribers when it falls behind compaction and resets, and when it stops', async () => {
      const slow = new ChangeFeed(store, null, { pollIntervalMs: 60_000 });
      await slow.start();
      const r = recorder();
      slow.subscribe(slow.headRevision(), r.subscriber);
      await store.create(key('a'), obj('a'));
      await store.compact();
      await slow.poke();
      expect(r.ended).toEqual(['ended']);
      expect(r.got).toEqual([]);
      expect(slow.subscribed()).toBe(0);
      const late = recorder();
      slow.subscribe(slow.headRevision(), late.subscriber);
      await slow.stop();
      expect(late.ended).toEqual(['ended']);
      expect(slow.subscribe(slow.headRevision(), recorder().subscriber)).toBeNull();
    });
  });
});
