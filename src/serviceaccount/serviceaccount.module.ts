import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { RegistryModule } from '../registry/registry.module';
import { ResourceRegistry } from '../registry/resources/registry';
import { ServiceAccountAuthenticationModule } from '../authentication/serviceaccount/service-account-authentication.module';
import { ServiceAccountTokens } from '../authentication/serviceaccount/service-account-tokens';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { CoreModule } from '../core/core.module';
import { serviceAccountType } from '../core/kinds/service-account';
import { OBJECT_STORE, ObjectStore } from '../storage/mvcc/object-store';
import { IssuerDiscoveryController } from './issuer-discovery.controller';
import { tokenRequestType, TokenRequestStorage } from './token-request';

/**
 * Service accounts' tokens as the API offers them: TokenRequest (the `token` subresource of
 * ServiceAccounts) and issuer discovery. The tokens themselves, and the authentication method
 * that accepts them, are ServiceAccountAuthenticationModule's.
 */
@Module({
  imports: [RegistryModule, CoreModule, ServiceAccountAuthenticationModule],
  controllers: [IssuerDiscoveryController],
})
export class ServiceAccountModule implements OnModuleInit {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly tokens: ServiceAccountTokens,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
  ) {}

  onModuleInit(): void {
    this.registry.registerSubresource(serviceAccountType, 'token', tokenRequestType, new TokenRequestStorage(this.tokens, this.store, this.options.kubectlReviewAliases));
  }
}
