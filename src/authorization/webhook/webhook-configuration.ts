/**
 * The `webhook` block of an AuthorizationConfiguration entry (see ../config/types), after
 * decoding and defaulting. Durations are milliseconds.
 */

export type FailurePolicy = 'NoOpinion' | 'Deny';

export interface WebhookMatchCondition {
  expression: string;
}

export interface WebhookConfiguration {
  /** How long an allow answer is cached (default 5m). */
  authorizedTTLMs: number;
  cacheAuthorizedRequests: boolean;
  /** How long any other answer is cached (default 30s). */
  unauthorizedTTLMs: number;
  cacheUnauthorizedRequests: boolean;
  timeoutMs: number;
  subjectAccessReviewVersion: string;
  matchConditionSubjectAccessReviewVersion: string;
  failurePolicy: string;
  connectionInfo: { type: string; kubeConfigFile?: string };
  matchConditions: WebhookMatchCondition[];
}
