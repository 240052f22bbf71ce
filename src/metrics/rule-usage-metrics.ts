import { metricsCatalog } from './registry';

/** Rule-level usage and refused attributes (src/access/least-privilege): what the memory bound dropped, and the flushes. */

const dropped = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'access_rule_usage_dropped_total',
  help: 'Decisions whose attributes were not recorded because the memory bound was reached, by record (allowed: rule-level usage; denied: refused attributes) and bound (total, per-binding, per-user). Counts of attributes already held keep growing; the binding usage still counts every grant.',
  labelNames: ['record', 'bound'],
});

const flushes = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'access_rule_usage_flushes_total',
  help: 'Writes of the rule-level usage and refused attributes recorded in memory to the database, by result (success, error; an error is retried at the next flush).',
  labelNames: ['result'],
});

const held = metricsCatalog.gauge({
  stabilityLevel: 'ALPHA',
  name: 'access_rule_usage_records',
  help: 'Distinct attribute records held in memory since the last flush, by record (allowed, denied).',
  labelNames: ['record'],
});

export function recordRuleUsageDrop(record: 'allowed' | 'denied', bound: 'total' | 'per-binding' | 'per-user'): void {
  dropped.inc({ record, bound });
}

export function recordRuleUsageFlush(result: 'success' | 'error', allowed: number, denied: number): void {
  flushes.inc({ result });
  held.set({ record: 'allowed' }, allowed);
  held.set({ record: 'denied' }, denied);
}
