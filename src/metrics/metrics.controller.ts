import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { metricsRegistry } from './registry';

/**
 * `GET /metrics` in the Prometheus text format. Not public: the authorizer chain decides,
 * as for any non-resource path (kube's `system:monitoring` ClusterRole grants `get` on it).
 */
@Controller()
export class MetricsController {
  @Get('metrics')
  async metrics(@Res() res: Response): Promise<void> {
    const body = await metricsRegistry.metrics();
    res.status(200).setHeader('Content-Type', metricsRegistry.contentType);
    res.end(body);
  }
}
