import { Module, OnModuleInit } from '@nestjs/common';
import { ApiModule } from '../api/api.module';
import { ResourceRegistry } from '../api/resources/registry';
import { AdmissionChain } from '../api/resources/admission';
import { GenericStorageFactory } from '../api/resources/generic-storage.factory';
import { AuthorizationModule } from '../authorization/authorization.module';
import { RbacAuthorizationModule } from '../authorization/rbac/rbac-authorization.module';
import { HealthModule } from '../health/health.module';
import { ClusterRoleAggregationController } from './aggregation/clusterrole-aggregation-controller';
import { DefaultPolicyReconciler } from './bootstrap/default-policy-reconciler';
import { RbacBootstrap } from './bootstrap/rbac-bootstrap';
import { RbacEscalationAdmission } from './escalation/escalation-admission';
import { clusterRoleBindingType, clusterRoleType, roleBindingType, roleType } from './kinds/kinds';
import { RBAC_GROUP, RBAC_VERSION } from './kinds/types';

/**
 * The four RBAC kinds of rbac.authorization.platform.io/v1 on the generic storage, the
 * default policy reconciled at start, the ClusterRole aggregation controller, and the
 * escalation prevention every write of those kinds passes (an admission plugin, so it
 * covers create, update, patch and apply alike).
 */
@Module({
  imports: [ApiModule, AuthorizationModule, RbacAuthorizationModule, HealthModule],
  providers: [DefaultPolicyReconciler, ClusterRoleAggregationController, RbacBootstrap, RbacEscalationAdmission],
})
export class RbacModule implements OnModuleInit {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly factory: GenericStorageFactory,
    private readonly admission: AdmissionChain,
    private readonly escalation: RbacEscalationAdmission,
  ) {}

  onModuleInit(): void {
    this.registry.declareGroupVersion({ group: RBAC_GROUP, version: RBAC_VERSION, introduced: '1.8' });
    for (const type of [clusterRoleBindingType, clusterRoleType, roleBindingType, roleType]) {
      this.registry.register(type, this.factory.create(type));
    }
    this.admission.register(this.escalation);
  }
}
