import { Module, OnModuleInit } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { enableProcessMetrics } from './registry';

/** The `/metrics` endpoint; metrics themselves are registered by the modules that record them. */
@Module({ controllers: [MetricsController] })
export class MetricsModule implements OnModuleInit {
  onModuleInit(): void {
    enableProcessMetrics();
  }
}
