import { metricsCatalog } from './registry';
import type { RequestKind, RequestLabels } from './request-metrics';

/**
 * kube's metrics of requests the server refused or cut short to protect itself
 * (apiserver/pkg/endpoints/metrics): names, help texts, labels and stability levels are kube's.
 */

const dropped = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_dropped_requests_total',
  help: "Number of requests dropped with 'Try again later' response",
  labelNames: ['request_kind'],
});

const terminations = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_request_terminations_total',
  help: 'Number of requests which apiserver terminated in self-defense.',
  labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
});

/** A request beyond the in-flight limit was refused with 429. */
export function recordDroppedRequest(kind: RequestKind): void {
  dropped.inc({ request_kind: kind });
}

/** The server ended a request itself (429 beyond the in-flight limit, 504 past its deadline). */
export function recordRequestTermination(labels: RequestLabels, code: number): void {
  const { dry_run: _dryRun, ...counted } = labels;
  terminations.inc({ ...counted, code: String(code) });
}
