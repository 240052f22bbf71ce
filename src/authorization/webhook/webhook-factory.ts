import { Clock } from '../../apimachinery/clock';
import { recordWebhookEvaluation } from '../../metrics/authorization-metrics';
import { FailurePolicy, WebhookConfiguration } from './webhook-configuration';
import { HttpSubjectAccessReviewer } from './http-reviewer';
import { loadWebhookKubeconfig } from '../../webhook-client/kubeconfig';
import { MatchConditions } from './match-conditions';
import { SubjectAccessReviewVersionName } from './subject-access-review';
import { WebhookAuthorizer } from './webhook-authorizer';
import { DEFAULT_RETRY_BACKOFF, RetryBackoff, WebhookTransport } from '../../webhook-client/webhook-transport';

export interface WebhookFactoryOptions {
  /** AuthorizeWithSelectors: match conditions may read `fieldSelector`/`labelSelector`. */
  withSelectors: boolean;
  retryBackoff?: RetryBackoff;
  /** The clock of the answer cache. */
  clock?: Clock;
}

/**
 * Builds one webhook authorizer from a validated configuration: its kubeconfig is read now
 * (a missing or broken file fails the build, so a reload keeps the old chain), its match
 * conditions compiled once.
 */
export async function createWebhookAuthorizer(name: string, webhook: WebhookConfiguration, options: WebhookFactoryOptions): Promise<WebhookAuthorizer> {
  const connection = loadWebhookKubeconfig(webhook.connectionInfo.kubeConfigFile ?? '');
  const transport = new WebhookTransport(connection, options.retryBackoff ?? DEFAULT_RETRY_BACKOFF, (result, seconds) =>
    recordWebhookEvaluation(name, result, seconds),
  );
  const reviewer = new HttpSubjectAccessReviewer(transport, webhook.subjectAccessReviewVersion as SubjectAccessReviewVersionName, webhook.timeoutMs);
  const matchConditions = webhook.matchConditions.length
    ? await MatchConditions.compile(
        webhook.matchConditions.map((c) => c.expression),
        options.withSelectors,
      )
    : undefined;
  return new WebhookAuthorizer({
    name,
    reviewer,
    authorizedTTLMs: webhook.cacheAuthorizedRequests ? webhook.authorizedTTLMs : 0,
    unauthorizedTTLMs: webhook.cacheUnauthorizedRequests ? webhook.unauthorizedTTLMs : 0,
    failurePolicy: webhook.failurePolicy as FailurePolicy,
    matchConditions,
    clock: options.clock,
  });
}
