import { atomicList, boolean, named, string, struct } from '../../runtime/schema/schema';
import { strictDecodingError } from '../../runtime/schema/schema-decoder';
import { decodeConfigDocument, isObject } from '../../config/config-document';
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

/** The file's shape: each struct with the Go type kube decodes it into, for the schema decoder every kind goes through. */
const prefixedClaimOrExpression = () => struct({ claim: string(), prefix: string(), expression: string() }, { typeName: 'v1.PrefixedClaimOrExpression' });
const AUTHENTICATION_CONFIGURATION_SCHEMA = struct(
  {
    apiVersion: string(),
    kind: string(),
    jwt: atomicList(
      struct(
        {
          issuer: struct(
            {
              url: string(),
              discoveryURL: string(),
              certificateAuthority: string(),
              audiences: atomicList(string()),
              audienceMatchPolicy: named(string(), 'v1.AudienceMatchPolicyType'),
            },
            { typeName: 'v1.Issuer' },
          ),
          claimValidationRules: atomicList(
            struct({ claim: string(), requiredValue: string(), expression: string(), message: string() }, { typeName: 'v1.ClaimValidationRule' }),
          ),
          claimMappings: struct(
            {
              username: prefixedClaimOrExpression(),
              groups: prefixedClaimOrExpression(),
              uid: struct({ claim: string(), expression: string() }, { typeName: 'v1.ClaimOrExpression' }),
              extra: atomicList(struct({ key: string(), valueExpression: string() }, { typeName: 'v1.ExtraMapping' })),
            },
            { typeName: 'v1.ClaimMappings' },
          ),
          userValidationRules: atomicList(struct({ expression: string(), message: string() }, { typeName: 'v1.UserValidationRule' })),
        },
        { typeName: 'v1.JWTAuthenticator' },
      ),
    ),
    anonymous: struct(
      { enabled: boolean(), conditions: atomicList(struct({ path: string() }, { typeName: 'v1.AnonymousAuthCondition' })) },
      { typeName: 'v1.AnonymousAuthConfig' },
    ),
  },
  { typeName: 'v1.AuthenticationConfiguration' },
);

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
 * version and kind checked, then the first value of the wrong type, or else every unknown
 * field, rejects the file.
 */
export function decodeAuthenticationConfiguration(data: string): AuthenticationConfiguration {
  if (data.trim() === '') throw new AuthenticationConfigDecodeError('empty config data');
  const doc = decodeConfigDocument(
    data,
    { group: AUTHENTICATION_CONFIG_GROUP, versions: AUTHENTICATION_CONFIG_VERSIONS, kind: AUTHENTICATION_CONFIG_KIND },
    (message) => new AuthenticationConfigDecodeError(message),
  );
  const problem = strictDecodingError(doc, AUTHENTICATION_CONFIGURATION_SCHEMA, 'v1.AuthenticationConfiguration');
  if (problem) throw new AuthenticationConfigDecodeError(problem);
  const anonymous = isObject(doc.anonymous)
    ? { enabled: doc.anonymous.enabled === true, conditions: list(doc.anonymous.conditions).map((c) => ({ path: text(c.path) })) }
    : undefined;
  return { jwt: list(doc.jwt).map(decodeJWT), ...(anonymous ? { anonymous } : {}) };
}
