import { objectKey } from '../../../src/apimachinery/store-key';
import { persistentVolumeType } from '../../../src/core/kinds/persistent-volume';
import { podType } from '../../../src/core/kinds/pod';
import { ChangeFeed } from '../../../src/storage/change-feed';
import { ChangeFeedService } from '../../../src/storage/change-feed.service';
import { NodeGraphService } from '../../../src/authorization/node/node-graph.service';
import { KubeObject } from '../../../src/apimachinery/types';
import { MemoryStore } from '../../support/memory-store';
import { eventually } from '../../support/eventually';
import { claimVolume, pod, pv, secretVolume } from './fixtures';

const podKey = (name: string) => objectKey(podType, 'ns', name);
const pvKey = (name: string) => objectKey(persistentVolumeType, '', name);

describe('NodeGraphService', () => {
  let store: MemoryStore;
  let feed: ChangeFeed;
  let service: NodeGraphService;

  beforeEach(async () => {
    store = new MemoryStore();
    await store.create(podKey('web'), pod('ns', 'web', { nodeName: 'n1', volumes: [secretVolume('s', 'mine'), claimVolume('d', 'data')] }));
    await store.create(pvKey('vol'), pv('vol', { claimRef: { namespace: 'ns', name: 'data' }, cephfs: { monitors: ['m'], secretRef: { name: 'ceph' } } }));
    feed = new ChangeFeed(store, null, { pollIntervalMs: 20, windowSize: 100, batchSize: 50 });
    await feed.start();
    service = new NodeGraphService(store, feed as unknown as ChangeFeedService);
  });
  afterEach(async () => {
    await service.beforeApplicationShutdown();
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
    await service.beforeApplicationShutdown();
    const restarted = new NodeGraphService(store, feed as unknown as ChangeFeedService);
    await restarted.start();
    await restarted.beforeApplicationShutdown();
    // History before the newest revision is gone; the next catch-up has to list again.
    await store.create(podKey('late'), pod('ns', 'late', { nodeName: 'n4', volumes: [secretVolume('s', 'late-secret')] }) as KubeObject);
    await store.compact();
    await feed.poke();
    await restarted.catchUp();
    expect(restarted.hasPathFrom('n4', 'secret', 'ns', 'late-secret')).toBe(true);
  });
});
