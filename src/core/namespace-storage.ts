import { GenericStorage } from '../registry/generic/generic-storage';
import { DeleteOptions, DeleteResult, Target, WriteOptions, WriteResult } from '../registry/rest/storage';
import { nowTimestamp } from '../apimachinery/system-metadata';
import { KubeObject } from '../apimachinery/types';
import { ObjectStore, StaleRevisionError } from '../storage/mvcc/object-store';
import { objectKey } from '../apimachinery/store-key';
import { Namespace, namespaceFinalizeStrategy } from './namespace';

/**
 * A namespace being deleted goes away on the write that leaves it with neither spec nor
 * metadata finalizers (kube's ShouldDeleteNamespaceDuringUpdate).
 */
function shouldDeleteNamespace(obj: KubeObject): boolean {
  return !!obj.metadata.deletionTimestamp && !obj.metadata.finalizers?.length && !(obj as Namespace).spec?.finalizers?.length;
}

/** The storage of the finalize subresource: the generic write path under the finalize strategy. */
class NamespaceFinalizeStorage extends GenericStorage {
  protected override shouldDeleteDuringUpdate(obj: KubeObject): boolean {
    return shouldDeleteNamespace(obj);
  }
}

/**
 * Namespace storage: the generic storage, except that DELETE of a namespace with
 * spec.finalizers only marks it Terminating (deletionTimestamp set); the namespace
 * controller empties it, removes its finalizer through `finalize`, and the namespace goes
 * away with that write.
 */
export class NamespaceStorage extends GenericStorage {
  private readonly finalizeStorage: NamespaceFinalizeStorage;

  constructor(
    generic: ConstructorParameters<typeof GenericStorage>,
    private readonly objects: ObjectStore,
  ) {
    super(...generic);
    const [type, ...rest] = generic;
    this.finalizeStorage = new NamespaceFinalizeStorage({ ...type, strategy: namespaceFinalizeStrategy }, ...rest);
  }

  /**
   * kube's `namespaces/{name}/finalize`: writes the namespace's spec.finalizers (the rest of
   * the body as a PUT, with its resourceVersion as precondition), through the same system
   * metadata, validation and admission as every write.
   */
  finalize(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    return this.finalizeStorage.update(target, body, opts);
  }

  protected override shouldDeleteDuringUpdate(obj: KubeObject): boolean {
    return shouldDeleteNamespace(obj);
  }

  override async delete(target: Target, opts: DeleteOptions): Promise<DeleteResult> {
    for (let attempt = 0; ; attempt++) {
      // Existence, preconditions and admission (system namespaces) first, without writing.
      const checked = await super.delete(target, { ...opts, dryRun: true });
      const current = await this.objects.get(objectKey(target.type, '', target.name));
      if (!current) return checked;
      const ns = current.object as KubeObject & { spec?: { finalizers?: string[] }; status?: { phase?: string } };
      if (!ns.spec?.finalizers?.length && !ns.metadata.finalizers?.length) {
        return opts.dryRun ? checked : super.delete(target, opts);
      }
      if (ns.metadata.deletionTimestamp) return { body: { apiVersion: 'v1', kind: 'Namespace', ...ns }, code: 200 };
      const terminating = structuredClone(ns);
      terminating.metadata.deletionTimestamp = nowTimestamp();
      terminating.metadata.deletionGracePeriodSeconds = 0;
      terminating.status = { ...(terminating.status ?? {}), phase: 'Terminating' };
      if (opts.dryRun) return { body: { apiVersion: 'v1', kind: 'Namespace', ...terminating }, code: 200 };
      try {
        const stored = await this.objects.update(current.key, terminating, { revision: current.revision });
        this.notifyWritten(stored.revision);
        return { body: { apiVersion: 'v1', kind: 'Namespace', ...stored.object }, code: 200 };
      } catch (err) {
        if (err instanceof StaleRevisionError && attempt < 5) continue;
        throw err;
      }
    }
  }
}
