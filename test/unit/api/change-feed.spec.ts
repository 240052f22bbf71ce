import { ChangeFeed } from '../../../src/api/watch/change-feed';
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

  it('replays from the log what fell out of its memory window', async () => {
    for (let i = 0; i < 6; i++) await store.create(key(`x${i}`), obj(`x${i}`));
    await feed.poke();
    const all = await feed.changesAfter('1', 100);
    expect(all.map((c) => c.revision)).toEqual(['2', '3', '4', '5', '6', '7']);
    const fromWindow = await feed.changesAfter('5', 100);
    expect(fromWindow.map((c) => c.revision)).toEqual(['6', '7']);
  });

  it('waits for a revision and gives up after the timeout', async () => {
    const waiting = feed.waitForRevision('2', 2000);
    setTimeout(() => void store.create(key('c'), obj('c')), 30);
    expect(await waiting).toBe(true);
    expect(await feed.waitForRevision('99', 100)).toBe(false);
  });
});
