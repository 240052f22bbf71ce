import { objectKey, storageResource } from '../../apimachinery/store-key';
import { KubeObject } from '../../apimachinery/types';
import { ObjectStore } from '../../storage/mvcc/object-store';
import { SharedInformerFactory } from '../../storage/informer/shared-informer-factory';

type Kind = { group: string; plural: string; namespaced: boolean };

/**
 * Reads the objects token authenticators check (accounts, Secrets, Pods, Nodes) as kube's
 * do: from the shared informers' caches once they have synced (no store read per
 * request), from the store before that.
 */
export class ObjectLookup {
  constructor(
    private readonly store: ObjectStore,
    private readonly informers?: SharedInformerFactory,
  ) {}

  /** Starts the informers of these kinds (in the background; the store answers meanwhile). */
  start(kinds: Kind[], onError: (err: Error) => void): void {
    for (const kind of kinds) this.informers?.informerFor(storageResource(kind)).start().catch(onError);
  }

  async get(kind: Kind, namespace: string, name: string): Promise<KubeObject | undefined> {
    const informer = this.informers?.informerFor(storageResource(kind));
    if (informer?.hasSynced()) return informer.get(kind.namespaced ? namespace : '', name);
    return (await this.store.get(objectKey(kind, namespace, name)))?.object;
  }
}
