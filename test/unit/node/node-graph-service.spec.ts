import { getEventListeners } from 'node:events';
import { objectKey, storageResource } from '../../../src/apimachinery/store-key';
import { persistentVolumeType } from '../../../src/core/kinds/persistent-volume';
import { podType } from '../../../src/core/kinds/pod';
import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { SharedInformerFactory } from '../../../src/storage/informer/shared-informer-factory';
import { NodeGraphService } from '../../../src/authorization/node/node-graph.service';
import { MemoryStore } from '../../support/memory-store';
import { eventually } from '../../support/eventually';
import { claimVolume, pod, pv, secretVolume } from './fixtures';

const podKey = (name: string) => objectKey(podType, 'ns', name);
const pvKey = (name: string) => objectKey(persistentVolumeType, '', name);

describe('NodeGraphService', () => {
  let store: MemoryStore;
  let feed: ChangeFeed;
  let informers: SharedInformerFactory;
  let service: NodeGraphService;

  beforeEach(async () => {
    store = new MemoryStore();
    await store.create(podKey('web'), pod('ns', 'web', { nodeName: 'n1', volumes: [secretVolume('s', 'mine'), claimVolume('d', 'data')] }));
    await store.create(pvKey('vol'), pv('vol', { claimRef: { namespace: 'ns', name: 'data' }, cephfs: { monitors: ['m'], secretRef: { name: 'ceph' } } }));
    feed = new ChangeFeed(store, null, { pollIntervalMs: 20, windowSize: 100, batchSize: 50 });
    await feed.start();
    informers = new SharedInformerFactory(store, feed);
    service = new NodeGraphService(informers);
  });
  afterEach(async () => {
    service.beforeApplicationShutdown();
    await informers.stop();
    await feed.stop();
  });

  it('builds the graph from the stored pods and volumes', async () => {
    await service.start();
    expect(service.revision).toBe('2');
    expect(service.hasPathFrom('n1', 'secret', 'ns', 'mine')).toBe(true);
    expect(service.hasPathFrom('n1', 'secret', 'ns', 'ceph')).toBe(true);
    expect(service.hasPathFrom('n2', 'secret', 'ns', 'mine')).toBe(false);
  });

  it('follows writes from the change feed', async () => {
    await service.start();
    await store.update(podKey('web'), pod('ns', 'web', { nodeName: 'n2', volumes: [secretVolume('s', 'mine')] }));
    await eventually(() => {
      expect(service.hasPathFrom('n1', 'secret', 'ns', 'mine')).toBe(false);
      expect(service.hasPathFrom('n2', 'secret', 'ns', 'mine')).toBe(true);
    }, 3000, 10);
    await store.delete(podKey('web'));
    await eventually(() => expect(service.hasPathFrom('n2', 'secret', 'ns', 'mine')).toBe(false), 3000, 10);
  });

  it('applies what the feed has seen on catchUp, before the follower wakes', async () => {
    await service.start();
    await store.create(podKey('api'), pod('ns', 'api', { nodeName: 'n3', imagePullSecrets: [{ name: 'registry' }] }));
    await feed.poke();
    await service.catchUp();
    expect(service.hasPathFrom('n3', 'secret', 'ns', 'registry')).toBe(true);
  });

  it('rebuilds from a fresh list when it fell behind the change history', async () => {
    await service.start();
    // While the graph is behind, one pod is deleted and another created, and the history
    // of both is compacted away: only a fresh list can tell the graph.
    await store.delete(podKey('web'));
    await store.create(podKey('late'), pod('ns', 'late', { nodeName: 'n4', volumes: [secretVolume('s', 'late-secret')] }));
    await store.compact();
    await feed.poke();
    await service.catchUp();
    expect(service.hasPathFrom('n4', 'secret', 'ns', 'late-secret')).toBe(true);
    expect(service.hasPathFrom('n1', 'secret', 'ns', 'mine')).toBe(false);
    expect(service.revision).toBe('4');
  });

  it('holds nothing per change: after many pod writes its informers wait with one listener each, as after a few', async () => {
    await service.start();
    const pods = informers.informerFor(storageResource(podType));
    const signal: AbortSignal = (pods as any).follower.stopping.signal;
    const heldAfter = async (writes: number, from: number) => {
      for (let i = from; i < from + writes; i++) {
        await store.create(podKey(`p-${i}`), pod('ns', `p-${i}`, { nodeName: 'n1', volumes: [secretVolume('s', `s-${i}`)] }));
        if (i % 10 === 0) await service.catchUp();
      }
      expect(await pods.waitForRevision(await store.currentRevision(), 3000)).toBe(true);
      await eventually(() => expect(feed.waiting()).toBe(2), 3000, 10);
      return getEventListeners(signal, 'abort').length;
    };
    const early = await heldAfter(10, 0);
    const late = await heldAfter(400, 10);
    expect(late).toBeLessThanOrEqual(Math.max(early, 1));
    expect(service.hasPathFrom('n1', 'secret', 'ns', 's-409')).toBe(true);
  });
});
