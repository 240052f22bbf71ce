import { Change, LocalCommitListener } from '../../../src/storage/mvcc/object-store';
import { engineName, openTestDatabase, TestDatabase, testEngines } from '../../support/db';

const RESOURCE = 'g/things';
const item = (name: string, namespace = '') => ({ namespace, name, object: { metadata: { name, ...(namespace ? { namespace } : {}), uid: `uid-${name}` }, value: name } });

describe.each(testEngines())('createMissing, several keys in one statement (%s)', (engine) => {
  let t: TestDatabase;
  const committed: Change[] = [];
  const committing: string[] = [];
  const listener: LocalCommitListener = {
    committing: (revision) => committing.push(revision),
    committed: (change) => committed.push(change),
    abandoned: () => undefined,
  };

  beforeAll(async () => {
    t = await openTestDatabase(engine);
    t.store.addCommitListener(listener);
  });
  afterAll(() => t.destroy());
  beforeEach(() => {
    committed.length = 0;
    committing.length = 0;
  });

  it(`gives each new key its own revision in order, skips keys that exist, and tells the commits (${engineName(engine)})`, async () => {
    const before = BigInt(await t.store.currentRevision());
    await t.store.create({ resource: RESOURCE, namespace: '', name: 'b' }, item('b').object);
    const stored = await t.store.createMissing(RESOURCE, [item('a'), item('b'), item('c', 'ns')], { author: { username: 'recorder' } });

    expect(stored.map((s) => [s.key.namespace, s.key.name, s.revision])).toEqual([
      ['', 'a', String(before + 2n)],
      ['ns', 'c', String(before + 3n)],
    ]);
    expect(await t.store.currentRevision()).toBe(String(before + 3n));
    // The existing key kept its first object and revision.
    expect((await t.store.get({ resource: RESOURCE, namespace: '', name: 'b' }))!.revision).toBe(String(before + 1n));
    const c = await t.store.get({ resource: RESOURCE, namespace: 'ns', name: 'c' });
    expect(c!.object).toMatchObject({ value: 'c', metadata: { resourceVersion: String(before + 3n), uid: 'uid-c' } });
    // The log holds them as creates, with their author, in revision order, with no gap.
    const log = await t.store.changesSince(String(before), 10);
    expect(log.map((ch) => [ch.type, ch.key.name, ch.revision, ch.author?.username])).toEqual([
      ['ADDED', 'b', String(before + 1n), undefined],
      ['ADDED', 'a', String(before + 2n), 'recorder'],
      ['ADDED', 'c', String(before + 3n), 'recorder'],
    ]);
    // The change feed's listener hears of each revision as a single write's.
    expect(committing).toEqual([String(before + 1n), String(before + 2n), String(before + 3n)]);
    expect(committed.map((ch) => [ch.key.name, ch.revision, ch.object.metadata.resourceVersion])).toEqual([
      ['b', String(before + 1n), String(before + 1n)],
      ['a', String(before + 2n), String(before + 2n)],
      ['c', String(before + 3n), String(before + 3n)],
    ]);
  });

  it('takes no revision when every key exists, and shares a transaction with concurrent single writes without a gap', async () => {
    const before = BigInt(await t.store.currentRevision());
    expect(await t.store.createMissing(RESOURCE, [item('a'), item('b')])).toEqual([]);
    expect(await t.store.currentRevision()).toBe(String(before));

    const written = await Promise.all([
      t.store.create({ resource: RESOURCE, namespace: '', name: 'd' }, item('d').object),
      t.store.createMissing(RESOURCE, [item('e'), item('f')]),
      t.store.create({ resource: RESOURCE, namespace: '', name: 'g' }, item('g').object),
    ]);
    const revisions = [written[0].revision, ...written[1].map((s) => s.revision), written[2].revision].map(BigInt).sort((x, y) => (x < y ? -1 : 1));
    expect(revisions).toEqual([before + 1n, before + 2n, before + 3n, before + 4n]);
    const log = await t.store.changesSince(String(before), 10);
    expect(log.map((ch) => ch.revision)).toEqual(revisions.map(String));
  });
});
