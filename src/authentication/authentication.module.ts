import { Module } from '@nestjs/common';
import { AuthenticationMiddleware } from './authentication.middleware';
import { Authenticator } from './authenticator';

@Module({ providers: [Authenticator, AuthenticationMiddleware], exports: [Authenticator, AuthenticationMiddleware] })
export class AuthenticationModule {}
