import type { WebhookConfiguration } from '../webhook/webhook-configuration';

export type { WebhookConfiguration } from '../webhook/webhook-configuration';

/**
 * AuthorizationConfiguration (`apiserver.config.platform.io/v1` and `v1beta1`), after
 * decoding and defaulting: the ordered authorizer chain of `--authorization-config`.
 * Durations are milliseconds.
 */

export const AUTHORIZATION_CONFIG_GROUP = 'apiserver.config.platform.io';
export const AUTHORIZATION_CONFIG_VERSIONS = ['v1', 'v1beta1'];
export const AUTHORIZATION_CONFIG_KIND = 'AuthorizationConfiguration';

/** kube's AuthorizationModeChoices, and Guardrail (AccessGuardrails; first when not named): the types a file may name. */
export const AUTHORIZER_TYPES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node', 'Guardrail'];
/** Only webhooks may appear more than once. */
export const REPEATABLE_AUTHORIZER_TYPES = ['Webhook'];

/** kube's connectionInfo types; the spec's `KubeConfig` spelling is accepted as the same. */
export const CONNECTION_KUBECONFIG_FILE = 'KubeConfigFile';
export const CONNECTION_KUBECONFIG_ALIAS = 'KubeConfig';
export const CONNECTION_IN_CLUSTER = 'InClusterConfig';

export interface AuthorizerConfiguration {
  type: string;
  name: string;
  webhook?: WebhookConfiguration;
}

export interface AuthorizationConfiguration {
  authorizers: AuthorizerConfiguration[];
}

export const DEFAULT_AUTHORIZED_TTL_MS = 5 * 60_000;
export const DEFAULT_UNAUTHORIZED_TTL_MS = 30_000;
