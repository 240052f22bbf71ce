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

const levels = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_audit_level_total',
  help: 'Counter of policy levels for audit events (1 per request).',
  labelNames: ['level'],
});

const rejected = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_audit_requests_rejected_total',
  help: 'Counter of apiserver requests rejected due to an error in audit logging backend.',
});

export function recordAuditEvent(): void {
  events.inc();
}

/** Events a backend failed to write or send, or dropped (plugin: log, webhook, buffered, truncate). */
export function recordAuditError(plugin: string, count = 1): void {
  errors.inc({ plugin }, count);
}

export function recordAuditLevel(level: string): void {
  levels.inc({ level });
}

export function recordAuditRejectedRequest(): void {
  rejected.inc();
}
