import { anyText, bool, commaList, duration, flag, FlagProblem, flagsOf, FlagUse, OptionsOf, path, problem, ReplacingFile, replacingFileProblems, SECTION, setting, strings, subsystem, text } from './flag';
import { completeServiceAccounts, serviceAccountFlags, validateServiceAccounts } from './service-accounts';

/** The asymmetric algorithms an ID token may be signed with (kube's allow-list); HMAC and `none` never. */
export const SUPPORTED_SIGNING_ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

/** --oidc-required-claim: pflag's mapStringString, `key=value` pairs separated by commas. */
function requiredClaims(value: string): Array<[string, string]> {
  return commaList(value).map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) throw new Error(`${pair} must be formatted as key=value`);
    return [pair.slice(0, eq), pair.slice(eq + 1)];
  });
}

/** --oidc-signing-algs: asymmetric JOSE algorithms only (HMAC and `none` are never accepted). */
function signingAlgs(value: string): string[] {
  const algs = commaList(value);
  for (const alg of algs) if (!SUPPORTED_SIGNING_ALGS.includes(alg)) throw new Error(`oidc: unsupported signing alg: ${alg}`);
  return algs;
}

/** kube's check of the header-name lists: no empty entry. */
function headerNames(value: string, use: FlagUse<string[]>): string[] {
  const names = value.split(',').map((s) => s.trim());
  if (names.some((name) => name === '')) throw new Error(`empty value in ${JSON.stringify(use.name)}`);
  return names;
}

function tokenWebhookVersion(value: string): 'v1' | 'v1beta1' {
  if (value !== 'v1' && value !== 'v1beta1') throw new Error(`unsupported authentication webhook version "${value}", supported versions are "v1", "v1beta1"`);
  return value;
}

/** The `--authentication-token-webhook-*` flags. */
const tokenWebhookFlags = {
  cacheTtlMs: flag({ name: 'authentication-token-webhook-cache-ttl', ...duration, default: 2 * 60_000, usage: 'The duration to cache responses from the webhook token authenticator.' }),
  configFile: flag({
    name: 'authentication-token-webhook-config-file',
    ...path,
    usage: 'File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.',
  }),
  version: flag({
    name: 'authentication-token-webhook-version',
    ...text(tokenWebhookVersion),
    default: 'v1',
    usage: 'The API version of the authentication.platform.io TokenReview to send to and expect from the webhook.',
  }),
};

/** The `--requestheader-*` flags: an authenticating proxy (header defaults as kubeadm sets them). */
const requestHeaderFlags = {
  allowedNames: flag({
    name: 'requestheader-allowed-names',
    ...strings(headerNames),
    default: [],
    usage:
      'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.',
  }),
  clientCaFile: flag({
    name: 'requestheader-client-ca-file',
    ...path,
    usage:
      'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.',
  }),
  extraHeaderPrefixes: flag({
    name: 'requestheader-extra-headers-prefix',
    ...strings(headerNames),
    default: ['X-Remote-Extra-'],
    usage: 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.',
  }),
  groupHeaders: flag({ name: 'requestheader-group-headers', ...strings(headerNames), default: ['X-Remote-Group'], usage: 'List of request headers to inspect for groups. X-Remote-Group is suggested.' }),
  uidHeaders: flag({ name: 'requestheader-uid-headers', ...strings(headerNames), default: [], usage: 'List of request headers to inspect for UIDs. X-Remote-Uid is suggested.' }),
  usernameHeaders: flag({ name: 'requestheader-username-headers', ...strings(headerNames), default: ['X-Remote-User'], usage: 'List of request headers to inspect for usernames. X-Remote-User is common.' }),
};

/** The `--oidc-*` flags: one JWT authenticator (kube's defaults: username claim `sub`, algorithm RS256). */
const oidcFlags = {
  issuerUrl: flag({
    name: 'oidc-issuer-url',
    ...anyText,
    usage: 'The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).',
  }),
  clientId: flag({ name: 'oidc-client-id', ...anyText, usage: 'The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.' }),
  usernameClaim: flag({
    name: 'oidc-username-claim',
    ...anyText,
    default: 'sub',
    usage: "The OpenID claim to use as the user name. Claims other than the default ('sub') are not guaranteed to be unique and immutable.",
  }),
  /** `-` disables; unset, `<issuer>#` unless the claim is `email`. */
  usernamePrefix: flag({
    name: 'oidc-username-prefix',
    ...anyText,
    usage:
      "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.",
  }),
  groupsClaim: flag({
    name: 'oidc-groups-claim',
    ...anyText,
    usage: 'If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings.',
  }),
  groupsPrefix: flag({
    name: 'oidc-groups-prefix',
    ...anyText,
    usage: 'If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.',
  }),
  /** In the order given. */
  requiredClaims: flag({
    name: 'oidc-required-claim',
    type: 'mapStringString',
    parse: requiredClaims,
    repeatable: true,
    default: [],
    usage:
      'A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.',
  }),
  /** Unset, the system roots. */
  caFile: flag({
    name: 'oidc-ca-file',
    ...path,
    usage: "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used.",
  }),
  signingAlgs: flag({
    name: 'oidc-signing-algs',
    ...strings(signingAlgs),
    default: ['RS256'],
    usage: `Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a supported 'alg' header values are: ${SUPPORTED_SIGNING_ALGS.join(', ')}.`,
  }),
};

