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

/** Each result's series, looked up once. */
const byResult = {} as Record<AuthenticationResult, { attempts: { inc(): void }; duration: { observe(v: number): void } }>;
for (const result of ['success', 'failure', 'error'] as const) byResult[result] = { attempts: attempts.labels({ result }), duration: duration.labels({ result }) };

export function recordAuthentication(result: AuthenticationResult, seconds: number): void {
  byResult[result].attempts.inc();
  byResult[result].duration.observe(seconds);
}
