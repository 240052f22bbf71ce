import { Inject, Logger, Module, OnApplicationBootstrap, OnModuleInit, Optional } from '@nestjs/common';
import { AuthenticationModule } from '../authentication.module';
import { Authenticator } from '../authenticator';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { secretType } from '../../core/kinds/secret';
import { ObjectLookup } from '../serviceaccount/object-lookup';
import { OBJECT_STORE, ObjectStore } from '../../storage/mvcc/object-store';
import { SharedInformerFactory } from '../../storage/informer/shared-informer-factory';
import { BootstrapTokenStrategy } from './bootstrap-token.strategy';

/** --enable-bootstrap-token-auth: bootstrap tokens join the union of authentication methods. */
@Module({ imports: [AuthenticationModule] })
export class BootstrapTokenModule implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('BootstrapTokens');
  private readonly objects: ObjectLookup;
  constructor(
    private readonly authenticator: Authenticator,
    @Inject(OBJECT_STORE) store: ObjectStore,
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
    @Optional() informers?: SharedInformerFactory,
  ) {
    this.objects = new ObjectLookup(store, informers);
  }

  onModuleInit(): void {
    if (this.options.enableBootstrapTokenAuth) this.authenticator.register(new BootstrapTokenStrategy(this.objects));
  }

  /** Once the change feed runs; until the cache has synced, lookups read the store. */
  onApplicationBootstrap(): void {
    if (this.options.enableBootstrapTokenAuth) this.objects.start([secretType], (err) => this.logger.error(`bootstrap token Secrets cannot be listed: ${err.message}`));
  }
}
