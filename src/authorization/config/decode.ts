import * as YAML from 'yaml';
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

/** A file that cannot be decoded (kube: "failed to load AuthorizationConfiguration from file: ..."). */
export class ConfigDecodeError extends Error {}

/** The shape of the file, for strict decoding: field kinds and the Go struct each object is. */
type FieldKind = 'string' | 'bool' | 'duration' | ObjectKind | ListKind;
interface ObjectKind {
  struct: string;
  fields: Record<string, FieldKind>;
}
interface ListKind {
  items: FieldKind;
}

const webhookKind: ObjectKind = {
  struct: 'WebhookConfiguration',
  fields: {
    authorizedTTL: 'duration',
    cacheAuthorizedRequests: 'bool',
    unauthorizedTTL: 'duration',
    cacheUnauthorizedRequests: 'bool',
    timeout: 'duration',
    subjectAccessReviewVersion: 'string',
    matchConditionSubjectAccessReviewVersion: 'string',
    failurePolicy: 'string',
    connectionInfo: { struct: 'WebhookConnectionInfo', fields: { type: 'string', kubeConfigFile: 'string' } },
    matchConditions: { items: { struct: 'WebhookMatchCondition', fields: { expression: 'string' } } },
  },
};

const configurationKind: ObjectKind = {
  struct: 'AuthorizationConfiguration',
  fields: {
    apiVersion: 'string',
    kind: 'string',
    authorizers: { items: { struct: 'AuthorizerConfiguration', fields: { type: 'string', name: 'string', webhook: webhookKind } } },
  },
};

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks every value against the shape the way a strict JSON decode into kube's structs does:
 * unknown fields are collected (all reported together), a wrong type stops decoding.
 */
function checkShape(value: unknown, kind: FieldKind, path: string, structPath: string, owner: string, unknown: string[]): void {
  if (value === null || value === undefined) return;
  const mismatch = (goType: string) =>
    new ConfigDecodeError(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${owner}.${structPath} of type ${goType}`);
  if (kind === 'string' || kind === 'duration') {
    if (typeof value !== 'string') {
      if (kind === 'duration') throw new ConfigDecodeError(`json: cannot unmarshal ${jsonType(value)} into Go value of type string`);
      throw mismatch('string');
    }
    return;
  }
  if (kind === 'bool') {
    if (typeof value !== 'boolean') throw mismatch('bool');
    return;
  }
  if ('items' in kind) {
    const items = kind.items;
    if (!Array.isArray(value)) throw mismatch(`[]${typeof items === 'object' && 'struct' in items ? `v1.${items.struct}` : String(items)}`);
    value.forEach((item, i) => checkShape(item, kind.items, `${path}[${i}]`, structPath, owner, unknown));
    return;
  }
  if (!isObject(value)) throw mismatch(`v1.${kind.struct}`);
  for (const [field, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${field}` : field;
    const childKind = kind.fields[field];
    if (!childKind) {
      unknown.push(childPath);
      continue;
    }
    checkShape(child, childKind, childPath, structPath ? `${structPath}.${field}` : field, kind.struct, unknown);
  }
}

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
  let doc: unknown;
  try {
    doc = YAML.parse(data);
  } catch (err) {
    throw new ConfigDecodeError(`error converting YAML to JSON: yaml: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObject(doc)) throw new ConfigDecodeError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(doc)} into Go value of type struct`);
  const compact = JSON.stringify(doc);
  if (typeof doc.kind !== 'string' || !doc.kind) throw new ConfigDecodeError(`Object 'Kind' is missing in '${compact}'`);
  if (typeof doc.apiVersion !== 'string' || !doc.apiVersion) throw new ConfigDecodeError(`Object 'apiVersion' is missing in '${compact}'`);
  const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/', 2) : ['', doc.apiVersion];
  if (group !== AUTHORIZATION_CONFIG_GROUP || !AUTHORIZATION_CONFIG_VERSIONS.includes(version) || doc.kind !== AUTHORIZATION_CONFIG_KIND) {
    throw new ConfigDecodeError(`no kind ${JSON.stringify(doc.kind)} is registered for version ${JSON.stringify(doc.apiVersion)}`);
  }
  const unknown: string[] = [];
  checkShape(doc, configurationKind, '', '', configurationKind.struct, unknown);
  if (unknown.length) throw new ConfigDecodeError(`strict decoding error: ${unknown.map((f) => `unknown field ${JSON.stringify(f)}`).join(', ')}`);
  return { authorizers: (Array.isArray(doc.authorizers) ? doc.authorizers : []).map(decodeAuthorizer) };
}
