import { metricsCatalog } from './registry';

/** Binding usage flushes (src/access/binding-usage.service.ts): how often they wrote or failed, and how many grants they added. */

const flushes = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'access_binding_usage_flushes_total',
  help: 'Writes of the binding usage counted in memory to the database, by result (success, error; an error is retried at the next flush).',
  labelNames: ['result'],
});

const flushedGrants = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'access_binding_usage_flushed_grants_total',
  help: 'Grants (RBAC allows, by the binding that granted them) this server added to the binding usage table.',
});

export function recordBindingUsageFlush(result: 'success' | 'error', grants: number): void {
  flushes.inc({ result });
  if (result === 'success' && grants > 0) flushedGrants.inc(grants);
}
