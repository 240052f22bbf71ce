import { decodeConfigDocument, isObject } from '../../config/config-document';
import { strictDecodingError } from '../../runtime/schema/schema-decoder';
import { DurationSyntaxError, parseGoDuration } from '../../config/go-duration';
import {
  AUTHORIZATION_CONFIG_GROUP,
  AUTHORIZATION_CONFIG_KIND,
  AUTHORIZATION_CONFIG_VERSIONS,
  AuthorizationConfiguration,
  AuthorizerConfiguration,
  DEFAULT_AUTHORIZED_TTL_MS,
  DEFAULT_UNAUTHORIZED_TTL_MS,
  WebhookConfiguration,
} from './types';
import { AUTHORIZATION_CONFIGURATION_SCHEMA } from './schema';

/** A file that cannot be decoded (kube: "failed to load AuthorizationConfiguration from file: ..."). */
export class ConfigDecodeError extends Error {}

function duration(value: unknown, fallbackMs: number): number {
  if (value === undefined || value === null) return fallbackMs;
  try {
    return parseGoDuration(value as string);
  } catch (err) {
    if (err instanceof DurationSyntaxError) throw new ConfigDecodeError(err.message);
    throw err;
  }
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** kube's SetDefaults_WebhookConfiguration: unset (or zero) TTLs get 5m and 30s; caching on. */
function decodeWebhook(raw: Record<string, unknown>): WebhookConfiguration {
  const authorizedTTLMs = duration(raw.authorizedTTL, 0);
  const unauthorizedTTLMs = duration(raw.unauthorizedTTL, 0);
  const connection = isObject(raw.connectionInfo) ? raw.connectionInfo : {};
  return {
    authorizedTTLMs: authorizedTTLMs === 0 ? DEFAULT_AUTHORIZED_TTL_MS : authorizedTTLMs,
    cacheAuthorizedRequests: raw.cacheAuthorizedRequests !== false,
    unauthorizedTTLMs: unauthorizedTTLMs === 0 ? DEFAULT_UNAUTHORIZED_TTL_MS : unauthorizedTTLMs,
    cacheUnauthorizedRequests: raw.cacheUnauthorizedRequests !== false,
    timeoutMs: duration(raw.timeout, 0),
    subjectAccessReviewVersion: text(raw.subjectAccessReviewVersion),
    matchConditionSubjectAccessReviewVersion: text(raw.matchConditionSubjectAccessReviewVersion),
    failurePolicy: text(raw.failurePolicy),
    connectionInfo: {
      type: text(connection.type),
      ...(typeof connection.kubeConfigFile === 'string' ? { kubeConfigFile: connection.kubeConfigFile } : {}),
    },
    matchConditions: (Array.isArray(raw.matchConditions) ? raw.matchConditions : []).map((c) => ({
      expression: isObject(c) ? text(c.expression) : '',
    })),
  };
}

function decodeAuthorizer(raw: unknown): AuthorizerConfiguration {
  const entry = isObject(raw) ? raw : {};
  return {
    type: text(entry.type),
    name: text(entry.name),
    ...(isObject(entry.webhook) ? { webhook: decodeWebhook(entry.webhook) } : {}),
  };
}

/**
 * Decodes a YAML or JSON AuthorizationConfiguration as kube's load.LoadFromData does: group,
 * version and kind checked, unknown fields rejected (strict), defaults applied. Empty data is
 * an empty configuration (which then fails validation).
 */
export function decodeAuthorizationConfiguration(data: string): AuthorizationConfiguration {
  if (data.trim() === '') return { authorizers: [] };
  const doc = decodeConfigDocument(
    data,
    { group: AUTHORIZATION_CONFIG_GROUP, versions: AUTHORIZATION_CONFIG_VERSIONS, kind: AUTHORIZATION_CONFIG_KIND },
    (message) => new ConfigDecodeError(message),
  );
  const problem = strictDecodingError(doc, AUTHORIZATION_CONFIGURATION_SCHEMA, 'v1.AuthorizationConfiguration');
  if (problem) throw new ConfigDecodeError(problem);
  return { authorizers: (Array.isArray(doc.authorizers) ? doc.authorizers : []).map(decodeAuthorizer) };
}
