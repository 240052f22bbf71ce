import { createHash } from 'node:crypto';
import { metricsCatalog } from './registry';

/** kube's JWT authenticator metric (apiserver/plugin/pkg/authenticator/token/oidc/metrics.go). */
const latency = metricsCatalog.histogram({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_authentication_jwt_authenticator_latency_seconds',
  help: 'Latency of jwt authentication operations in seconds. This is the time spent authenticating a token for cache miss only (i.e. when the token is not found in the cache).',
  labelNames: ['result', 'jwt_issuer_hash'],
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/** kube labels issuers by hash, so the metric names none. */
export function issuerHash(issuer: string): string {
  return `sha256:${createHash('sha256').update(issuer).digest('hex')}`;
}

export function recordJwtAuthentication(issuerHashLabel: string, result: 'success' | 'failure', seconds: number): void {
  latency.observe({ result, jwt_issuer_hash: issuerHashLabel }, seconds);
}
