import { Logger } from '@nestjs/common';
import { ChangeFeed, ChangeSubscriber } from '../../../src/storage/changefeed/change-feed';
import { Change, ObjectStore } from '../../../src/storage/mvcc/object-store';

/**
 * Behind a pooler in transaction mode the feed polls the log and no listener reconnects after
 * a failover. When the new primary lacks the old one's last commit and gives its revision to
 * another write, the log reads themselves may all succeed: only the answer to "which server is
 * this" tells the feed to check what it delivered.
 */

function change(revision: number, name: string): Change {
  return { type: 'ADDED', key: { resource: 'g/things', namespace: '', name }, revision: String(revision), object: { metadata: { name } }, bytes: 10 };
}

class PolledLog {
  log: Change[] = [];
  instance = 'n1:5432 started 09:00';
  readonly store = Object.assign(Object.create(null) as ObjectStore, {
    currentRevision: async () => String(this.log.length),
    changesSince: async (after: string, limit: number) => this.log.filter((c) => BigInt(c.revision) > BigInt(after)).slice(0, limit),
  });
  write(name: string): void {
    this.log.push(change(this.log.length + 1, name));
  }
}

async function until(what: string, condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function recorder(): ChangeSubscriber & { got: string[]; ended: boolean } {
  const s = {
    got: [] as string[],
    ended: false,
    next: (changes: readonly Change[]) => s.got.push(...changes.map((c) => `${c.revision}:${c.key.name}`)),
    end: () => {
      s.ended = true;
    },
  };
  return s;
}

describe('change feed: a polled log read from another server', () => {
  let feed: ChangeFeed;
  beforeAll(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
  afterEach(async () => feed?.stop());

  it('checks its history when the server answering changes, and ends its followers where the log was rewritten', async () => {
    const shared = new PolledLog();
    ['a', 'b', 'c'].forEach((name) => shared.write(name));
    feed = new ChangeFeed(shared.store, { subscribe: async () => async () => undefined, guardPollIntervalMs: 10, serverInstance: async () => shared.instance });
    await feed.start();
    const before = recorder();
    expect(feed.subscribe('3', before)).not.toBeNull();
    shared.write('d');
    shared.write('e-lost');
    await until('the followers to have 5', () => before.got.length === 2);
    expect(before.got).toEqual(['4:d', '5:e-lost']);

    // Failover: the new primary has 1–4; its next writes take 5 and 6. Every read succeeds.
    shared.log.pop();
    shared.instance = 'n2:5432 started 09:05';
    shared.write('f');
    shared.write('g');

    await until('the rewrite to be found', () => feed.historyRewrites() === 1);
    expect(before.ended).toBe(true);
    // Nothing the new server numbered the same as a lost write was handed to the old follower...
    expect(before.got).toEqual(['4:d', '5:e-lost']);
    // ...and the feed reads on from the new server's history: 5 is f now.
    await until('the head at 6', () => feed.headRevision() === '6');
    expect((await feed.changesAfter('4', 10)).map((c) => `${c.revision}:${c.key.name}`)).toEqual(['5:f', '6:g']);
  });

  it('does not end its followers when the server changed but holds what was delivered', async () => {
    const shared = new PolledLog();
    shared.write('a');
    feed = new ChangeFeed(shared.store, { subscribe: async () => async () => undefined, guardPollIntervalMs: 10, serverInstance: async () => shared.instance });
    await feed.start();
    const follower = recorder();
    feed.subscribe('1', follower);
    shared.write('b');
    await until('b', () => follower.got.length === 1);
    shared.instance = 'n2:5432 started 09:05';
    shared.write('c');
    await until('c', () => follower.got.length === 2);
    // Another poll after the check, so a 410 would have come by now.
    shared.write('d');
    await until('d', () => follower.got.length === 3);
    expect(follower.got).toEqual(['2:b', '3:c', '4:d']);
    expect(follower.ended).toBe(false);
    expect(feed.historyRewrites()).toBe(0);
  });
});
