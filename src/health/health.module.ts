import { Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthChecks } from './health-checks';
import { HealthController } from './health.controller';

@Global()
@Module({ imports: [TerminusModule], controllers: [HealthController], providers: [HealthChecks], exports: [HealthChecks] })
export class HealthModule {}
