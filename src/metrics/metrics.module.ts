import { Module, OnModuleInit } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { enableProcessMetrics } from './registry';
// Exported from the start, before any audit backend records them.
import './audit-metrics';

/** The `/metrics` endpoint; metrics themselves are registered by the modules that record them. */
@Module({ controllers: [MetricsController] })
export class MetricsModule implements OnModuleInit {
  onModuleInit(): void {
    enableProcessMetrics();
  }
}
