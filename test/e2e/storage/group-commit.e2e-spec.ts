import { KubeObject } from '../../../src/apimachinery/types';
import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { MvccStore } from '../../../src/storage/mvcc/mvcc-store';
import { KeyExistsError, ObjectKey, StaleRevisionError, StoredObject } from '../../../src/storage/mvcc/object-store';
import { SqlSession } from '../../../src/storage/engine/sql-session';
import { engineName, openTestDatabase, TestDatabase, testEngines } from '../../support/db';

let resources = 0;
const freshResource = () => `test.platform.io/grouped${++resources}`;
const keyOf = (resource: string, name: string): ObjectKey => ({ resource, namespace: 'ns', name });
const objectOf = (name: string, uid = `uid-${name}`): KubeObject => ({ metadata: { name, namespace: 'ns', uid }, spec: { name } });

/**
 * Group commit: concurrent writes share transactions, each keeps its own revision, and one
 * that fails (the key exists, a stale precondition, a value the database refuses) fails
 * alone, on every engine of the run.
 */
describe.each(testEngines())('group commit on %s', (engine) => {
  let db: TestDatabase;
  let store: MvccStore;
  let transactions = 0;
  let feed: ChangeFeed;

  beforeAll(async () => {
    db = await openTestDatabase(engine);
    const counted: SqlSession = {
      query: db.db.sql.query,
      transaction: (fn) => {
        transactions++;
        return db.db.sql.transaction(fn);
      },
    };
    store = new MvccStore(db.db.dataSource, counted, { groupCommit: true });
    feed = new ChangeFeed(store, null, { pollIntervalMs: 60_000 });
    await feed.start();
  });
  afterAll(async () => {
    await feed?.stop();
    await db?.destroy();
  });

  it(`runs on ${engineName(engine)}`, () => {
    expect(db.db.engine).toBe(engine);
  });

  it('writes that arrive together share transactions, each with its own revision, dense and in order', async () => {
    const r = freshResource();
    const before = BigInt(await store.currentRevision());
    const startedTransactions = transactions;
    const written = await Promise.all(Array.from({ length: 40 }, (_, i) => store.create(keyOf(r, `o-${i}`), objectOf(`o-${i}`))));
    const revisions = written.map((w) => BigInt(w.revision)).sort((a, b) => (a < b ? -1 : 1));
    expect(revisions).toEqual(Array.from({ length: 40 }, (_, i) => before + BigInt(i + 1)));
    expect(transactions - startedTransactions).toBeLessThan(40);
    for (const w of written) {
      expect(w.object.metadata.resourceVersion).toBe(w.revision);
      expect((await store.get(w.key))?.revision).toBe(w.revision);
    }
    // The feed has each exactly once, in revision order, without reading them back.
    const changes = await feed.changesAfter(before.toString(), 100);
    expect(changes.map((c) => c.revision)).toEqual(revisions.map(String));
    expect(new Set(changes.map((c) => c.key.name)).size).toBe(40);
  });

  it('a write that fails in a batch fails alone: the others commit with dense revisions, the failed one leaves nothing', async () => {
    const r = freshResource();
    const existing = await store.create(keyOf(r, 'taken'), objectOf('taken'));
    const updated = await store.create(keyOf(r, 'updated'), objectOf('updated'));
    const before = BigInt(await store.currentRevision());
    const startedTransactions = transactions;
    const outcomes = await Promise.allSettled<StoredObject>([
      store.create(keyOf(r, 'a'), objectOf('a')),
      // Already exists.
      store.create(keyOf(r, 'taken'), objectOf('taken')),
      store.create(keyOf(r, 'b'), objectOf('b')),
      // Refused by the database: a text column cannot hold NUL.
      store.create(keyOf(r, 'bad'), objectOf('bad', 'uid-\u0000')),
      // A stale precondition.
      store.update(keyOf(r, 'updated'), objectOf('updated'), { revision: existing.revision }),
      store.update(keyOf(r, 'updated'), { ...objectOf('updated'), spec: { v: 2 } }, { revision: updated.revision }),
      store.create(keyOf(r, 'c'), objectOf('c')),
    ]);
    expect(transactions - startedTransactions).toBeLessThan(7);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(KeyExistsError);
    expect((outcomes[3] as PromiseRejectedResult).reason).toHaveProperty('code');
    expect((outcomes[4] as PromiseRejectedResult).reason).toBeInstanceOf(StaleRevisionError);
    const committed = outcomes.filter((o): o is PromiseFulfilledResult<StoredObject> => o.status === 'fulfilled').map((o) => BigInt(o.value.revision));
    expect(committed.sort((a, b) => (a < b ? -1 : 1))).toEqual([before + 1n, before + 2n, before + 3n, before + 4n]);
    expect(await store.currentRevision()).toBe((before + 4n).toString());
    expect(await store.get(keyOf(r, 'bad'))).toBeNull();
    expect((await store.get(keyOf(r, 'taken')))?.revision).toBe(existing.revision);
    expect((await store.get(keyOf(r, 'updated')))?.object).toMatchObject({ spec: { v: 2 } });
    const changes = await feed.changesAfter(before.toString(), 100);
    expect(changes.map((c) => [c.type, c.key.name])).toEqual(
      expect.arrayContaining([
        ['ADDED', 'a'],
        ['ADDED', 'b'],
        ['MODIFIED', 'updated'],
        ['ADDED', 'c'],
      ]),
    );
    expect(changes.map((c) => c.revision)).toEqual(committed.map(String));
    // The log agrees with the feed.
    expect((await store.changesSince(before.toString(), 100)).map((c) => [c.revision, c.key.name])).toEqual(changes.map((c) => [c.revision, c.key.name]));
  });
});
