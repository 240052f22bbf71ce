import { Inject, Injectable } from '@nestjs/common';
import { errors } from '../apimachinery/errors';
import { AdmissionPlugin, AdmissionRequest } from '../api/resources/admission';
import { objectKey } from '../apimachinery/store-key';
import { OBJECT_STORE, ObjectStore } from '../storage/object-store';
import { namespaceType } from './namespace';

/** Namespaces the server creates at start and never lets anyone delete (kube's immortal ones). */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public'];

/**
 * kube's NamespaceLifecycle admission: objects may only be created in a namespace that
 * exists and is not being deleted; the system namespaces cannot be deleted.
 */
@Injectable()
export class NamespaceLifecycleAdmission implements AdmissionPlugin {
  readonly name = 'NamespaceLifecycle';

  constructor(@Inject(OBJECT_STORE) private readonly store: ObjectStore) {}

  async admit({ operation, target }: AdmissionRequest): Promise<void> {
    const isNamespace = !target.type.group && target.type.plural === 'namespaces';
    if (isNamespace) {
      if (operation === 'DELETE' && SYSTEM_NAMESPACES.includes(target.name)) {
        throw errors.forbiddenResource(target.groupResource, target.name, 'this namespace may not be deleted');
      }
      return;
    }
    if (operation !== 'CREATE' || !target.type.namespaced) return;
    const ns = await this.store.get(objectKey(namespaceType, '', target.namespace));
    if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, target.namespace);
    if (ns.object.metadata.deletionTimestamp) {
      throw errors.forbiddenResource(
        target.groupResource,
        target.name,
        `unable to create new content in namespace ${target.namespace} because it is being terminated`,
      );
    }
  }
}
