import { KubeObject } from '../../../src/apimachinery/types';
import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { Informer, InformerEventHandler, NAMESPACE_INDEX } from '../../../src/storage/informer/informer';
import { StoreRangeOptions } from '../../../src/storage/mvcc/object-store';
import { SharedInformerFactory } from '../../../src/storage/informer/shared-informer-factory';
import { eventually } from '../../support/eventually';
import { MemoryStore } from '../../support/memory-store';

const WIDGETS = 'example.com/widgets';
const widget = (namespace: string, name: string) => ({ resource: WIDGETS, namespace, name });
const gadget = (namespace: string, name: string) => ({ resource: 'example.com/gadgets', namespace, name });
const obj = (namespace: string, name: string, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { namespace, name }, ...extra });

/** Every event a handler got, as [type, key, resourceVersions]. */
function recorder() {
  const events: Array<[string, string, ...string[]]> = [];
  const id = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
  const handler: InformerEventHandler = {
    onAdd: (o) => events.push(['add', id(o), o.metadata.resourceVersion!]),
    onUpdate: (old, o) => events.push(['update', id(o), old.metadata.resourceVersion!, o.metadata.resourceVersion!]),
    onDelete: (o) => events.push(['delete', id(o), o.metadata.resourceVersion!]),
  };
  return { events, handler };
}

