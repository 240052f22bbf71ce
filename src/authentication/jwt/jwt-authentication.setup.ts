import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { ConfigFileReloader } from '../../config/config-file-reloader';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { configControllerMetrics } from '../../metrics/config-controller-metrics';
import { SERVICE_ACCOUNT_TOKEN_SETTINGS, ServiceAccountTokenSettings } from '../serviceaccount/service-account-tokens';
import { Authenticator } from '../authenticator';
import { IssuerKeys } from './issuer-keys';
import { JwtAuthenticator } from './jwt-authenticator';
import { JwtStrategy } from './jwt.strategy';
import { AuthenticationConfigError, loadAuthenticationConfiguration, LoadedAuthenticationConfiguration, readAuthenticationConfigFile } from './load';
import { authenticationLoadOptions, STARTUP_JWT_AUTHENTICATION, StartupJwtAuthentication } from './startup';

/** kube's authentication-configuration controller metrics. */
const authenticationConfigMetrics = configControllerMetrics('authentication');

/** How long replaced issuers' keys stay usable for requests already verifying with them. */
const RETIRED_KEYS_GRACE_MS = 30_000;

/**
 * Puts the JWT authenticators into the authentication union, starts loading their issuers'
 * keys in the background (an unreachable issuer never holds the start or /readyz), and
 * reloads `--authentication-config` while the server runs.
 */
@Injectable()
export class JwtAuthenticationSetup implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Authentication');
  private readonly strategy: JwtStrategy;
  private reloader: ConfigFileReloader<LoadedAuthenticationConfiguration> | undefined;

  constructor(
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
    @Inject(STARTUP_JWT_AUTHENTICATION) private readonly startup: StartupJwtAuthentication,
    authenticator: Authenticator,
    @Optional() @Inject(SERVICE_ACCOUNT_TOKEN_SETTINGS) tokens?: ServiceAccountTokenSettings,
  ) {
    this.strategy = new JwtStrategy(tokens?.apiAudiences);
    authenticator.register(this.strategy);
  }

  onApplicationBootstrap(): void {
    this.install(this.startup.loaded);
    const file = this.options.authenticationConfigFile;
    const data = this.startup.configFileData;
    if (!file || data === undefined) return;
    const loadOptions = authenticationLoadOptions(this.options);
    const anonymousAtStart = JSON.stringify(this.startup.loaded.configuration.anonymous ?? null);
    this.reloader = new ConfigFileReloader<LoadedAuthenticationConfiguration>(
      {
        path: file,
        intervalMs: this.options.authenticationConfigReloadIntervalMs,
        subject: 'authentication config',
        read: readAuthenticationConfigFile,
        load: async (next) => {
          const loaded = await loadAuthenticationConfiguration(next, loadOptions);
          // The anonymous settings are read once, at start (kube refuses to change them on reload).
          if (JSON.stringify(loaded.configuration.anonymous ?? null) !== anonymousAtStart) {
            throw new AuthenticationConfigError('changes to anonymous authenticator configuration are not supported');
          }
          return loaded;
        },
        apply: (next) => Promise.resolve(this.install(next)),
        record: authenticationConfigMetrics,
      },
      data,
      this.startup.loaded,
    );
    this.reloader.start();
  }

  onApplicationShutdown(): void {
    this.reloader?.stop();
    for (const authenticator of this.strategy.replace([])) authenticator.keys.close();
  }

  /**
   * Swaps in the authenticators of a configuration. An issuer whose connection settings did
   * not change keeps its loaded keys; the others start loading theirs now.
   */
  private install(loaded: LoadedAuthenticationConfiguration): void {
    const current = new Map(this.strategy.authenticators().map((a) => [keysIdentity(a.config.issuer), a.keys]));
    const next = loaded.configuration.jwt.map((config, i) => {
      const identity = keysIdentity(config.issuer);
      let keys = current.get(identity);
      if (keys) current.delete(identity);
      else {
        keys = new IssuerKeys({ issuer: config.issuer.url, discoveryURL: config.issuer.discoveryURL, certificateAuthority: config.issuer.certificateAuthority });
        void keys.start();
      }
      return new JwtAuthenticator(config, loaded.compiled[i], this.startup.algorithms, keys);
    });
    this.strategy.replace(next);
    for (const keys of current.values()) setTimeout(() => keys.close(), RETIRED_KEYS_GRACE_MS).unref();
    if (next.length) this.logger.log(`JWT authenticators: ${next.map((a) => a.issuer).join(', ')}`);
  }
}

function keysIdentity(issuer: { url: string; discoveryURL: string; certificateAuthority: string }): string {
  return JSON.stringify([issuer.url, issuer.discoveryURL, issuer.certificateAuthority]);
}
