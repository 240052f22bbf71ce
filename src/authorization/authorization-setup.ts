import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { AuthorizerChain } from './authorizer-chain';
import { AuthorizerEntry, AuthorizerFactories } from './authorizer-factories';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer } from './authorizers';

/** The chain entries `--authorization-mode` stands for: kube names each after its mode in lower case. */
export function modeEntries(modes: string[]): AuthorizerEntry[] {
  return modes.map((mode) => ({ type: mode, name: mode.toLowerCase() }));
}

/**
 * Builds the authorizer chain once every module has registered its authorizer types
 * (application bootstrap, before the port opens), and closes it at shutdown.
 */
@Injectable()
export class AuthorizationSetup implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Authorization');

  constructor(
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
    private readonly factories: AuthorizerFactories,
    private readonly chain: AuthorizerChain,
  ) {
    factories.register('AlwaysAllow', () => alwaysAllowAuthorizer);
    factories.register('AlwaysDeny', () => alwaysDenyAuthorizer);
  }

  async onApplicationBootstrap(): Promise<void> {
    const entries = modeEntries(this.options.authorizationModes);
    const authorizers = [];
    for (const entry of entries) authorizers.push(await this.factories.build(entry));
    this.chain.replace(authorizers);
    if (this.options.authorizationModes.includes('AlwaysAllow')) {
      const others = this.options.authorizationModes.filter((m) => m !== 'AlwaysAllow');
      this.logger.warn(
        others.length
          ? `AlwaysAllow authorization is on together with ${others.join(', ')}: every request is allowed, the other modes cannot deny (insecure)`
          : 'AlwaysAllow authorization is on: every request is allowed (insecure)',
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    for (const authorizer of this.chain.replace([])) await authorizer.close?.();
  }
}
