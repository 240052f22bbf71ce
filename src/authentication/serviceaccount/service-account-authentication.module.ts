import { Inject, Logger, Module, OnApplicationBootstrap, OnModuleInit, Optional } from '@nestjs/common';
import { AuthenticationModule } from '../authentication.module';
import { Authenticator } from '../authenticator';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { nodeType } from '../../core/kinds/node';
import { podType } from '../../core/kinds/pod';
import { secretType } from '../../core/kinds/secret';
import { serviceAccountType } from '../../core/kinds/service-account';
import { OBJECT_STORE, ObjectStore } from '../../storage/mvcc/object-store';
import { SharedInformerFactory } from '../../storage/informer/shared-informer-factory';
import { ObjectLookup } from './object-lookup';
import { ServiceAccountTokenStrategy } from './service-account-token.strategy';
import { SERVICE_ACCOUNT_TOKEN_SETTINGS, ServiceAccountTokens, ServiceAccountTokenSettings } from './service-account-tokens';

/**
 * Service-account tokens as an authentication method: the tokens' signer and verifier, and
 * the strategy that accepts them, looking up the accounts (and what bound tokens name) in
 * informer caches as kube does.
 */
@Module({
  imports: [AuthenticationModule],
  providers: [
    {
      provide: ServiceAccountTokens,
      useFactory: (settings: ServiceAccountTokenSettings) => new ServiceAccountTokens(settings).init(),
      inject: [SERVICE_ACCOUNT_TOKEN_SETTINGS],
    },
  ],
  exports: [ServiceAccountTokens],
})
export class ServiceAccountAuthenticationModule implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('ServiceAccountTokens');
  private readonly objects: ObjectLookup;

  constructor(
    private readonly authenticator: Authenticator,
    private readonly tokens: ServiceAccountTokens,
    @Inject(OBJECT_STORE) store: ObjectStore,
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
    @Optional() informers?: SharedInformerFactory,
  ) {
    this.objects = new ObjectLookup(store, informers);
  }

  onModuleInit(): void {
    this.authenticator.register(new ServiceAccountTokenStrategy(this.tokens, this.objects));
  }

  /** Once the change feed runs; until the caches have synced, lookups read the store. */
  onApplicationBootstrap(): void {
    const kinds = this.options.serviceAccounts.lookup ? [serviceAccountType, secretType, podType, nodeType] : [secretType];
    this.objects.start(kinds, (err) => this.logger.error(`token lookups cannot list: ${err.message}`));
  }
}