describe('Informer', () => {
  let store: MemoryStore;
  let feed: ChangeFeed;
  let informer: Informer;

  beforeEach(async () => {
    store = new MemoryStore();
    // The feed reads the log only when poked, so each test decides what the informer has seen.
    feed = new ChangeFeed(store, null, { pollIntervalMs: 60_000, windowSize: 100, batchSize: 50 });
    await feed.start();
    informer = new Informer(WIDGETS, store, feed, { pageSize: 2, idleWakeMs: 200, retryMs: 20 });
  });
  afterEach(async () => {
    await informer.stop();
    await feed.stop();
  });

  it('lists in pages at one revision, then reports synced', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) await store.create(widget('ns1', name), obj('ns1', name));
    await store.create(gadget('ns1', 'other'), obj('ns1', 'other'));
    const calls: Array<StoreRangeOptions | undefined> = [];
    const list = store.list.bind(store);
    store.list = async (resource, opts) => {
      calls.push(opts);
      return list(resource, opts);
    };
    const { events, handler } = recorder();
    informer.addEventHandler(handler);
    expect(informer.hasSynced()).toBe(false);

    await informer.start();
    expect(informer.hasSynced()).toBe(true);
    await expect(informer.whenSynced).resolves.toBeUndefined();
    // Three pages of two; every page after the first reads the first page's revision.
    expect(calls.map((c) => [c?.limit, c?.atRevision, c?.after?.name])).toEqual([
      [2, undefined, undefined],
      [2, '6', 'b'],
      [2, '6', 'd'],
    ]);
    expect(informer.revision()).toBe('6');
    expect(informer.listKeys().sort()).toEqual(['ns1/a', 'ns1/b', 'ns1/c', 'ns1/d', 'ns1/e']);
    expect(events.map((e) => e.slice(0, 2))).toEqual([
      ['add', 'ns1/a'],
      ['add', 'ns1/b'],
      ['add', 'ns1/c'],
      ['add', 'ns1/d'],
      ['add', 'ns1/e'],
    ]);
  });

  it('delivers adds, updates with the old object, and deletes with the last state from the feed', async () => {
    await store.create(widget('ns1', 'a'), obj('ns1', 'a', { v: 1 }));
    const { events, handler } = recorder();
    informer.addEventHandler(handler);
    await informer.start();

    await store.create(widget('ns2', 'b'), obj('ns2', 'b'));
    await store.update(widget('ns1', 'a'), obj('ns1', 'a', { v: 2 }));
    await store.create(gadget('ns1', 'ignored'), obj('ns1', 'ignored'));
    const deleted = await store.delete(widget('ns2', 'b'));
    await feed.poke();
    expect(await informer.waitForRevision(deleted.revision, 2000)).toBe(true);

    expect(events).toEqual([
      ['add', 'ns1/a', '1'],
      ['add', 'ns2/b', '2'],
      ['update', 'ns1/a', '1', '3'],
      ['delete', 'ns2/b', '5'],
    ]);
    expect(informer.get('ns1', 'a')).toMatchObject({ v: 2, metadata: { resourceVersion: '3' } });
    expect(informer.get('ns2', 'b')).toBeUndefined();
    expect(informer.revision()).toBe('5');
  });

  it('keeps its indexes current: the namespace index and added ones', async () => {
    await store.create(widget('ns1', 'a'), obj('ns1', 'a', { color: 'red' }));
    informer.addIndexers({ color: (o) => [String((o as { color?: string }).color)] });
    await informer.start();
    await store.create(widget('ns2', 'b'), obj('ns2', 'b', { color: 'red' }));
    const last = await store.update(widget('ns1', 'a'), obj('ns1', 'a', { color: 'blue' }));
    await feed.poke();
    await informer.waitForRevision(last.revision, 2000);

    const names = (objects: KubeObject[]) => objects.map((o) => o.metadata.name).sort();
    expect(names(informer.byIndex('color', 'red'))).toEqual(['b']);
    expect(names(informer.byIndex('color', 'blue'))).toEqual(['a']);
    expect(names(informer.byIndex(NAMESPACE_INDEX, 'ns2'))).toEqual(['b']);
    expect(informer.indexValues(NAMESPACE_INDEX).sort()).toEqual(['ns1', 'ns2']);
    expect(() => informer.byIndex('size', 'x')).toThrow('no index size');
  });

  it('lists again when the feed can no longer replay (410), delivering what changed meanwhile', async () => {
    for (const name of ['gone', 'changed', 'same']) await store.create(widget('ns1', name), obj('ns1', name));
    const { events, handler } = recorder();
    informer.addEventHandler(handler);
    await informer.start();
    events.length = 0;

    // Changes the informer never sees one by one: their history is compacted away.
    await store.delete(widget('ns1', 'gone'));
    await store.update(widget('ns1', 'changed'), obj('ns1', 'changed', { v: 2 }));
    await store.create(widget('ns1', 'new'), obj('ns1', 'new'));
    await store.compact();
    await feed.poke();
    await informer.catchUp();

    expect(events).toEqual([
      ['delete', 'ns1/gone', '1'],
      ['update', 'ns1/changed', '2', '5'],
      ['add', 'ns1/new', '6'],
    ]);
    expect(informer.listKeys().sort()).toEqual(['ns1/changed', 'ns1/new', 'ns1/same']);
    expect(informer.revision()).toBe('6');

    // And it keeps following from the new list.
    const after = await store.create(widget('ns1', 'later'), obj('ns1', 'later'));
    await feed.poke();
    expect(await informer.waitForRevision(after.revision, 2000)).toBe(true);
    expect(events[events.length - 1]).toEqual(['add', 'ns1/later', '7']);
  });

  it('gives a handler added after the first list an add for each cached object', async () => {
    await store.create(widget('ns1', 'a'), obj('ns1', 'a'));
    await informer.start();
    const { events, handler } = recorder();
    const remove = informer.addEventHandler(handler);
    expect(events).toEqual([['add', 'ns1/a', '1']]);
    remove();
    const b = await store.create(widget('ns1', 'b'), obj('ns1', 'b'));
    await feed.poke();
    await informer.waitForRevision(b.revision, 2000);
    expect(events).toHaveLength(1);
  });

  it('keeps delivering to the other handlers when one throws', async () => {
    const { events, handler } = recorder();
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('broken handler');
      },
    });
    informer.addEventHandler(handler);
    (informer as any).logger = { error: () => undefined, warn: () => undefined };
    await informer.start();
    const a = await store.create(widget('ns1', 'a'), obj('ns1', 'a'));
    await feed.poke();
    expect(await informer.waitForRevision(a.revision, 2000)).toBe(true);
    expect(events).toEqual([['add', 'ns1/a', '1']]);
  });

  it('rejects start when the first list fails and lists again on the next start', async () => {
    await store.create(widget('ns1', 'a'), obj('ns1', 'a'));
    const list = store.list.bind(store);
    let fail = true;
    store.list = async (...args) => {
      if (fail) throw new Error('database unavailable');
      return list(...args);
    };
    await expect(informer.start()).rejects.toThrow('database unavailable');
    expect(informer.hasSynced()).toBe(false);
    expect(informer.isStarted()).toBe(false);
    fail = false;
    await informer.start();
    expect(informer.hasSynced()).toBe(true);
    expect(informer.listKeys()).toEqual(['ns1/a']);
  });

  it('stops following on stop: no more events, waits answer false, start is refused', async () => {
    await informer.start();
    const { events, handler } = recorder();
    informer.addEventHandler(handler);
    await informer.stop();
    expect(informer.stopped).toBe(true);
    const a = await store.create(widget('ns1', 'a'), obj('ns1', 'a'));
    await feed.poke();
    expect(await informer.waitForRevision(a.revision, 300)).toBe(false);
    expect(events).toEqual([]);
    await expect(informer.start()).rejects.toThrow('stopped');
  });

  it('follows changes the feed reads by itself (no poke)', async () => {
    const polling = new ChangeFeed(store, null, { pollIntervalMs: 20 });
    await polling.start();
    const follower = new Informer(WIDGETS, store, polling);
    try {
      await follower.start();
      await store.create(widget('ns1', 'a'), obj('ns1', 'a'));
      await eventually(() => expect(follower.get('ns1', 'a')).toBeDefined(), 3000, 10);
    } finally {
      await follower.stop();
      await polling.stop();
    }
  });
});

