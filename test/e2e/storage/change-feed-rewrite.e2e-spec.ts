import { Logger } from '@nestjs/common';
import { ChangeFeedService } from '../../../src/storage/changefeed/change-feed.service';
import { Status } from '../../../src/apimachinery/types';
import { Change } from '../../../src/storage/mvcc/object-store';
import { engineName, openTestDatabase, TestDatabase, testEngines } from '../../support/db';

const thing = (name: string) => ({ resource: 'example.com/things', namespace: 'ns', name });

/**
 * The change feed's check of its recent history against a real store: objects read back from
 * the log (jsonb: keys in another order) are the objects this process wrote, so a reconnect
 * ends no watch; a log that lost its last commits and gave their revisions to other writes
 * (a failover, done here by hand on the log) ends every watch with 410 and is followed on.
 */
describe.each(testEngines())('the change feed after its connection moved, on %s', (engine) => {
  let td: TestDatabase;
  let feed: ChangeFeedService;
  let wake: (revision?: string) => void;

  beforeAll(() => Logger.overrideLogger(['error']));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn']));
  beforeEach(async () => {
    td = await openTestDatabase(engine);
    feed = new ChangeFeedService(td.store, {
      subscribe: async (onWake) => {
        wake = onWake;
        return async () => undefined;
      },
      guardPollIntervalMs: 3_600_000,
    });
    await feed.start();
  });
  afterEach(async () => {
    await feed.stop();
    await td.destroy();
  });

  /** An open watch as the feed's service holds it: what it was sent at the end. */
  function openWatch(): { errors: Status[]; closed: () => boolean } {
    const errors: Status[] = [];
    let closed = false;
    let ended!: () => void;
    const over = new Promise<void>((resolve) => (ended = resolve));
    const stream = {
      unresponsive: false,
      send: (event: { type: 'ERROR'; object: Status }) => errors.push(event.object) > 0,
      close: () => {
        closed = true;
        ended();
      },
    };
    void feed.serve(stream, { group: 'example.com', version: 'v1', kind: 'Thing', resource: 'things' }, () => over);
    return { errors, closed: () => closed };
  }

  const names = (changes: Change[]) => changes.map((c) => `${c.revision}:${c.key.name}`);

  it(`ends no watch when the log holds what was delivered (${engineName(engine)})`, async () => {
    // Keys in an order jsonb does not keep, nested, unicode, numbers.
    const created = await td.store.create(thing('a'), {
      metadata: { namespace: 'ns', name: 'a', uid: 'u-a', labels: { zeta: '1', a: '2' }, annotations: { 'x/ü': 'ß' } },
      spec: { z: 1.5, b: [3, { y: true, c: null }], a: 'é' },
    } as never);
    await td.store.update(thing('a'), { ...created.object, spec: { replicas: 2 } } as never);
    await td.store.create(thing('b'), { metadata: { namespace: 'ns', name: 'b', uid: 'u-b' } });
    await td.store.delete(thing('b'));
    expect(feed.headRevision()).toBe(await td.store.currentRevision());
    const watch = openWatch();

    wake('');
    await feed.poke();

    expect(feed.historyRewrites()).toBe(0);
    expect(watch.errors).toEqual([]);
    expect(watch.closed()).toBe(false);
  });

  it(`ends every watch with 410 when the log lost delivered commits and numbered other writes the same (${engineName(engine)})`, async () => {
    for (const name of ['a', 'b', 'c']) await td.store.create(thing(name), { metadata: { namespace: 'ns', name, uid: `u-${name}` } });
    const head = BigInt(feed.headRevision());
    const watch = openWatch();
    // The new primary never had the last two commits: its log ends before them.
    await td.db.dataSource.transaction(async (tx) => {
      await tx.query(`SELECT revision FROM kv_revision WHERE id = 1 FOR UPDATE`);
      await tx.query(`DELETE FROM kv_log WHERE revision > $1`, [String(head - 2n)]);
      await tx.query(`DELETE FROM kv_current WHERE name IN ('b', 'c')`);
      await tx.query(`UPDATE kv_revision SET revision = $1 WHERE id = 1`, [String(head - 2n)]);
    });

    // This process writes there again: its commit takes a revision the feed delivered as another write.
    await td.store.create(thing('d'), { metadata: { namespace: 'ns', name: 'd', uid: 'u-d' } });
    await feed.poke();

    expect(feed.historyRewrites()).toBe(1);
    expect(watch.errors.map((s) => [s.code, s.reason])).toEqual([[410, 'Expired']]);
    expect(watch.closed()).toBe(true);
    // The feed follows the new log from there: its window is the store's history.
    const stored = await td.store.changesSince(String(head - 3n), 100);
    expect(names(await feed.changesAfter(String(head - 3n), 100))).toEqual(names(stored));
    expect(names(stored)).toEqual([`${head - 2n}:a`, `${head - 1n}:d`]);
  });
});