/** --authentication-config, which stands for the --oidc-* flags. */
const CONFIG_FILE: ReplacingFile = {
  flag: 'authentication-config',
  gate: 'StructuredAuthenticationConfiguration',
  gateOff: 'set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file',
  replaces: flagsOf(oidcFlags).map((f) => f.name),
  together: 'authentication-config file and oidc-* flags are mutually exclusive',
};

/** kube's BuiltInAuthenticationOptions: every way a caller authenticates. */
export const authentication = subsystem({
  section: SECTION.authentication,
  flags: {
    /** Unset: on, except when --authorization-mode includes AlwaysAllow (settled when the configuration is loaded). */
    anonymousAuth: flag({
      name: 'anonymous-auth',
      ...bool,
      shown: 'true',
      usage:
        'Enables anonymous requests (user system:anonymous, group system:unauthenticated) to the secure port; requests not rejected by another authentication method are anonymous. Unset, it is on unless --authorization-mode includes AlwaysAllow (then only an explicit true turns it on).',
    }),
    /** Extra authorities for client certificates (the data dir CA is always trusted). */
    clientCaFile: flag({
      name: 'client-ca-file',
      ...path,
      usage:
        'File of certificate authorities (PEM) whose client certificates authenticate callers: common name as user name, organizations as groups. The --data-dir CA is always trusted.',
    }),
    tokenAuthFile: flag({ name: 'token-auth-file', ...path, usage: 'File of static bearer tokens, CSV: token,user,uid,"group1,group2".' }),
    /** Bearer tokens `<id>.<secret>` backed by Secrets in kube-system. */
    enableBootstrapTokenAuth: flag({
      name: 'enable-bootstrap-token-auth',
      ...bool,
      default: false,
      usage: "Enable to allow secrets of type 'bootstrap.platform.io/token' in the 'kube-system' namespace to be used for TLS bootstrapping authentication.",
    }),
    serviceAccounts: serviceAccountFlags,
    authenticationTokenWebhook: tokenWebhookFlags,
    requestHeader: requestHeaderFlags,
    /** An AuthenticationConfiguration file (JWT authenticators, anonymous), instead of the --oidc-* flags. */
    authenticationConfigFile: flag({
      name: 'authentication-config',
      ...path,
      usage:
        'File with an AuthenticationConfiguration (YAML or JSON): JWT authenticators and anonymous access, reloaded on change. Needs feature gate StructuredAuthenticationConfiguration; not with --oidc-*.',
    }),
    oidc: oidcFlags,
    /** How often that file is re-read even without a change event (tests shorten it). */
    authenticationConfigReloadIntervalMs: setting(60_000),
    /** How long a successful bearer-token authentication is reused while the store is unchanged (kube: 10 s; 0: never). */
    tokenCacheTtlMs: setting(10_000),
  },
  validate(o, context) {
    const problems: FlagProblem[] = [];
    // kube's BuiltInAuthenticationOptions.Validate: the configuration file excludes the OIDC flags
    // (whose own combination is then not looked at).
    if (o.authenticationConfigFile) problems.push(...replacingFileProblems(CONFIG_FILE, context));
    else if (!!o.oidc.issuerUrl !== !!o.oidc.clientId) {
      problems.push(problem('oidc-issuer-url and oidc-client-id must be specified together', 'oidc-issuer-url', 'oidc-client-id'));
    }
    problems.push(...validateServiceAccounts(o.serviceAccounts));
    return problems;
  },
  complete: (o) => ({ ...o, serviceAccounts: completeServiceAccounts(o.serviceAccounts) }),
});

type AuthenticationOptions = OptionsOf<typeof authentication.flags>;
export type OidcOptions = AuthenticationOptions['oidc'];
export type RequestHeaderOptions = AuthenticationOptions['requestHeader'];
