import { collectDefaultMetrics, Registry } from 'prom-client';
import { MetricCatalog } from './stability';

/**
 * The process-wide metrics registry (kube's legacyregistry): every metric of the server is
 * registered here once, when its module loads, and `GET /metrics` renders it.
 */
export const metricsRegistry = new Registry();

/** Every metric of the server, declared with its stability level through this catalog. */
export const metricsCatalog = new MetricCatalog(metricsRegistry);

let processMetricsEnabled = false;

/** Adds the default process metrics (CPU, memory, event loop, handles) once per process. */
export function enableProcessMetrics(): void {
  if (processMetricsEnabled) return;
  processMetricsEnabled = true;
  // The event-loop lag histogram samples at 1 s rather than prom-client's 10 ms: at 10 ms its
  // monitor alone costs an idle server ~8 ms of CPU per second.
  collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: 1000 });
}
