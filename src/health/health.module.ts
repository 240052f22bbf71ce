import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthChecks } from './health-checks';
import { HealthController } from './health.controller';

/**
 * /livez, /readyz and /healthz, and the registry of checks behind them (storage and RBAC
 * bootstrap register theirs), run by terminus. Its own log stays off: a failing probe is
 * logged as kube logs it, by the controller.
 */
@Module({ imports: [TerminusModule.forRoot({ logger: false })], controllers: [HealthController], providers: [HealthChecks], exports: [HealthChecks] })
export class HealthModule {}
