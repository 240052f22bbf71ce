import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { ResourceRegistry } from '../api/registry';
import { AdmissionChain } from '../api/resources/admission';
import { GenericStorageFactory } from '../api/resources/generic-storage.factory';
import { OBJECT_STORE, ObjectStore } from '../storage/object-store';
import { DefaultNamespaces } from './default-namespaces';
import { namespaceType } from './namespace';
import { NamespaceLifecycleAdmission } from './namespace-lifecycle';
import { NamespaceStorage } from './namespace-storage';
import { NamespaceController } from './namespace-controller';

/** Core group kinds the server needs (Namespace now; more as authentication grows). */
@Module({ providers: [NamespaceLifecycleAdmission, DefaultNamespaces, NamespaceController] })
export class CoreModule implements OnModuleInit {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly admission: AdmissionChain,
    private readonly factory: GenericStorageFactory,
    private readonly lifecycle: NamespaceLifecycleAdmission,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
  ) {}

  onModuleInit(): void {
    this.admission.register(this.lifecycle);
    const generic = this.factory.argsFor(namespaceType);
    this.registry.register(namespaceType, new NamespaceStorage(generic, this.store));
  }
}
