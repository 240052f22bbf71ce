import { Module } from '@nestjs/common';
import { HealthModule } from '../../health/health.module';
import { AuthorizationModule } from '../authorization.module';
import { AuthorizationSetup } from './authorization-setup';

/** Builds the authorizer chain from the configuration at start, reloads it, closes it at shutdown. */
@Module({ imports: [AuthorizationModule, HealthModule], providers: [AuthorizationSetup] })
export class AuthorizationConfigModule {}
