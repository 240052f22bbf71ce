import { AdmissionRequest } from '../../registry/rest/admission';
import { DeleteOptions, DeleteResult, Reader, ResourceStorage, Target, WriteOptions, WriteResult } from '../../registry/rest/storage';
import { GetOptions, ListOptions, WatchOptions } from '../../registry/options/read-options';
import { WatchStream } from '../../registry/rest/watch';
import { KubeList, KubeObject } from '../../apimachinery/types';

/** A check of an object about to be created or updated; throws a StatusError to refuse. */
export type WriteCheck = (request: AdmissionRequest) => Promise<void>;

/**
 * A storage that runs a policy check on every create and update of its kind, wrapping the
 * kind's storage as kube's rbac `policybased` storages wrap the standard ones: reads and
 * deletes pass straight through; create, update and patch (every patch type and
 * server-side apply, which end in a create or an update) hand the wrapped storage the
 * check as the write's `validate`, so it runs on the object as it would be stored, after
 * the kind's validation and admission, on each retry of a conflicting write, and on dry
 * runs too.
 */
export class PolicyBasedStorage implements Required<ResourceStorage> {
  constructor(
    private readonly storage: Required<ResourceStorage>,
    private readonly check: WriteCheck,
  ) {}

  get(target: Target, opts: GetOptions & Reader): Promise<KubeObject> {
    return this.storage.get(target, opts);
  }

  list(target: Target, opts: ListOptions & Reader): Promise<KubeList> {
    return this.storage.list(target, opts);
  }

  watch(target: Target, opts: WatchOptions & Reader, open: () => WatchStream): Promise<void> {
    return this.storage.watch(target, opts, open);
  }

  create(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    return this.storage.create(target, body, this.checked(opts));
  }

  update(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    return this.storage.update(target, body, this.checked(opts));
  }

  patch(target: Target, patch: { contentType: string; body: Buffer }, opts: WriteOptions): Promise<WriteResult> {
    return this.storage.patch(target, patch, this.checked(opts));
  }

  delete(target: Target, opts: DeleteOptions): Promise<DeleteResult> {
    return this.storage.delete(target, opts);
  }

  deleteCollection(target: Target, opts: DeleteOptions, list?: ListOptions): Promise<KubeList> {
    return this.storage.deleteCollection(target, opts, list);
  }

  /** The write's options with this storage's check first in its validation. */
  private checked(opts: WriteOptions): WriteOptions {
    const outer = opts.validate;
    return {
      ...opts,
      validate: async (request) => {
        await this.check(request);
        await outer?.(request);
      },
    };
  }
}
