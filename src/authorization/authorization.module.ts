import { Module } from '@nestjs/common';
import { AuthorizationGuard } from './authorization.guard';
import { AuthorizerChain } from './authorizer-chain';

@Module({ providers: [AuthorizerChain, AuthorizationGuard], exports: [AuthorizerChain, AuthorizationGuard] })
export class AuthorizationModule {}
