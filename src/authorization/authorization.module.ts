import { Module } from '@nestjs/common';
import { AuthorizationGuard } from './authorization.guard';
import { AuthorizerChain } from './authorizer-chain';
import { AuthorizerFactories } from './authorizer-factories';

/**
 * The authorizer chain, its guard, and the registry where authorizer types are plugged in
 * (RBAC, Node, ABAC, Webhook register their factories from their own modules, which import
 * this one; the chain is built from the configuration by AuthorizationConfigModule).
 */
@Module({
  providers: [AuthorizerChain, AuthorizerFactories, AuthorizationGuard],
  exports: [AuthorizerChain, AuthorizerFactories, AuthorizationGuard],
})
export class AuthorizationModule {}
