import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { Change, ObjectStore } from '../../../src/storage/mvcc/object-store';

/**
 * Behind PgBouncer, a statement sent while there is no primary is held until a server takes it:
 * the feed's read neither fails nor answers. Decisions waiting for the feed must be able to
 * tell that the store does not answer (and decide as during an outage) rather than wait it out.
 */
describe('change feed: a read of the log the store holds', () => {
  it('counts as not answered once it has waited longer than asked, and as answered again when it returns', async () => {
    let release: (changes: Change[]) => void = () => undefined;
    let held = false;
    const store = Object.assign(Object.create(null) as ObjectStore, {
      currentRevision: async () => '0',
      changesSince: () =>
        held
          ? new Promise<Change[]>((resolve) => {
              release = resolve;
            })
          : Promise.resolve([]),
    });
    const feed = new ChangeFeed(store, { subscribe: async () => async () => undefined, complete: true });
    await feed.start();
    try {
      await feed.poke();
      expect(feed.readsAnswered(20)).toBe(true);
      held = true;
      const reading = feed.poke();
      // Under way but not yet past the bound.
      expect(feed.readsAnswered(60_000)).toBe(true);
      const since = Date.now();
      while (feed.readsAnswered(20)) {
        if (Date.now() - since > 5_000) throw new Error('a held read still counts as answered');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(Date.now() - since).toBeGreaterThanOrEqual(15);
      release([]);
      await reading;
      expect(feed.readsAnswered(20)).toBe(true);
    } finally {
      held = false;
      release([]);
      await feed.stop();
    }
  });
});
