import { Module, OnModuleInit } from '@nestjs/common';
import { AuthorizationModule } from '../../authorization/authorization.module';
import { AuthorizerFactories } from '../../authorization/authorizer-factories';
import { RbacAuthorizationModule } from '../../authorization/rbac/rbac-authorization.module';
import { RbacIndex } from '../../authorization/rbac/rbac-index.service';
import { GenericStorageFactory } from '../../registry/generic/generic-storage.factory';
import { RegistryModule } from '../../registry/registry.module';
import { ResourceRegistry } from '../../registry/resources/registry';
import { AdmissionRequest } from '../../registry/rest/admission';
import { ResourceType } from '../../runtime/schema/resource-type';
import { PolicyBasedStorage } from '../../rbac/escalation/policy-based-storage';
import { GUARDRAIL_AUTHORIZER_TYPE, GuardrailAuthorizer } from './guardrail-authorizer';
import { accessGuardrailType } from './guardrail-kind';
import { lockoutCheck } from './guardrail-lockout';
import { GuardrailState } from './guardrail-state.service';

/**
 * AccessGuardrail (access.platform.io/v1 accessguardrails) on the generic storage, wrapped
 * by the lock-out check, and the `Guardrail` authorizer type that enforces guardrails.
 */
@Module({ imports: [RegistryModule, AuthorizationModule, RbacAuthorizationModule], providers: [GuardrailState], exports: [GuardrailState] })
export class GuardrailsModule implements OnModuleInit {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly storages: GenericStorageFactory,
    private readonly state: GuardrailState,
    private readonly policy: RbacIndex,
    factories: AuthorizerFactories,
  ) {
    factories.register(GUARDRAIL_AUTHORIZER_TYPE, async (entry) => {
      await state.ready();
      return new GuardrailAuthorizer(entry.name, state);
    });
  }

  async onModuleInit(): Promise<void> {
    // Conditions are compiled at write time, so the environment exists before the kind is served.
    await this.state.celEnvironment();
    const type = accessGuardrailType(this.state.compile) as unknown as ResourceType;
    const check = lockoutCheck(this.state, this.policy);
    this.registry.register(
      type,
      new PolicyBasedStorage(this.storages.create(type), async (request: AdmissionRequest) => {
        await Promise.all([this.policy.ready(), this.state.ready()]);
        await check(request);
      }),
    );
  }
}
