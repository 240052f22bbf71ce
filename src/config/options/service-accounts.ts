import { bool, durationSeconds, flag, FlagProblem, nonEmpty, OptionsOf, path, problem, strings, stringArray, text } from './flag';

/** kube's ServiceAccountAuthenticationOptions: an issuer with a ':' must be a URL. */
function issuer(value: string): string {
  nonEmpty(value);
  if (value.includes(':') && !URL.canParse(value)) throw new Error(`service-account-issuer ${JSON.stringify(value)} contained a ':' but was not a valid URL`);
  return value;
}

function https(value: string): string {
  if (!URL.canParse(value) || new URL(value).protocol !== 'https:') throw new Error(`service-account-jwks-uri requires https scheme, parsed as: ${value}`);
  return value;
}

/** kube's ServiceAccountAuthenticationOptions (and --api-audiences): the tokens this server issues and accepts. */
export const serviceAccountFlags = {
  /** Unset: the issuers. */
  apiAudiences: flag({
    name: 'api-audiences',
    ...strings(),
    default: [],
    usage:
      'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If unset, the first --service-account-issuer is used.',
  }),
  /** The first issues, every one is accepted. Unset: `https://<bind address>:<port>`. */
  issuers: flag({
    name: 'service-account-issuer',
    ...stringArray(issuer),
    default: [],
    usage: 'Identifier of the service account token issuer (the iss claim). Repeatable: the first issues tokens, every one is accepted. Unset: https://<bind address>:<port>.',
  }),
  jwksUri: flag({
    name: 'service-account-jwks-uri',
    ...text(https),
    usage: 'Overrides the URI for the JSON Web Key Set in the discovery doc served at /.well-known/openid-configuration (https only).',
  }),
  /** Default: the signing key. */
  keyFiles: flag({
    name: 'service-account-key-file',
    ...stringArray(nonEmpty),
    default: [],
    usage: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. Repeatable. Default: the key of --service-account-signing-key-file.',
  }),
  lookup: flag({ name: 'service-account-lookup', ...bool, default: true, usage: 'If true, validate ServiceAccount tokens exist in etcd as part of authentication.' }),
  /** In whole seconds once complete; 0: no cap. */
  maxTokenExpirationSeconds: flag({
    name: 'service-account-max-token-expiration',
    ...durationSeconds,
    default: 0,
    shown: null,
    usage: 'The maximum validity duration of a token created by the service account token issuer. A TokenRequest asking for longer gets this instead.',
  }),
  /** Unset: generated into the data dir. */
  signingKeyFile: flag({
    name: 'service-account-signing-key-file',
    ...path,
    usage: 'Path to the file that contains the current private key of the service account token issuer (PEM, RSA or ECDSA). Unset: a key generated once into --data-dir.',
  }),
};

export type ServiceAccountTokenOptions = OptionsOf<typeof serviceAccountFlags>;

/** kube's ServiceAccountAuthenticationOptions.Validate. */
export function validateServiceAccounts(o: ServiceAccountTokenOptions): FlagProblem[] {
  const problems: FlagProblem[] = [];
  const max = o.maxTokenExpirationSeconds;
  if (max !== 0 && (max < 3600 || max > 2 ** 32)) {
    problems.push(problem('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds', 'service-account-max-token-expiration'));
  }
  if (o.jwksUri && !o.issuers.length) problems.push(problem('service-account-jwks-uri requires service-account-issuer', 'service-account-jwks-uri', 'service-account-issuer'));
  return problems;
}

/** Token expirations are whole seconds. */
export function completeServiceAccounts(o: ServiceAccountTokenOptions): ServiceAccountTokenOptions {
  return { ...o, maxTokenExpirationSeconds: Math.floor(o.maxTokenExpirationSeconds) };
}
