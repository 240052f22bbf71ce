import { AdmissionChain, AdmissionRequest } from '../../../src/registry/rest/admission';
import { ContinueTokens } from '../../../src/registry/generic/continue-token';
import { GenericStorage, GenericStorageDeps } from '../../../src/registry/generic/generic-storage';
import { ResourceRegistry } from '../../../src/registry/resources/registry';
import { Target } from '../../../src/registry/rest/storage';
import { ResourceType } from '../../../src/runtime/schema/resource-type';
import { storageResource } from '../../../src/apimachinery/store-key';
import { SYSTEM_USER } from '../../../src/apimachinery/user-info';
import { configMapType } from '../../../src/core/kinds/config-map';
import { namespaceType } from '../../../src/core/namespace';
import { NamespaceController } from '../../../src/core/namespace-controller';
import { NamespaceStorage } from '../../../src/core/namespace-storage';
import { ChangeFeedService } from '../../../src/storage/changefeed/change-feed.service';
import { StoreRangeOptions } from '../../../src/storage/mvcc/object-store';
import { SharedInformerFactory } from '../../../src/storage/informer/shared-informer-factory';
import { eventually } from '../../support/eventually';
import { MemoryStore } from '../../support/memory-store';

const write = { user: SYSTEM_USER, dryRun: false };
const target = (type: ResourceType, namespace: string, name = ''): Target => ({
  type,
  groupResource: { group: type.group, resource: type.plural },
  namespace,
  name,
});
const NAMESPACES = storageResource(namespaceType);

/** The controller over the namespace and ConfigMap storages on an in-memory store. */
describe('NamespaceController', () => {
  let store: MemoryStore;
  let feed: ChangeFeedService;
  let informers: SharedInformerFactory;
  let namespaces: NamespaceStorage;
  let configMaps: GenericStorage;
  let controller: NamespaceController;
  const admitted: AdmissionRequest[] = [];
  const namespaceLists: Array<StoreRangeOptions | undefined> = [];

  beforeEach(async () => {
    store = new MemoryStore();
    const list = store.list.bind(store);
    store.list = async (resource, opts) => {
      if (resource === NAMESPACES) namespaceLists.push(opts);
      return list(resource, opts);
    };
    feed = new ChangeFeedService(store, null);
    await feed.start();
    const admission = new AdmissionChain();
    admission.register({ name: 'recorder', admit: async (req) => void admitted.push(req) });
    const deps: GenericStorageDeps = { feed, continueTokens: new ContinueTokens(Buffer.alloc(32, 7)), bookmarkIntervalMs: 60000 };
    namespaces = new NamespaceStorage([namespaceType, store, admission, deps], store);
    configMaps = new GenericStorage(configMapType, store, admission, deps);
    const registry = new ResourceRegistry();
    registry.register(namespaceType, namespaces);
    registry.register(configMapType, configMaps);
    informers = new SharedInformerFactory(store, feed);
    controller = new NamespaceController(registry, store, informers, feed);
    (controller as any).logger = { log: () => undefined, error: () => undefined, warn: () => undefined };
    admitted.length = 0;
    namespaceLists.length = 0;
  });
  afterEach(async () => {
    await controller.beforeApplicationShutdown();
    await informers.stop();
    await feed.stop();
  });

  const getNamespace = (name: string) => namespaces.get(target(namespaceType, '', name), { user: SYSTEM_USER });
  const createNamespace = (name: string) => namespaces.create(target(namespaceType, ''), { metadata: { name } }, write);
  const createConfigMap = (namespace: string, name: string, finalizers?: string[]) =>
    configMaps.create(target(configMapType, namespace), { metadata: { name, ...(finalizers ? { finalizers } : {}) }, data: { k: 'v' } }, write);
  const isGone = async (name: string) => {
    await expect(getNamespace(name)).rejects.toMatchObject({ code: 404 });
  };

  it('empties a namespace being deleted and releases it through the namespace storage', async () => {
    await createNamespace('doomed');
    await createConfigMap('doomed', 'a');
    await createConfigMap('doomed', 'b');
    controller.onApplicationBootstrap();
    await namespaces.delete(target(namespaceType, '', 'doomed'), write);
    await eventually(() => isGone('doomed'), 5000, 20);
    expect((await store.list(storageResource(configMapType), { namespace: 'doomed' })).items).toEqual([]);

    // The release went through the write path (admission as the controller), not around it.
    const release = admitted.find((r) => r.operation === 'UPDATE' && r.target.type.plural === 'namespaces');
    expect(release?.options.user.username).toBe('system:controller:namespace-controller');
    expect((release?.object as any).spec.finalizers).toEqual([]);
    const deletes = admitted.filter((r) => r.operation === 'DELETE' && r.target.type.plural === 'configmaps').map((r) => r.target.name);
    expect(deletes.sort()).toEqual(['a', 'b']);
    // The namespace went in one step from Terminating: its last log entry is the delete.
    const last = store.log.filter((c) => c.key.resource === NAMESPACES && c.key.name === 'doomed').map((c) => c.type);
    expect(last.slice(-2)).toEqual(['MODIFIED', 'DELETED']);
  });

  it('waits for content with finalizers and releases the namespace as soon as that content is deleted', async () => {
    await createNamespace('lingering');
    await createConfigMap('lingering', 'held', ['example.com/hold']);
    controller.onApplicationBootstrap();
    await namespaces.delete(target(namespaceType, '', 'lingering'), write);
    const held = target(configMapType, 'lingering', 'held');
    await eventually(async () => expect((await configMaps.get(held)).metadata.deletionTimestamp).toBeDefined(), 5000, 20);
    expect((await getNamespace('lingering')).metadata.deletionTimestamp).toBeDefined();

    // Removing the finalizer deletes the object; that deletion requeues the namespace at once
    // (the wait below is shorter than the controller's periodic look at waiting namespaces).
    const current = await configMaps.get(held);
    await configMaps.update(held, { ...current, metadata: { ...current.metadata, finalizers: [] } }, write);
    await eventually(() => isGone('lingering'), 5000, 20);
  });

  it('keeps a namespace whose other spec finalizers remain, without its own', async () => {
    await createNamespace('shared');
    // Another party's finalizer, added through the finalize subresource as kube's would be.
    const ns = await getNamespace('shared');
    await namespaces.finalize(target(namespaceType, '', 'shared'), { ...ns, spec: { finalizers: ['kubernetes', 'example.com/other'] } }, write);
    controller.onApplicationBootstrap();
    await namespaces.delete(target(namespaceType, '', 'shared'), write);
    await eventually(async () => expect((await getNamespace('shared')).spec).toEqual({ finalizers: ['example.com/other'] }), 5000, 20);
    expect((await getNamespace('shared')).status).toMatchObject({ phase: 'Terminating' });
  });

  it('reacts to namespace changes only: writes elsewhere list no namespaces', async () => {
    await createNamespace('quiet');
    controller.onApplicationBootstrap();
    await eventually(() => expect(informers.syncStates()).toEqual([expect.objectContaining({ resource: NAMESPACES, synced: true })]), 5000, 20);
    const listsAtStart = namespaceLists.length;
    for (let i = 0; i < 5; i++) await createConfigMap('quiet', `cm-${i}`);
    // A barrier: a namespace deleted after those writes is released, so the controller has seen them all.
    await createNamespace('barrier');
    await namespaces.delete(target(namespaceType, '', 'barrier'), write);
    await eventually(() => isGone('barrier'), 5000, 20);
    expect(namespaceLists.length).toBe(listsAtStart);
  });
});
