import { Inject, Injectable } from '@nestjs/common';
import { errors } from '../apimachinery/errors';
import { AdmissionPlugin, AdmissionRequest } from '../registry/rest/admission';
import { objectKey, storageResource } from '../apimachinery/store-key';
import { KubeObject } from '../apimachinery/types';
import { Informer } from '../storage/informer/informer';
import { OBJECT_STORE, ObjectStore } from '../storage/mvcc/object-store';
import { SharedInformerFactory } from '../storage/informer/shared-informer-factory';
import { Namespace, namespaceType } from './namespace';

/** Namespaces the server creates at start and never lets anyone delete (kube's immortal ones). */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public'];

/**
 * kube's NamespaceLifecycle admission: objects may only be created in a namespace that
 * exists and is not being deleted; the system namespaces cannot be deleted.
 *
 * Namespaces are read from the shared informer's cache (the namespace controller starts it),
 * first brought up to this process's own writes; one the cache lacks (created on another
 * replica a moment ago, or the informer not synced yet) is read from the store, as kube's
 * plugin falls back to a live lookup.
 */
@Injectable()
export class NamespaceLifecycleAdmission implements AdmissionPlugin {
  readonly name = 'NamespaceLifecycle';
  private readonly namespaces: Informer<Namespace>;

  constructor(
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    informers: SharedInformerFactory,
  ) {
    this.namespaces = informers.informerFor<Namespace>(storageResource(namespaceType));
  }

  async admit({ operation, target }: AdmissionRequest): Promise<void> {
    const isNamespace = !target.type.group && target.type.plural === 'namespaces';
    if (isNamespace) {
      if (operation === 'DELETE' && SYSTEM_NAMESPACES.includes(target.name)) {
        throw errors.forbiddenResource(target.groupResource, target.name, 'this namespace may not be deleted');
      }
      return;
    }
    if (operation !== 'CREATE' || !target.type.namespaced) return;
    const ns = await this.namespace(target.namespace);
    if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, target.namespace);
    if (ns.metadata.deletionTimestamp) {
      throw errors.forbiddenResource(
        target.groupResource,
        target.name,
        `unable to create new content in namespace ${target.namespace} because it is being terminated`,
      );
    }
  }

  private async namespace(name: string): Promise<KubeObject | undefined> {
    if (this.namespaces.hasSynced()) {
      await this.namespaces.catchUp();
      const cached = this.namespaces.get('', name);
      if (cached) return cached;
    }
    return (await this.store.get(objectKey(namespaceType, '', name)))?.object;
  }
}
