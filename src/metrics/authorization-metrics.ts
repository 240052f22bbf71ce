import { metricsCatalog } from './registry';
import { CounterSeries } from './series-counter';

/**
 * kube's authorization metrics (k8s.io/apiserver authorization/metrics, webhook/metrics,
 * authorization/cel): terminal decisions per authorizer, webhook round trips, and
 * match-condition outcomes. Names, help texts and labels are kube's.
 */

// Counted on every request: each authorizer's series are bound once (no label hashing per request).
const decisions = metricsCatalog.seriesCounter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_authorization_decisions_total',
  help: 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
  labelNames: ['type', 'name', 'decision'] as const,
});

const consistencyWaits = metricsCatalog.histogram({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_authorization_consistency_wait_seconds',
  help: 'Time decisions waited for the authorization indexes to apply the store revision of their arrival, by outcome (caught-up, timeout, store-unavailable: decided without waiting).',
  labelNames: ['outcome'],
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 3],
});

const webhookEvaluations = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_authorization_webhook_evaluations_total',
  help: 'Round-trips to authorization webhooks.',
  labelNames: ['name', 'result'],
});

const webhookDuration = metricsCatalog.histogram({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_authorization_webhook_duration_seconds',
  help: 'Request latency in seconds.',
  labelNames: ['name', 'result'],
  // Prometheus' default buckets, as kube's DefBuckets.
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

const webhookFailOpen = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_authorization_webhook_evaluations_fail_open_total',
  help: 'NoOpinion results due to webhook timeout or error.',
  labelNames: ['name', 'result'],
});

const matchConditionErrors = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_authorization_match_condition_evaluation_errors_total',
  help: 'Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.',
  labelNames: ['type', 'name'],
});

const matchConditionExclusions = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_authorization_match_condition_exclusions_total',
  help: 'Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.',
  labelNames: ['type', 'name'],
});

const matchConditionSeconds = metricsCatalog.histogram({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_authorization_match_condition_evaluation_seconds',
  help: 'Authorization match condition evaluation time in seconds, split by authorizer type and name.',
  labelNames: ['type', 'name'],
  buckets: [0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25],
});

/** An authorizer as its metrics name it. */
export interface NamedAuthorizer {
  readonly type: string;
  readonly name: string;
}

type Decision = 'allowed' | 'denied';
const decisionSeries = new WeakMap<NamedAuthorizer, Record<Decision, CounterSeries>>();

/** `allowed` and `denied` as the SubjectAccessReview status fields are named; NoOpinion is not terminal. */
export function recordAuthorizationDecision(authorizer: NamedAuthorizer, decision: Decision): void {
  let series = decisionSeries.get(authorizer);
  if (!series) {
    const { type, name } = authorizer;
    series = { allowed: decisions.series({ type, name, decision: 'allowed' }), denied: decisions.series({ type, name, decision: 'denied' }) };
    decisionSeries.set(authorizer, series);
  }
  series[decision].inc();
}

/** How one webhook round trip ended: kube's `success`, `timeout`, `error`, `canceled`. */
export type WebhookResult = 'success' | 'timeout' | 'error' | 'canceled';

export function recordWebhookEvaluation(name: string, result: WebhookResult, seconds: number): void {
  webhookEvaluations.inc({ name, result });
  webhookDuration.observe({ name, result }, seconds);
}

export function recordWebhookFailOpen(name: string, result: WebhookResult): void {
  webhookFailOpen.inc({ name, result });
}

export function recordMatchConditionEvaluation(type: string, name: string, seconds: number, failed: boolean): void {
  matchConditionSeconds.observe({ type, name }, seconds);
  if (failed) matchConditionErrors.inc({ type, name });
}

export function recordMatchConditionExclusion(type: string, name: string): void {
  matchConditionExclusions.inc({ type, name });
}

/** A decision that had to wait for the indexes (or could not learn the store's revision). */
export function recordDecisionConsistencyWait(outcome: 'caught-up' | 'timeout' | 'store-unavailable', seconds: number): void {
  consistencyWaits.observe({ outcome }, seconds);
}
