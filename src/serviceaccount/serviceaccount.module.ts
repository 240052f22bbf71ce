import { Inject, Logger, Module, OnApplicationBootstrap, OnModuleInit, Optional } from '@nestjs/common';
import { ApiModule } from '../api/api.module';
import { ResourceRegistry } from '../api/resources/registry';
import { AuthenticationModule } from '../authentication/authentication.module';
import { Authenticator } from '../authentication/authenticator';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { CoreModule } from '../core/core.module';
import { serviceAccountType } from '../core/kinds/service-account';
import { OBJECT_STORE, ObjectStore } from '../storage/object-store';
import { SharedInformerFactory } from '../storage/shared-informer-factory';
import { nodeType } from '../core/kinds/node';
import { podType } from '../core/kinds/pod';
import { secretType } from '../core/kinds/secret';
import { ObjectLookup } from './object-lookup';
import { IssuerDiscoveryController } from './issuer-discovery.controller';
import { SERVICE_ACCOUNT_TOKEN_SETTINGS, ServiceAccountTokens, ServiceAccountTokenSettings } from './service-account-tokens';
import { ServiceAccountTokenStrategy } from './service-account-token.strategy';
import { tokenRequestType, TokenRequestStorage } from './token-request';

/**
 * Service accounts' tokens: the issuer (TokenRequest, the `token` subresource of
 * ServiceAccounts), the authentication method that accepts them, and issuer discovery.
 */
@Module({
  imports: [ApiModule, CoreModule, AuthenticationModule],
  controllers: [IssuerDiscoveryController],
  providers: [
    {
      provide: ServiceAccountTokens,
      useFactory: (settings: ServiceAccountTokenSettings) => new ServiceAccountTokens(settings).init(),
      inject: [SERVICE_ACCOUNT_TOKEN_SETTINGS],
    },
  ],
  exports: [ServiceAccountTokens],
})
export class ServiceAccountModule implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('ServiceAccountTokens');
  private readonly objects: ObjectLookup;
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly authenticator: Authenticator,
    private readonly tokens: ServiceAccountTokens,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
    @Optional() informers?: SharedInformerFactory,
  ) {
    this.objects = new ObjectLookup(this.store, informers);
  }


  /** Once the change feed runs; until the caches have synced, lookups read the store. */
  onApplicationBootstrap(): void {
    const kinds = this.options.serviceAccounts.lookup ? [serviceAccountType, secretType, podType, nodeType] : [secretType];
    this.objects.start(kinds, (err) => this.logger.error(`token lookups cannot list: ${err.message}`));
  }

  onModuleInit(): void {
    // kube's lookups read informer caches: the accounts, and what tokens are bound to.
    this.authenticator.register(new ServiceAccountTokenStrategy(this.tokens, this.objects));
    this.registry.registerSubresource(serviceAccountType, 'token', tokenRequestType, new TokenRequestStorage(this.tokens, this.store, this.options.kubectlReviewAliases));
  }
}
