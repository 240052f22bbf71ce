import { KubeList, KubeObject } from '../apimachinery/types';
import { GetOptions, ListOptions, WatchOptions } from '../registry/options/read-options';
import { Reader, ResourceStorage, Target } from '../registry/rest/storage';
import { WatchStream } from '../registry/rest/watch';

/**
 * A storage served for reading only: get, list and watch of the storage it wraps, which its
 * owner (a controller) keeps for writing. Clients' writes answer 405, as kube's read-only resources do.
 */
export class ReadOnlyStorage implements ResourceStorage {
  constructor(private readonly inner: ResourceStorage) {}

  get(target: Target, opts: GetOptions & Reader): Promise<KubeObject> {
    return this.inner.get!(target, opts);
  }

  list(target: Target, opts: ListOptions & Reader): Promise<KubeList> {
    return this.inner.list!(target, opts);
  }

  watch(target: Target, opts: WatchOptions & Reader, open: () => WatchStream): Promise<void> {
    return this.inner.watch!(target, opts, open);
  }
}
