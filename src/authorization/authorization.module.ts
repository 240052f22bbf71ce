import { Global, Module } from '@nestjs/common';
import { AuthorizationGuard } from './authorization.guard';
import { AuthorizationSetup } from './authorization-setup';
import { AuthorizerChain } from './authorizer-chain';
import { AuthorizerFactories } from './authorizer-factories';

/**
 * The authorizer chain, its guard, and the registry where authorizer types are plugged in
 * (RBAC, Node, ABAC, Webhook register their factories from their own modules).
 */
@Global()
@Module({
  providers: [AuthorizerChain, AuthorizerFactories, AuthorizationSetup, AuthorizationGuard],
  exports: [AuthorizerChain, AuthorizerFactories, AuthorizationGuard],
})
export class AuthorizationModule {}
