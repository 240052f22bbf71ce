import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { HealthChecks, PostStartHook } from '../../health/health-checks';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { AuthorizerChain } from '../authorizer-chain';
import { AuthorizerFactories } from '../authorizer-factories';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer } from '../authorizers';
import { AuthorizationConfigReloader } from './config-reloader';
import { configurationFromFlags } from './configuration-from-flags';
import { ConfiguredAuthorizers } from './configured-authorizers';
import { AuthorizationConfigError, loadAuthorizationConfiguration, readAuthorizationConfigFile } from './load';
import { AuthorizationConfiguration } from './types';
import { loadWebhookKubeconfig } from '../../webhook-client/kubeconfig';

/** The authorizer chain the server starts with, read and checked before the store opens. */
export interface StartupAuthorization {
  /** From `--authorization-config`, or the configuration the mode and webhook flags stand for. */
  configuration: AuthorizationConfiguration;
  /** `--authorization-config`'s text at start: the reloader compares later reads with it. */
  configFileData?: string;
}

export const STARTUP_AUTHORIZATION = Symbol('STARTUP_AUTHORIZATION');

/** Decodes and validates a configuration file's text (on reload: the types in force must remain). */
function loadConfigFileData(data: string, options: ServerOptions, requiredNonWebhookTypes?: ReadonlySet<string>): Promise<AuthorizationConfiguration> {
  return loadAuthorizationConfiguration(data, { withSelectors: options.featureGates.enabled('AuthorizeWithSelectors'), requiredNonWebhookTypes });
}

/**
 * `--authorization-config` (read, decoded, validated, match conditions compiled) or the
 * configuration of the mode and webhook flags, and the kubeconfig of each webhook it names.
 * A problem throws in kube's words.
 */
export async function loadStartupAuthorization(options: ServerOptions): Promise<StartupAuthorization> {
  const file = options.authorizationConfigFile;
  const configFileData = file ? readAuthorizationConfigFile(file) : undefined;
  const configuration = configFileData !== undefined ? await loadConfigFileData(configFileData, options) : configurationFromFlags(options);
  // Each webhook reads its kubeconfig again when the chain is built (as on every reload);
  // reading it here stops a start with a broken one before the store opens.
  for (const { webhook } of configuration.authorizers) if (webhook) loadWebhookKubeconfig(webhook.connectionInfo.kubeConfigFile ?? '');
  return { configuration, configFileData };
}

/** How long a replaced webhook stays open for the calls in flight (the longest webhook timeout). */
const RETIRED_AUTHORIZER_GRACE_MS = 30_000;

/**
 * Builds the authorizer chain once every module has registered its authorizer types
 * (application bootstrap, before the port opens), from the configuration loaded at start
 * (`--authorization-config`, or the mode and webhook flags, which kube turns into the same
 * configuration); reloads the configuration file while the server runs; closes the chain
 * at shutdown.
 */
@Injectable()
export class AuthorizationSetup implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Authorization');
  private readonly configured: ConfiguredAuthorizers;
  private reloader: AuthorizationConfigReloader | undefined;
  private readonly loaderHook?: PostStartHook;

  constructor(
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
    @Inject(STARTUP_AUTHORIZATION) private readonly startup: StartupAuthorization,
    private readonly factories: AuthorizerFactories,
    private readonly chain: AuthorizerChain,
    @Optional() health?: HealthChecks,
  ) {
    this.loaderHook = health?.postStartHook('authorization/config-loader');
    factories.register('AlwaysAllow', () => alwaysAllowAuthorizer);
    factories.register('AlwaysDeny', () => alwaysDenyAuthorizer);
    this.configured = new ConfiguredAuthorizers(factories);
  }

  async onApplicationBootstrap(): Promise<void> {
    const file = this.options.authorizationConfigFile;
    const { configuration, configFileData: data } = this.startup;
    try {
      this.chain.replace(await this.configured.build(configuration));
    } catch (err) {
      this.loaderHook?.failed(err as Error);
      throw err instanceof AuthorizationConfigError ? err : new AuthorizationConfigError((err as Error).message);
    }
    if (file && data !== undefined) {
      this.reloader = new AuthorizationConfigReloader(
        {
          path: file,
          intervalMs: this.options.authorizationConfigReloadIntervalMs,
          load: (next) => loadConfigFileData(next, this.options, this.configured.startupTypes),
          apply: (next) => this.install(next),
        },
        data,
        configuration,
      );
      this.reloader.start();
    }
    this.loaderHook?.done();
    this.logger.log(`authorizer chain built: ${configuration.authorizers.map((a) => a.name).join(', ') || '(empty)'}`);
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
