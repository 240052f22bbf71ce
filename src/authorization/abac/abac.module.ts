import { Inject, Module } from '@nestjs/common';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { AuthorizerFactories } from '../authorizer-factories';
import { loadAbacAuthorizer } from './abac-authorizer';

/**
 * The ABAC authorizer type (`--authorization-mode=ABAC`). The policy file is read once
 * when the chain is built, as kube does; a file that cannot be read or has a bad line
 * stops the start with the file name and line number.
 */
@Module({})
export class AbacModule {
  constructor(factories: AuthorizerFactories, @Inject(SERVER_OPTIONS) options: ServerOptions) {
    factories.register('ABAC', (entry) => {
      if (!options.authorizationPolicyFile) throw new Error("authorization-mode ABAC's authorization policy file not passed");
      return loadAbacAuthorizer(entry.name, options.authorizationPolicyFile);
    });
  }
}
