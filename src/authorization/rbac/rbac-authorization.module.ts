import { Module } from '@nestjs/common';
import { AuthorizationModule } from '../authorization.module';
import { AuthorizerFactories } from '../authorizer-factories';
import { RbacAuthorizer } from './rbac-authorizer';
import { RbacIndex } from './rbac-index.service';

/**
 * The RBAC authorizer type (`--authorization-mode=RBAC`, or `type: RBAC` in the
 * authorization configuration) and the policy index it reads. The RBAC module imports it
 * too, so escalation checks and the aggregation controller can read the index whether or
 * not RBAC authorization is on. Building the authorizer waits for the index's initial list, so the
 * chain never answers from an empty index.
 */
@Module({
  imports: [AuthorizationModule],
  providers: [RbacIndex],
  exports: [RbacIndex],
})
export class RbacAuthorizationModule {
  constructor(factories: AuthorizerFactories, index: RbacIndex) {
    factories.register('RBAC', async (entry) => {
      await index.ready();
      return new RbacAuthorizer(entry.name, index, index.followsStore);
    });
  }
}
