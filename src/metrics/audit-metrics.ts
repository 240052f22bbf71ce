import { metricsCatalog } from './registry';

/** kube's audit metrics (apiserver/pkg/audit/metrics.go); the audit backends record them. */

const events = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_audit_event_total',
  help: 'Counter of audit events generated and sent to the audit backend.',
});

const errors = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_audit_error_total',
  help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
  labelNames: ['plugin'],
});

/** One audit event generated and handed to the backends. */
export function recordAuditEvent(): void {
  events.inc();
}

/** `count` events a backend (`log`, `webhook`, ...) failed to write or dropped. */
export function recordAuditError(plugin: string, count = 1): void {
  errors.inc({ plugin }, count);
}
