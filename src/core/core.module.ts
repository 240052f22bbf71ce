import { HealthModule } from '../health/health.module';
import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { RegistryModule } from '../registry/registry.module';
import { ResourceRegistry } from '../registry/resources/registry';
import { AdmissionChain } from '../registry/rest/admission';
import { GenericStorageFactory } from '../registry/generic/generic-storage.factory';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { OBJECT_STORE, ObjectStore } from '../storage/mvcc/object-store';
import { DefaultNamespaces } from './default-namespaces';
import { CORE_KINDS } from './kinds';
import { namespaceType } from './namespace';
import { NamespaceLifecycleAdmission } from './namespace-lifecycle';
import { NamespaceStorage } from './namespace-storage';
import { NamespaceController } from './namespace-controller';
import { NODE_RESTRICTION_PLUGIN, NodeRestrictionAdmission } from './node-restriction';

/**
 * Core group kinds the server needs: Namespace (with its own storage and controller), and
 * Node, Pod, PersistentVolume, PersistentVolumeClaim, Secret, ConfigMap and ServiceAccount
 * on the generic storage. Registers the admission plugins: NamespaceLifecycle always,
 * NodeRestriction when `--enable-admission-plugins` names it.
 */
@Module({ imports: [RegistryModule, HealthModule], providers: [NamespaceLifecycleAdmission, NodeRestrictionAdmission, DefaultNamespaces, NamespaceController] })
export class CoreModule implements OnModuleInit {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly admission: AdmissionChain,
    private readonly factory: GenericStorageFactory,
    private readonly lifecycle: NamespaceLifecycleAdmission,
    private readonly nodeRestriction: NodeRestrictionAdmission,
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
  ) {}

  onModuleInit(): void {
    const enabled = this.options.enableAdmissionPlugins;
    this.admission.register(this.lifecycle);
    if (enabled.includes(NODE_RESTRICTION_PLUGIN)) this.admission.register(this.nodeRestriction);
    this.registry.declareGroupVersion({ group: '', version: 'v1', introduced: '1.0' });
    const generic = this.factory.argsFor(namespaceType);
    this.registry.register(namespaceType, new NamespaceStorage(generic, this.store));
    for (const type of CORE_KINDS) this.registry.register(type, this.factory.create(type));
  }
}
