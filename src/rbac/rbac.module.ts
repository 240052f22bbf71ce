import { Module, OnModuleInit } from '@nestjs/common';
import { ResourceRegistry } from '../api/registry';
import { GenericStorageFactory } from '../api/resources/generic-storage.factory';
import { clusterRoleBindingType, clusterRoleType, roleBindingType, roleType } from './kinds';

/** The four RBAC kinds of rbac.authorization.platform.io/v1, on the generic storage. */
@Module({})
export class RbacModule implements OnModuleInit {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly factory: GenericStorageFactory,
  ) {}

  onModuleInit(): void {
    for (const type of [clusterRoleBindingType, clusterRoleType, roleBindingType, roleType]) {
      this.registry.register(type, this.factory.create(type));
    }
  }
}
