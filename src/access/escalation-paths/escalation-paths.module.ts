import { Module, OnModuleInit } from '@nestjs/common';
import { AuthorizationModule } from '../../authorization/authorization.module';
import { RbacAuthorizationModule } from '../../authorization/rbac/rbac-authorization.module';
import { RegistryModule } from '../../registry/registry.module';
import { ResourceRegistry } from '../../registry/resources/registry';
import { AccessModule } from '../access.module';
import { AccessStorage } from '../access-storage';
import { escalationPathReviewType } from './escalation-path-kind';
import { EscalationPathService } from './escalation-path.service';
import { EscalationPathReviewSpec } from './escalation-path-types';

/** EscalationPathReview: answered by a bounded search over the live policy, asking the authorizer chain. */
@Module({
  imports: [RegistryModule, AuthorizationModule, RbacAuthorizationModule, AccessModule],
  providers: [EscalationPathService],
  exports: [EscalationPathService],
})
export class EscalationPathsModule implements OnModuleInit {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly paths: EscalationPathService,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      escalationPathReviewType,
      new AccessStorage<EscalationPathReviewSpec>(escalationPathReviewType, async (spec, opts) => ({ spec, status: await this.paths.answer(spec, opts.receivedAt) })),
    );
  }
}
