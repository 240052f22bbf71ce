import { Module } from '@nestjs/common';
import { AuthorizationModule } from '../authorization.module';
import { AuthorizationSetup } from './authorization-setup';

/** Builds the authorizer chain from the configuration at start, reloads it, closes it at shutdown. */
@Module({ imports: [AuthorizationModule], providers: [AuthorizationSetup] })
export class AuthorizationConfigModule {}
