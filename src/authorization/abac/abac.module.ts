import { Inject, Module } from '@nestjs/common';
import { AuthorizationModule } from '../authorization.module';
import { AuthorizerFactories } from '../authorizer-factories';
import { AbacAuthorizer } from './abac-authorizer';
import { AbacPolicy } from './abac-policy';

/** The policies of `--authorization-policy-file`, read and checked with the rest of the configuration at start. */
export const ABAC_POLICIES = Symbol('ABAC_POLICIES');

/**
 * The ABAC authorizer type (`--authorization-mode=ABAC`). The policy file is read once at
 * start, as kube does; a file that cannot be read or has a bad line stops the start (with
 * the file name and line number) before the store opens.
 */
@Module({ imports: [AuthorizationModule] })
export class AbacModule {
  constructor(factories: AuthorizerFactories, @Inject(ABAC_POLICIES) policies: AbacPolicy[] | null) {
    factories.register('ABAC', (entry) => {
      if (!policies) throw new Error("authorization-mode ABAC's authorization policy file not passed");
      return new AbacAuthorizer(entry.name, policies);
    });
  }
}
