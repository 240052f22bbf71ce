import { decodeConfigDocument, isObject, jsonType } from '../../config/config-document';
import {
  AUTHENTICATION_CONFIG_GROUP,
  AUTHENTICATION_CONFIG_KIND,
  AUTHENTICATION_CONFIG_VERSIONS,
  AuthenticationConfiguration,
  ClaimValidationRule,
  JWTAuthenticator,
} from './types';

/** A file that cannot be decoded into an AuthenticationConfiguration (kube's strict decoding). */
export class AuthenticationConfigDecodeError extends Error {}

/** The file's shape: each field's Go type, for strict decoding (unknown fields and wrong types are errors). */
type Shape = 'string' | 'bool' | 'strings' | { object: Record<string, Shape>; goName: string } | { list: Record<string, Shape>; goName: string };

const PREFIXED = { object: { claim: 'string', prefix: 'string', expression: 'string' }, goName: 'PrefixedClaimOrExpression' } as const;
const SHAPE: Record<string, Shape> = {
  apiVersion: 'string',
  kind: 'string',
  jwt: {
    goName: 'JWTAuthenticator',
    list: {
      issuer: {
        goName: 'Issuer',
        object: { url: 'string', discoveryURL: 'string', certificateAuthority: 'string', audiences: 'strings', audienceMatchPolicy: 'string' },
      },
      claimValidationRules: { goName: 'ClaimValidationRule', list: { claim: 'string', requiredValue: 'string', expression: 'string', message: 'string' } },
      claimMappings: {
        goName: 'ClaimMappings',
        object: {
          username: PREFIXED,
          groups: PREFIXED,
          uid: { object: { claim: 'string', expression: 'string' }, goName: 'ClaimOrExpression' },
          extra: { goName: 'ExtraMapping', list: { key: 'string', valueExpression: 'string' } },
        },
      },
      userValidationRules: { goName: 'UserValidationRule', list: { expression: 'string', message: 'string' } },
    },
  },
  anonymous: { goName: 'AnonymousAuthConfig', object: { enabled: 'bool', conditions: { goName: 'AnonymousAuthCondition', list: { path: 'string' } } } },
};

/** Every unknown field and wrong type, as Go's strict JSON decoding names them. */
function shapeProblems(value: Record<string, unknown>, shape: Record<string, Shape>, path: string, owner: string, problems: string[]): void {
  for (const [key, field] of Object.entries(value)) {
    const fieldPath = path ? `${path}.${key}` : key;
    const spec = shape[key];
    if (!spec) {
      problems.push(`unknown field ${JSON.stringify(fieldPath)}`);
      continue;
    }
    if (field === null || field === undefined) continue;
    const mismatch = (goType: string) => problems.push(`json: cannot unmarshal ${jsonType(field)} into Go struct field ${owner}.${fieldPath} of type ${goType}`);
    if (spec === 'string') {
      if (typeof field !== 'string') mismatch('string');
    } else if (spec === 'bool') {
      if (typeof field !== 'boolean') mismatch('bool');
    } else if (spec === 'strings') {
      if (!Array.isArray(field) || field.some((item) => typeof item !== 'string')) mismatch('[]string');
    } else if ('object' in spec) {
      if (!isObject(field)) mismatch(`v1.${spec.goName}`);
      else shapeProblems(field, spec.object, fieldPath, owner, problems);
    } else if (!Array.isArray(field) || field.some((item) => item !== null && !isObject(item))) {
      mismatch(`[]v1.${spec.goName}`);
    } else {
      field.forEach((item, i) => isObject(item) && shapeProblems(item, spec.list, `${fieldPath}[${i}]`, owner, problems));
    }
  }
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Record<string, unknown> => (isObject(v) ? v : {});
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.map(obj) : []);

function decodeJWT(raw: Record<string, unknown>): JWTAuthenticator {
  const issuer = obj(raw.issuer);
  const mappings = obj(raw.claimMappings);
  const prefixed = (v: unknown) => {
    const m = obj(v);
    return { claim: text(m.claim), expression: text(m.expression), ...(typeof m.prefix === 'string' ? { prefix: m.prefix } : {}) };
  };
  const uid = obj(mappings.uid);
  return {
    issuer: {
      url: text(issuer.url),
      discoveryURL: text(issuer.discoveryURL),
      certificateAuthority: text(issuer.certificateAuthority),
      audiences: Array.isArray(issuer.audiences) ? issuer.audiences.map(text) : [],
      audienceMatchPolicy: text(issuer.audienceMatchPolicy),
    },
    claimValidationRules: list(raw.claimValidationRules).map(
      (r): ClaimValidationRule => ({ claim: text(r.claim), requiredValue: text(r.requiredValue), expression: text(r.expression), message: text(r.message) }),
    ),
    claimMappings: {
      username: prefixed(mappings.username),
      groups: prefixed(mappings.groups),
      uid: { claim: text(uid.claim), expression: text(uid.expression) },
      extra: list(mappings.extra).map((e) => ({ key: text(e.key), valueExpression: text(e.valueExpression) })),
    },
    userValidationRules: list(raw.userValidationRules).map((r) => ({ expression: text(r.expression), message: text(r.message) })),
  };
}

/**
 * Decodes a YAML or JSON AuthenticationConfiguration strictly, as kube's loader does: group,
 * version and kind checked, unknown fields and wrong types rejected.
 */
export function decodeAuthenticationConfiguration(data: string): AuthenticationConfiguration {
  if (data.trim() === '') throw new AuthenticationConfigDecodeError('empty config data');
  const doc = decodeConfigDocument(
    data,
    { group: AUTHENTICATION_CONFIG_GROUP, versions: AUTHENTICATION_CONFIG_VERSIONS, kind: AUTHENTICATION_CONFIG_KIND },
    (message) => new AuthenticationConfigDecodeError(message),
  );
  const problems: string[] = [];
  shapeProblems(doc, SHAPE, '', 'AuthenticationConfiguration', problems);
  if (problems.length) throw new AuthenticationConfigDecodeError(`strict decoding error: ${problems.join(', ')}`);
  const anonymous = isObject(doc.anonymous)
    ? { enabled: doc.anonymous.enabled === true, conditions: list(doc.anonymous.conditions).map((c) => ({ path: text(c.path) })) }
    : undefined;
  return { jwt: list(doc.jwt).map(decodeJWT), ...(anonymous ? { anonymous } : {}) };
}
