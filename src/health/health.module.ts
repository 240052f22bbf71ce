import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthChecks } from './health-checks';
import { HealthController } from './health.controller';

/** /livez, /readyz and /healthz, and the registry of checks behind them (storage and RBAC bootstrap register theirs). */
@Module({ imports: [TerminusModule], controllers: [HealthController], providers: [HealthChecks], exports: [HealthChecks] })
export class HealthModule {}
