import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { AuthorizerChain } from './authorizer-chain';
import { AuthorizerFactories } from './authorizer-factories';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer } from './authorizers';
import { AuthorizationConfigReloader } from './config/config-reloader';
import { configurationFromFlags } from './config/configuration-from-flags';
import { ConfiguredAuthorizers } from './config/configured-authorizers';
import { AuthorizationConfigError, loadAuthorizationConfiguration, readAuthorizationConfigFile } from './config/load';
import { AuthorizationConfiguration } from './config/types';

/** How long a replaced webhook stays open for the calls in flight (the longest webhook timeout). */
const RETIRED_AUTHORIZER_GRACE_MS = 30_000;

/**
 * Builds the authorizer chain once every module has registered its authorizer types
 * (application bootstrap, before the port opens), from `--authorization-config` or from the
 * mode and webhook flags (kube turns those into the same configuration); reloads the
 * configuration file while the server runs; closes the chain at shutdown.
 */
@Injectable()
export class AuthorizationSetup implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Authorization');
  private readonly configured: ConfiguredAuthorizers;
  private reloader: AuthorizationConfigReloader | undefined;

  constructor(
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
    private readonly factories: AuthorizerFactories,
    private readonly chain: AuthorizerChain,
  ) {
    factories.register('AlwaysAllow', () => alwaysAllowAuthorizer);
    factories.register('AlwaysDeny', () => alwaysDenyAuthorizer);
    this.configured = new ConfiguredAuthorizers(factories);
  }

  async onApplicationBootstrap(): Promise<void> {
    const file = this.options.authorizationConfigFile;
    const data = file ? readAuthorizationConfigFile(file) : undefined;
    const configuration = data !== undefined ? await this.load(data) : configurationFromFlags(this.options);
    try {
      this.chain.replace(await this.configured.build(configuration));
    } catch (err) {
      throw err instanceof AuthorizationConfigError ? err : new AuthorizationConfigError((err as Error).message);
    }
    if (file && data !== undefined) {
      this.reloader = new AuthorizationConfigReloader(
        {
          path: file,
          intervalMs: this.options.authorizationConfigReloadIntervalMs,
          load: (next) => this.load(next, this.configured.startupTypes),
          apply: (next) => this.install(next),
        },
        data,
        configuration,
      );
      this.reloader.start();
    }
    const types = configuration.authorizers.map((a) => a.type);
    if (types.includes('AlwaysAllow')) {
      const others = types.filter((m) => m !== 'AlwaysAllow');
      this.logger.warn(
        others.length
          ? `AlwaysAllow authorization is on together with ${others.join(', ')}: every request is allowed, the other modes cannot deny (insecure)`
          : 'AlwaysAllow authorization is on: every request is allowed (insecure)',
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.reloader?.stop();
    for (const authorizer of this.chain.replace([])) await authorizer.close?.();
  }

  private load(data: string, requiredNonWebhookTypes?: ReadonlySet<string>): Promise<AuthorizationConfiguration> {
    return loadAuthorizationConfiguration(data, {
      withSelectors: this.options.featureGates.enabled('AuthorizeWithSelectors'),
      requiredNonWebhookTypes,
    });
  }

  /**
   * Swaps in the chain of a reloaded configuration. The webhooks it replaced are closed once
   * requests already asking them have had their longest possible call (30s).
   */
  private async install(configuration: AuthorizationConfiguration): Promise<void> {
    const next = await this.configured.build(configuration);
    const previous = this.chain.replace(next);
    for (const authorizer of ConfiguredAuthorizers.retired(previous, next)) {
      setTimeout(() => void authorizer.close?.(), RETIRED_AUTHORIZER_GRACE_MS).unref();
    }
  }
}
