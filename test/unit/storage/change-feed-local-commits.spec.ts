import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { Change, LocalCommitListener, ObjectStore } from '../../../src/storage/mvcc/object-store';
import { MemoryStore } from '../../support/memory-store';

const key = (name: string) => ({ resource: 'g/things', namespace: '', name });
const obj = (name: string) => ({ metadata: { name } });

/**
 * A shared log (MemoryStore) written by "this process" and by "another replica". This
 * process's writes reach the feed through the commit listener as the real store delivers
 * them; the other replica's only through the log and a NOTIFY naming their revision.
 */
class TwoWriters {
  readonly log = new MemoryStore();
  listener: LocalCommitListener | null = null;
  logReads = 0;
  /** The ObjectStore the feed sees: the shared log, counting reads, with commit listeners. */
  readonly store: ObjectStore;
  private wake: (revision?: string) => void = () => undefined;

  constructor() {
    const log = this.log;
    this.store = Object.assign(Object.create(log) as ObjectStore, {
      changesSince: (after: string, limit: number, maxBytes?: number) => {
        this.logReads++;
        return log.changesSince(after, limit, maxBytes);
      },
      addCommitListener: (listener: LocalCommitListener) => {
        this.listener = listener;
        return () => (this.listener = null);
      },
    });
  }

  feed(): ChangeFeed {
    return new ChangeFeed(this.store, {
      complete: true,
      subscribe: async (onWake) => {
        this.wake = onWake;
        return async () => undefined;
      },
    });
  }

  /** A write of another replica: in the log; its NOTIFY is sent separately (`notify`). */
  async foreign(name: string): Promise<Change> {
    const stored = await this.log.create(key(name), obj(name));
    return this.changeAt(stored.revision);
  }

  /** A local write committed in the log; what the store would hand the listener. */
  async committedLocally(name: string): Promise<Change> {
    const stored = await this.log.create(key(name), obj(name));
    return this.changeAt(stored.revision);
  }

  notify(revision: string): void {
    this.wake(revision);
  }

  private changeAt(revision: string): Change {
    return this.log.log.find((c) => c.revision === revision)!;
  }
}

const revisionsOf = (changes: Change[]) => changes.map((c) => c.revision);

/** Lets the feed's log reads (promises) finish. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ChangeFeed with the store handing it local commits', () => {
  let w: TwoWriters;
  let feed: ChangeFeed;

  beforeEach(async () => {
    w = new TwoWriters();
    await w.log.create(key('before'), obj('before'));
    feed = w.feed();
    await feed.start();
    w.logReads = 0;
  });
  afterEach(() => feed.stop());

  it('takes local writes as they commit, without reading them back, and ignores their NOTIFYs', async () => {
    for (const name of ['a', 'b', 'c']) {
      const change = await w.committedLocally(name);
      w.listener!.committing(change.revision);
      w.notify(change.revision);
      w.listener!.committed(change);
      w.notify(change.revision);
    }
    await settle();
    expect(feed.headRevision()).toBe('4');
    expect(revisionsOf(await feed.changesAfter('1', 10))).toEqual(['2', '3', '4']);
    expect(w.logReads).toBe(0);
  });

  it('holds a local change committed past a gap until the revisions before it arrive, then hands out each once, in order', async () => {
    const first = await w.committedLocally('a');
    const second = await w.committedLocally('b');
    w.listener!.committing(first.revision);
    w.listener!.committed(second);
    expect(feed.headRevision()).toBe('1');
    expect(await feed.changesAfter('1', 10)).toEqual([]);
    w.listener!.committed(first);
    expect(feed.headRevision()).toBe('3');
    expect((await feed.changesAfter('1', 10)).map((c) => c.key.name)).toEqual(['a', 'b']);
    expect(w.logReads).toBe(0);
  });

  it('reads a foreign change once when its NOTIFY comes, and interleaves it with local ones in revision order, none twice', async () => {
    const foreign = await w.foreign('theirs-1');
    const local = await w.committedLocally('ours-1');
    // The local commit arrives first: it waits for the foreign revision below it.
    w.listener!.committing(local.revision);
    w.listener!.committed(local);
    expect(feed.headRevision()).toBe('1');
    w.notify(foreign.revision);
    await settle();
    expect(w.logReads).toBe(1);
    expect(feed.headRevision()).toBe('3');
    // Then a local write, another foreign one, and a local one whose NOTIFY comes after the next foreign NOTIFY.
    const local2 = await w.committedLocally('ours-2');
    w.listener!.committing(local2.revision);
    w.listener!.committed(local2);
    const foreign2 = await w.foreign('theirs-2');
    const local3 = await w.committedLocally('ours-3');
    w.listener!.committing(local3.revision);
    w.notify(foreign2.revision);
    w.listener!.committed(local3);
    w.notify(local2.revision);
    w.notify(local3.revision);
    await settle();
    const all = await feed.changesAfter('1', 100);
    expect(all.map((c) => c.key.name)).toEqual(['theirs-1', 'ours-1', 'ours-2', 'theirs-2', 'ours-3']);
    expect(revisionsOf(all)).toEqual(['2', '3', '4', '5', '6']);
    expect(w.logReads).toBeLessThanOrEqual(3);
    expect(feed.headRevision()).toBe('6');
  });

  it('does not hand out a local change twice when a log read returns it too', async () => {
    const foreign = await w.foreign('theirs');
    const local = await w.committedLocally('ours');
    w.listener!.committing(local.revision);
    w.notify(foreign.revision);
    // The read (2 and 3) is under way when the local commit arrives.
    w.listener!.committed(local);
    await settle();
    await feed.poke();
    expect(revisionsOf(await feed.changesAfter('1', 10))).toEqual(['2', '3']);
    expect(feed.windowStats().changes).toBe(2);
  });

  it('reads the log when a write it was committing fails after a NOTIFY named its revision (another writer took the number)', async () => {
    w.listener!.committing('2');
    w.notify('2');
    await settle();
    expect(w.logReads).toBe(0);
    // Our write rolled back; another replica's write got revision 2 and committed.
    await w.foreign('theirs');
    w.listener!.abandoned('2');
    await settle();
    expect(w.logReads).toBe(1);
    expect((await feed.changesAfter('1', 10)).map((c) => c.key.name)).toEqual(['theirs']);
  });

  it('does not read the log for a failed write nobody else committed', async () => {
    w.listener!.committing('2');
    w.listener!.abandoned('2');
    await settle();
    expect(w.logReads).toBe(0);
    expect(feed.headRevision()).toBe('1');
  });

  it('hands a local commit to subscribers as it commits, before the write returns, and a change held past a gap only once the gap fills', async () => {
    const got: string[] = [];
    feed.subscribe(feed.headRevision(), { next: (changes) => got.push(...revisionsOf([...changes])), end: () => undefined });
    const first = await w.committedLocally('a');
    const second = await w.committedLocally('b');
    w.listener!.committing(first.revision);
    w.listener!.committed(second);
    expect(got).toEqual([]);
    w.listener!.committed(first);
    expect(got).toEqual(['2', '3']);
    expect(w.logReads).toBe(0);
  });

  it('wakes followers waiting for a newer revision when a local commit arrives', async () => {
    const waiting = feed.waitForNewer('1', 5000);
    const change = await w.committedLocally('a');
    w.listener!.committing(change.revision);
    w.listener!.committed(change);
    await expect(waiting).resolves.toBe(true);
  });
});
