import { metricsCatalog } from './registry';

/** Access requests: how many reached each phase, and how long approval took. */

const transitions = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'access_requests_total',
  help: 'Number of AccessRequests and ClusterAccessRequests that reached each phase (Pending at creation, then Approved, Active, Expired, Denied, Revoked, Canceled).',
  labelNames: ['kind', 'phase'],
});

const approvalSeconds = metricsCatalog.histogram({
  stabilityLevel: 'ALPHA',
  name: 'access_request_approval_duration_seconds',
  help: 'Time from the creation of an access request to its final approval, in seconds.',
  labelNames: ['kind'],
  buckets: [1, 10, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 24 * 3600, 7 * 24 * 3600],
});

/** A request reached `phase`; an approval also records how long it waited (creation to validFrom). */
export function recordAccessRequestPhase(kind: string, phase: string, created?: string, approvedAt?: string): void {
  transitions.inc({ kind, phase });
  if (phase === 'Approved' && created && approvedAt) {
    const seconds = (Date.parse(approvedAt) - Date.parse(created)) / 1000;
    if (Number.isFinite(seconds)) approvalSeconds.observe({ kind }, Math.max(0, seconds));
  }
}
