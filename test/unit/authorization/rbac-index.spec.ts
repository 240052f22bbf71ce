import { objectKey } from '../../../src/apimachinery/store-key';
import { namespaceType } from '../../../src/core/namespace';
import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { RbacIndex } from '../../../src/authorization/rbac/rbac-index.service';
import { SharedInformerFactory } from '../../../src/storage/informer/shared-informer-factory';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import { eventually } from '../../support/eventually';
import { MemoryStore } from '../../support/memory-store';
import { clusterRole, clusterRoleBinding, req, roleBinding, U, user } from './rbac-fixtures';

const RBAC = 'rbac.authorization.platform.io';
const key = (plural: string, name: string, namespace = '') => objectKey({ group: RBAC, plural, namespaced: namespace !== '' }, namespace, name);
const READ_PODS = [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }];

/** The informer behind the index: initial list, then the change feed, relist when history is gone. */
describe('RbacIndex (fed by list + change feed)', () => {
  let store: MemoryStore;
  let feed: ChangeFeed;
  let informers: SharedInformerFactory;
  let index: RbacIndex;
  const alice = user('alice');
  const listPods = req(alice, 'list', '', 'pods', { ns: 'ns1' });

  beforeEach(async () => {
    store = new MemoryStore();
    await store.create(key('clusterroles', 'reader'), clusterRole('reader', READ_PODS));
    await store.create(key('clusterrolebindings', 'alice'), clusterRoleBinding('alice', 'reader', [U('alice')]));
    await store.create(objectKey(namespaceType, '', 'ns1'), { metadata: { name: 'ns1' } });
    feed = new ChangeFeed(store, null, { pollIntervalMs: 20, windowSize: 100, batchSize: 50 });
    await feed.start();
    informers = new SharedInformerFactory(store, feed);
    index = new RbacIndex(informers);
  });

  afterEach(async () => {
    index.beforeApplicationShutdown();
    await informers.stop();
    await feed.stop();
  });

  it('answers from the initial list once ready', async () => {
    await index.ready();
    expect(index.counts()).toEqual({ Role: 0, ClusterRole: 1, RoleBinding: 0, ClusterRoleBinding: 1 });
    expect(new RbacAuthorizer('rbac', index).authorize(listPods).decision).toBe('Allow');
    expect(index.syncedRevision()).toBe('3');
  });

  it('applies creates, updates and deletes from the feed; other resources are ignored', async () => {
    await index.ready();
    const rbac = new RbacAuthorizer('rbac', index);
    const bob = user('bob');
    const bobGets = req(bob, 'get', '', 'pods', { ns: 'ns1', name: 'p' });
    const created = await store.create(key('rolebindings', 'bob', 'ns1'), roleBinding('ns1', 'bob', 'ClusterRole', 'reader', [U('bob')]));
    expect(await index.waitForRevision(created.revision, 2000)).toBe(true);
    expect(rbac.authorize(bobGets).decision).toBe('Allow');

    await store.update(key('clusterroles', 'reader'), clusterRole('reader', [{ apiGroups: [''], resources: ['services'], verbs: ['get'] }]));
    await eventually(() => expect(rbac.authorize(bobGets).decision).toBe('NoOpinion'), 2000, 10);

    const deleted = await store.delete(key('clusterrolebindings', 'alice'));
    await store.create(objectKey(namespaceType, '', 'ns2'), { metadata: { name: 'ns2' } });
    expect(await index.waitForRevision(deleted.revision, 2000)).toBe(true);
    expect(index.counts()).toEqual({ Role: 0, ClusterRole: 1, RoleBinding: 1, ClusterRoleBinding: 0 });
  });

  it('lists again when the feed cannot replay from where the index is', async () => {
    await index.ready();
    // The index stops seeing the feed's window; history older than now is compacted.
    for (let i = 0; i < 150; i++) await store.create(key('clusterroles', `filler-${i}`), clusterRole(`filler-${i}`, []));
    await store.create(key('clusterrolebindings', 'late'), clusterRoleBinding('late', 'reader', [U('late')]));
    await store.compact();
    await eventually(() => expect(index.clusterRole('filler-149')).toBeDefined(), 5000, 20);
    await eventually(() => expect(index.bindingsFor(user('late')).map((b) => b.name)).toEqual(['late']), 5000, 20);
    expect(index.counts().ClusterRole).toBe(151);
  });

  it('does not answer before the initial list and retries a failed one', async () => {
    const failing = new MemoryStore();
    const list = failing.list.bind(failing);
    let fail = true;
    failing.list = async (...args) => {
      if (fail) throw new Error('database unavailable');
      return list(...args);
    };
    const failingInformers = new SharedInformerFactory(failing, new ChangeFeed(failing, null));
    const idx = new RbacIndex(failingInformers);
    await expect(idx.ready()).rejects.toThrow('database unavailable');
    expect(failingInformers.syncStates().every((s) => !s.synced)).toBe(true);
    fail = false;
    await expect(idx.ready()).resolves.toBeUndefined();
    expect(failingInformers.syncStates().map((s) => s.synced)).toEqual([true, true, true, true]);
    await failingInformers.stop();
  });
});
