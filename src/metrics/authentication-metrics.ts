import { exponentialBuckets } from 'prom-client';
import { metricsCatalog } from './registry';
import { CounterSeries } from './series-counter';
import { HistogramSeries } from './series-histogram';

/** kube's authentication metrics (apiserver/pkg/endpoints/filters/metrics.go): names, help texts, labels, buckets. */

// Counted and observed on every request: their series are bound once (no label hashing per request).
const attempts = metricsCatalog.seriesCounter({
  stabilityLevel: 'ALPHA',
  name: 'authentication_attempts',
  help: 'Counter of authenticated attempts.',
  labelNames: ['result'] as const,
});

const duration = metricsCatalog.seriesHistogram({
  stabilityLevel: 'ALPHA',
  name: 'authentication_duration_seconds',
  help: 'Authentication duration in seconds broken out by result.',
  labelNames: ['result'] as const,
  buckets: exponentialBuckets(0.001, 2, 15),
});

/** kube's results: `success` (anonymous included), `failure` (401), `error` (the authenticator itself failed). */
export type AuthenticationResult = 'success' | 'failure' | 'error';

/** Each result's series, bound at its first use (a result shows once it has happened, as in kube). */
const byResult: Partial<Record<AuthenticationResult, { attempts: CounterSeries; duration: HistogramSeries }>> = {};

export function recordAuthentication(result: AuthenticationResult, seconds: number): void {
  const series = (byResult[result] ??= { attempts: attempts.series({ result }), duration: duration.series({ result }) });
  series.attempts.inc();
  series.duration.observe(seconds);
}
