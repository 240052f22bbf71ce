import { exponentialBuckets } from 'prom-client';
import { metricsCatalog } from './registry';

/** kube's authentication metrics (apiserver/pkg/endpoints/filters/metrics.go): names, help texts, labels, buckets. */

const attempts = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'authentication_attempts',
  help: 'Counter of authenticated attempts.',
  labelNames: ['result'],
});

const duration = metricsCatalog.histogram({
  stabilityLevel: 'ALPHA',
  name: 'authentication_duration_seconds',
  help: 'Authentication duration in seconds broken out by result.',
  labelNames: ['result'],
  buckets: exponentialBuckets(0.001, 2, 15),
});

/** kube's results: `success` (anonymous included), `failure` (401), `error` (the authenticator itself failed). */
export type AuthenticationResult = 'success' | 'failure' | 'error';

export function recordAuthentication(result: AuthenticationResult, seconds: number): void {
  attempts.inc({ result });
  duration.observe({ result }, seconds);
}