describe('SharedInformerFactory', () => {
  it('shares one informer per resource and reports the sync state of the started ones', async () => {
    const store = new MemoryStore();
    const feed = new ChangeFeed(store, null, { pollIntervalMs: 60_000 });
    await feed.start();
    const factory = new SharedInformerFactory(store, feed);
    try {
      const widgets = factory.informerFor(WIDGETS);
      expect(factory.informerFor(WIDGETS)).toBe(widgets);
      factory.informerFor('example.com/gadgets');
      expect(factory.informers().map((i) => i.resource)).toEqual([WIDGETS, 'example.com/gadgets']);
      expect(factory.syncStates()).toEqual([]);
      await store.create(widget('ns1', 'a'), obj('ns1', 'a'));
      await widgets.start();
      expect(factory.syncStates()).toEqual([{ resource: WIDGETS, synced: true, revision: '1' }]);
      await factory.stop();
      expect(widgets.stopped).toBe(true);
    } finally {
      await factory.stop();
      await feed.stop();
    }
  });

  it('waits for the started informers to sync, or until its timeout, answering whether all did', async () => {
    const store = new MemoryStore();
    const feed = new ChangeFeed(store, null, { pollIntervalMs: 60_000 });
    await feed.start();
    const factory = new SharedInformerFactory(store, feed, { retryMs: 10 });
    try {
      await store.create(widget('ns1', 'a'), obj('ns1', 'a'));
      factory.informerFor('example.com/gadgets'); // never started: not waited for
      // A first list that is slow to answer: the wait covers it.
      const list = store.list.bind(store);
      let release!: () => void;
      const listed = new Promise<void>((resolve) => (release = resolve));
      store.list = async (resource, opts) => {
        if (resource === WIDGETS) await listed;
        return list(resource, opts);
      };
      const widgets = factory.informerFor(WIDGETS);
      void widgets.start();
      expect(await factory.waitForCacheSync(30)).toBe(false);
      const waiting = factory.waitForCacheSync(10_000);
      release();
      expect(await waiting).toBe(true);
      expect(widgets.hasSynced()).toBe(true);
    } finally {
      await factory.stop();
      await feed.stop();
    }
  });
});
