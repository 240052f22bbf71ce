import { Module, Optional } from '@nestjs/common';
import { HealthChecks } from '../health/health-checks';
import { HealthModule } from '../health/health.module';
import { Authenticator } from './authenticator';

@Module({ imports: [HealthModule], providers: [Authenticator], exports: [Authenticator] })
export class AuthenticationModule {
  constructor(@Optional() health?: HealthChecks) {
    // The credentials it reads (token file, client CAs) were loaded and checked with the configuration, before the store opened.
    health?.postStartHook('authentication/config-loader').done();
  }
}
