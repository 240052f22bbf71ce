import { Module, OnModuleInit } from '@nestjs/common';
import { RegistryModule } from '../registry/registry.module';
import { ResourceRegistry } from '../registry/resources/registry';
import { AdmissionRequest } from '../registry/rest/admission';
import { GenericStorageFactory } from '../registry/generic/generic-storage.factory';
import { AuthorizationModule } from '../authorization/authorization.module';
import { RbacAuthorizationModule } from '../authorization/rbac/rbac-authorization.module';
import { HealthModule } from '../health/health.module';
import { ClusterRoleAggregationController } from './aggregation/clusterrole-aggregation-controller';
import { DefaultPolicyReconciler } from './bootstrap/default-policy-reconciler';
import { RbacBootstrap } from './bootstrap/rbac-bootstrap';
import { RbacEscalationCheck } from './escalation/escalation-check';
import { PolicyBasedStorage } from './escalation/policy-based-storage';
import { clusterRoleBindingType, clusterRoleType, roleBindingType, roleType } from './kinds/kinds';
import { RBAC_GROUP, RBAC_VERSION } from '../apis/rbac/types';

/**
 * The four RBAC kinds of rbac.authorization.platform.io/v1, each on the generic storage
 * wrapped by the policy-based storage that runs the escalation check on its creates and
 * updates (so create, update, every patch and apply alike), the default policy reconciled
 * at start, and the ClusterRole aggregation controller.
 */
@Module({
  imports: [RegistryModule, AuthorizationModule, RbacAuthorizationModule, HealthModule],
  providers: [DefaultPolicyReconciler, ClusterRoleAggregationController, RbacBootstrap, RbacEscalationCheck],
  exports: [RbacBootstrap],
})
export class RbacModule implements OnModuleInit {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly factory: GenericStorageFactory,
    private readonly escalation: RbacEscalationCheck,
  ) {}

  onModuleInit(): void {
    this.registry.declareGroupVersion({ group: RBAC_GROUP, version: RBAC_VERSION, introduced: '1.8' });
    const check = (request: AdmissionRequest) => this.escalation.check(request);
    for (const type of [clusterRoleBindingType, clusterRoleType, roleBindingType, roleType]) {
      this.registry.register(type, new PolicyBasedStorage(this.factory.create(type), check));
    }
  }
}
