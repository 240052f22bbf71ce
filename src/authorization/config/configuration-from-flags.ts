import { ServerOptions } from '../../config/options';
import { AuthorizationConfiguration, CONNECTION_KUBECONFIG_FILE } from './types';

/** kube-apiserver's webhook timeout when the webhook comes from flags. */
const FLAG_WEBHOOK_TIMEOUT_MS = 30_000;

/**
 * kube's buildAuthorizationConfiguration: `--authorization-mode` and the
 * `--authorization-webhook-*` flags as the configuration they stand for. Each mode is named
 * after itself in lower case; a flag webhook gets kube's implied 30s timeout and NoOpinion
 * failure policy, and a TTL of zero turns its cache off.
 */
export function configurationFromFlags(options: ServerOptions): AuthorizationConfiguration {
  return {
    authorizers: options.authorizationModes.map((mode) => {
      if (mode !== 'Webhook') return { type: mode, name: mode.toLowerCase() };
      const webhook = options.authorizationWebhook;
      return {
        type: 'Webhook',
        name: 'webhook',
        webhook: {
          authorizedTTLMs: webhook.cacheAuthorizedTTLMs,
          cacheAuthorizedRequests: webhook.cacheAuthorizedTTLMs !== 0,
          unauthorizedTTLMs: webhook.cacheUnauthorizedTTLMs,
          cacheUnauthorizedRequests: webhook.cacheUnauthorizedTTLMs !== 0,
          timeoutMs: FLAG_WEBHOOK_TIMEOUT_MS,
          subjectAccessReviewVersion: webhook.version,
          matchConditionSubjectAccessReviewVersion: '',
          failurePolicy: 'NoOpinion',
          connectionInfo: { type: CONNECTION_KUBECONFIG_FILE, kubeConfigFile: webhook.configFile },
          matchConditions: [],
        },
      };
    }),
  };
}
