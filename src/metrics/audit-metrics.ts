import { Counter } from 'prom-client';
import { metricsRegistry } from './registry';

/** kube's audit metrics (k8s.io/apiserver audit/metrics.go): names, help texts and labels are kube's. */

const events = new Counter({
  name: 'apiserver_audit_event_total',
  help: '[ALPHA] Counter of audit events generated and sent to the audit backend.',
  registers: [metricsRegistry],
});

const errors = new Counter({
  name: 'apiserver_audit_error_total',
  help: '[ALPHA] Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
  labelNames: ['plugin'],
  registers: [metricsRegistry],
});

const levels = new Counter({
  name: 'apiserver_audit_level_total',
  help: '[ALPHA] Counter of policy levels for audit events (1 per request).',
  labelNames: ['level'],
  registers: [metricsRegistry],
});

const rejected = new Counter({
  name: 'apiserver_audit_requests_rejected_total',
  help: '[ALPHA] Counter of apiserver requests rejected due to an error in audit logging backend.',
  registers: [metricsRegistry],
});

export function recordAuditEvent(): void {
  events.inc();
}

/** Events a backend failed to write or send, or dropped (plugin: log, webhook, buffered). */
export function recordAuditError(plugin: string, count = 1): void {
  errors.inc({ plugin }, count);
}

export function recordAuditLevel(level: string): void {
  levels.inc({ level });
}

export function recordAuditRejectedRequest(): void {
  rejected.inc();
}
