import { BeforeApplicationShutdown, Inject, Module, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { Clock, CLOCK, systemClock } from '../apimachinery/clock';
import { InformerWorld } from '../access/requests/informer-world';
import { ACCESS_REQUEST_CONTROLLER_USER, AccessRequestController } from './access-request-controller';
import { RegistryModule } from '../registry/registry.module';
import { ResourceRegistry } from '../registry/resources/registry';
import { SYSTEM_USER } from '../apimachinery/user-info';
import {
  ACCESS_REQUEST_CONTROLLER,
  BINDING_EXPIRY_CONTROLLER,
  BOOTSTRAP_SIGNER_CONTROLLER,
  controllerEnabled,
  SERVICE_ACCOUNT_CONTROLLER,
  SERVICE_ACCOUNT_TOKEN_CONTROLLER,
  TOKEN_CLEANER_CONTROLLER,
} from '../config/controllers';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { CoreModule } from '../core/core.module';
import { ServiceAccountAuthenticationModule } from '../authentication/serviceaccount/service-account-authentication.module';
import { ServiceAccountTokens } from '../authentication/serviceaccount/service-account-tokens';
import { Database } from '../storage/engine/database';
import { SharedInformerFactory } from '../storage/informer/shared-informer-factory';
import { DATABASE } from '../storage/storage.module';
import { BINDING_EXPIRY_USER, BindingExpiryController } from './binding-expiry';
import { BOOTSTRAP_SIGNER_USER, BootstrapSigner } from './bootstrap-signer';
import { Controller, ControllerContext } from './controller-context';
import { ControllerRunner } from './controller-runner';
import { NamespacedPolicyBootstrap } from './namespaced-policy';
import { SERVICE_ACCOUNT_CONTROLLER_USER, ServiceAccountController } from './service-account-controller';
import { TOKEN_CLEANER_USER, TokenCleaner } from './token-cleaner';
import { TOKENS_CONTROLLER_USER, TokensController } from './tokens-controller';

/**
 * The token controllers `--controllers` turns on (kube's names): serviceaccount (a `default`
 * ServiceAccount in every namespace), serviceaccount-token (legacy token Secrets),
 * tokencleaner and bootstrapsigner (off by default, as in kube); and binding-expiry
 * (deletes time-bound bindings some time after they expire). They run on the leader, on
 * the shared informers of the kinds they read.
 */
@Module({ imports: [RegistryModule, CoreModule, ServiceAccountAuthenticationModule] })
export class ControllersModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly runner: ControllerRunner;

  constructor(
    registry: ResourceRegistry,
    tokens: ServiceAccountTokens,
    informers: SharedInformerFactory,
    @Inject(DATABASE) db: Database,
    @Inject(SERVER_OPTIONS) options: ServerOptions,
    @Optional() @Inject(CLOCK) clock: Clock = systemClock,
  ) {
    const context = (user: string) => new ControllerContext(user, registry, informers);
    const enabled = (name: string) => controllerEnabled(options.controllers, name);
    const controllers: Controller[] = [new NamespacedPolicyBootstrap(new ControllerContext('rbac-bootstrap', registry, informers, SYSTEM_USER))];
    if (enabled(SERVICE_ACCOUNT_CONTROLLER)) controllers.push(new ServiceAccountController(context(SERVICE_ACCOUNT_CONTROLLER_USER)));
    if (enabled(SERVICE_ACCOUNT_TOKEN_CONTROLLER)) controllers.push(new TokensController(context(TOKENS_CONTROLLER_USER), tokens, tokens.settings.caCertPem));
    if (enabled(TOKEN_CLEANER_CONTROLLER)) controllers.push(new TokenCleaner(context(TOKEN_CLEANER_USER)));
    if (enabled(BOOTSTRAP_SIGNER_CONTROLLER)) controllers.push(new BootstrapSigner(context(BOOTSTRAP_SIGNER_USER)));
    // A retention of 0 keeps expired bindings forever: nothing to run.
    if (enabled(BINDING_EXPIRY_CONTROLLER) && options.expiredBindingRetentionMs > 0) {
      controllers.push(new BindingExpiryController(context(BINDING_EXPIRY_USER), options.expiredBindingRetentionMs));
    }
    if (enabled(ACCESS_REQUEST_CONTROLLER)) {
      controllers.push(new AccessRequestController(context(ACCESS_REQUEST_CONTROLLER_USER), registry, new InformerWorld(informers), options.accessRequestRetentionMs, clock));
    }
    this.runner = new ControllerRunner(controllers, informers, db);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.beforeApplicationShutdown();
  }
}
