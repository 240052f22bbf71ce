import type { Registry } from 'prom-client';

/**
 * Calls into the embedded store engine, from the server's own histogram
 * (apiserver_storage_embedded_call_duration_seconds): each runs synchronously in the engine's
 * own thread, so the longest is how long the store held its one session. Snapshots are
 * cumulative counts per bucket bound; two of them give what happened between.
 */
export type EngineCallBuckets = Map<number, number>;

export interface EngineCalls {
  count: number;
  /** Calls above each bound (ms). */
  overMs: Record<string, number>;
  /** The smallest bound (ms) every call of the window was within. */
  longestUpToMs: number;
}

const ENGINE_CALLS = 'apiserver_storage_embedded_call_duration_seconds';

export async function engineCallBuckets(registry: Registry): Promise<EngineCallBuckets | undefined> {
  const metric = registry.getSingleMetric(ENGINE_CALLS);
  if (!metric) return undefined;
  const buckets: EngineCallBuckets = new Map();
  for (const v of (await metric.get()).values) {
    if ((v as { metricName?: string }).metricName === `${ENGINE_CALLS}_bucket`) buckets.set(v.labels.le === '+Inf' ? Infinity : Number(v.labels.le), v.value);
  }
  return buckets;
}

export function engineCallsBetween(from: EngineCallBuckets, to: EngineCallBuckets): EngineCalls {
  const delta = (b: number) => (to.get(b) ?? 0) - (from.get(b) ?? 0);
  const count = delta(Infinity);
  const overMs: Record<string, number> = {};
  let longestUpToMs = Infinity;
  for (const b of [...to.keys()].sort((x, y) => x - y)) {
    if (b === Infinity) break;
    overMs[String(b * 1000)] = count - delta(b);
    if (delta(b) === count && longestUpToMs === Infinity) longestUpToMs = b * 1000;
  }
  return { count, overMs, longestUpToMs };
}

export function describeEngineCalls(c: EngineCalls, window: string): string {
  if (c.count === 0) return `no store engine calls ${window}`;
  return `${c.count} store engine calls ${window}, the longest <= ${c.longestUpToMs} ms, ${c.overMs['5'] ?? 0} over 5 ms, ${c.overMs['2'] ?? 0} over 2 ms`;
}
