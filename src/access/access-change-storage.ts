import { KubeList, KubeObject } from '../apimachinery/types';
import { GetOptions, ListOptions, WatchOptions } from '../registry/options/read-options';
import { Reader, ResourceStorage, Target } from '../registry/rest/storage';
import { ChangeRenderer, WatchEvent, WatchStream } from '../registry/rest/watch';
import { unpackAccessChange } from './access-change-stored-form';

/**
 * The AccessChange storage served for reading only: get, list and watch of the storage it
 * wraps, which its owner (a controller) keeps for writing, each object given in the API's
 * form (`decode`: the stored form is smaller, see access-change-stored-form). Clients'
 * writes answer 405, as kube's read-only resources do.
 */
export class ReadOnlyStorage implements ResourceStorage {
  constructor(
    private readonly inner: ResourceStorage,
    private readonly decode: (object: KubeObject) => KubeObject = unpackAccessChange,
  ) {}

  async get(target: Target, opts: GetOptions & Reader): Promise<KubeObject> {
    return this.decode(await this.inner.get!(target, opts));
  }

  async list(target: Target, opts: ListOptions & Reader): Promise<KubeList> {
    const list = await this.inner.list!(target, opts);
    return { ...list, items: list.items.map(this.decode) };
  }

  watch(target: Target, opts: WatchOptions & Reader, open: () => WatchStream): Promise<void> {
    return this.inner.watch!(target, opts, () => decodingStream(open(), this.decode));
  }
}

/** A watch stream whose events carry objects in the API's form. */
function decodingStream(stream: WatchStream, decode: (object: KubeObject) => KubeObject): WatchStream {
  const event = (e: WatchEvent): WatchEvent => (e.type === 'BOOKMARK' || e.type === 'ERROR' ? e : { ...e, object: decode(e.object as KubeObject) });
  return {
    get closed() {
      return stream.closed;
    },
    get unresponsive() {
      return stream.unresponsive;
    },
    get signal() {
      return stream.signal;
    },
    onClose: (handler) => stream.onClose(handler),
    send: (e) => stream.send(event(e)),
    // The render is the same for every watcher of the kind: its encoding is still shared.
    sendChange: (change, type, render: ChangeRenderer) => stream.sendChange(change, type, (c, t) => event(render(c, t))),
    close: () => stream.close(),
  };
}
