import { Command, CommanderError, Option } from 'commander';
import { isIP } from 'node:net';
import { DurationSyntaxError, parseGoDuration } from './go-duration';
import { FeatureGates, featureGateHelpLines } from './feature-gates';
import { parseRuntimeConfig, RuntimeConfig } from './runtime-config';
import { CURRENT_RELEASE, releaseText } from '../apimachinery/release';
import { AUDIT_GROUP_VERSIONS, AUDIT_MODES, AuditBatchOptions, AuditMode, AuditOptions, AuditTruncateOptions, DEFAULT_MAX_REQUEST_BYTES, defaultOptions, LoggingFormat, ServerOptions, SUPPORTED_SIGNING_ALGS } from './options';
import { BINDING_EXPIRY_CONTROLLER, DISABLED_BY_DEFAULT_CONTROLLERS, KNOWN_CONTROLLERS } from './controllers';
import { DEFAULT_TLS_MIN_VERSION, INSECURE_CIPHER_SUITES, parseCipherSuites, parseTlsVersion, PREFERRED_CIPHER_SUITES, TLS_VERSION_NAMES, TlsVersionName } from './tls';

/**
 * A bad command line or configuration: main prints the message on one line and exits 1.
 * The message names the flag, in kube's wording where kube has one.
 */
export class FlagError extends Error {
  /** A problem with what a flag names (a file's content, an address): `--flag: problem`. */
  static about(flag: string, problem: string): FlagError {
    return new FlagError(`${flag}: ${problem}`);
  }
}

/** `--help`: main prints the text and exits 0. */
export class HelpRequested extends Error {
  constructor(readonly helpText: string) {
    super('help requested');
  }
}

/** The names `--authorization-mode` accepts; each needs its module's authorizer factory at start. */
export const SUPPORTED_AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'RBAC', 'Node', 'Webhook'];

/**
 * Admission plugins this server has, in the order the admission chain runs them (kube's
 * order); NamespaceLifecycle is on by default, as in kube. The chain holds cross-cutting
 * plugins only: RBAC's escalation check wraps the RBAC kinds' storages instead.
 */
export const ADMISSION_PLUGINS = ['NamespaceLifecycle', 'NodeRestriction'];

const COMMAND = 'platform-authz-apiserver';

// Value parsers: each throws an Error whose message says what is wrong with the value; the
// flag's name is added where every parser is wrapped (see `program`).

function commaList(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

function admissionPlugins(value: string): string[] {
  const list = commaList(value);
  const unknown = list.filter((name) => !ADMISSION_PLUGINS.includes(name));
  if (unknown.length) throw new Error(unknown.map((name) => `enable-admission-plugins plugin "${name}" is unknown`).join(', '));
  return [...new Set(list)];
}

/** pflag's IntVar (strconv.ParseInt), within bounds. */
function integer(min: number, max: number) {
  return (value: string): number => {
    if (!/^[-+]?\d+$/.test(value)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
    const n = Number(value);
    if (n < min || n > max) throw new Error(`must be between ${min} and ${max}, inclusive`);
    return n;
  };
}

/** pflag's BoolVar: `--flag` alone is true; values as Go's strconv.ParseBool reads them. */
function bool(value: string | undefined): boolean {
  if (value === undefined || ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

/** pflag's DurationVar: Go duration text (`5m`, `30s`, `0`), here in milliseconds; not negative. */
function goDuration(value: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(value);
  } catch (err) {
    if (err instanceof DurationSyntaxError) throw new Error(err.message);
    throw err;
  }
  if (ms < 0) throw new Error(`${JSON.stringify(value)} must not be negative`);
  return ms;
}

/** An IP address, or a host name resolved when the configuration is loaded. */
function bindAddress(value: string): string {
  if (value !== '' && (isIP(value) || /^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/.test(value))) return value;
  throw new Error(`failed to parse IP: ${JSON.stringify(value)}`);
}

function modes(value: string): string[] {
  const list = commaList(value);
  if (list.length === 0) throw new Error('at least one mode is required');
  for (const mode of list) {
    if (!SUPPORTED_AUTHORIZATION_MODES.includes(mode)) {
      throw new Error(`unknown authorization mode "${mode}"; supported modes: ${SUPPORTED_AUTHORIZATION_MODES.join(', ')}`);
    }
  }
  if (new Set(list).size !== list.length) throw new Error('an authorization mode may be listed only once');
  return list;
}

function webhookVersion(value: string): 'v1' | 'v1beta1' {
  if (value !== 'v1' && value !== 'v1beta1') {
    throw new Error(`unsupported webhook authorizer version "${value}", supported versions are "v1", "v1beta1"`);
  }
  return value;
}

/** kube's check: only the previous minor release may be named. */
function showHiddenMetricsVersion(value: string): string {
  const previous = releaseText({ major: CURRENT_RELEASE.major, minor: CURRENT_RELEASE.minor - 1 });
  if (value !== previous) throw new Error(`--show-hidden-metrics-for-version must be omitted or have the value '${previous}'. Only the previous minor version is allowed`);
  return value;
}

/**
 * A PostgreSQL memory setting in its own units (`16MB`, `512kB`, `1GB`), here in bytes; at least
 * PostgreSQL's minimum shared_buffers (128kB) and at most 1GB (the embedded engine's memory is 2GB).
 */
function postgresMemory(value: string): number {
  const m = /^(\d+)(kB|MB|GB)$/.exec(value);
  if (!m) throw new Error(`${JSON.stringify(value)} is not a size in kB, MB or GB (e.g. 16MB)`);
  const bytes = Number(m[1]) * { kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[m[2] as 'kB' | 'MB' | 'GB'];
  if (bytes < 128 * 1024 || bytes > 1024 ** 3) throw new Error('must be between 128kB and 1GB, inclusive');
  return bytes;
}

/** A file path flag: an empty value is a mistake, not "unset". */
function path(value: string): string {
  if (value === '') throw new Error('must not be empty');
  return value;
}

/** `--audit-{log,webhook}-mode`, in kube's words. */
function auditMode(plugin: string) {
  return (value: string): AuditMode => {
    if (!(AUDIT_MODES as string[]).includes(value)) throw new Error(`invalid audit ${plugin} mode ${value}, allowed modes are ${JSON.stringify(AUDIT_MODES.join(','))}`);
    return value as AuditMode;
  };
}

function auditLogFormat(value: string): 'json' | 'legacy' {
  if (value !== 'json' && value !== 'legacy') throw new Error(`invalid audit log format ${value}, allowed formats are "legacy,json"`);
  return value;
}

/** `--audit-{log,webhook}-version`: kube's validateGroupVersionString, which knows one version now. */
function auditGroupVersion(value: string): string {
  if (!AUDIT_GROUP_VERSIONS.includes(value)) throw new Error(`invalid group version, allowed versions are ${JSON.stringify(AUDIT_GROUP_VERSIONS)}`);
  return value;
}

/** An int flag kube refuses below zero (`--audit-log-maxage -1 can't be a negative number`). */
function nonNegative(flagName: string) {
  return (value: string): number => {
    const n = integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)(value);
    if (n < 0) throw new Error(`--${flagName} ${n} can't be a negative number`);
    return n;
  };
}

/** An int flag kube's ServerRunOptions.Validate refuses below zero, in its words. */
function notNegative(flagName: string) {
  return (value: string): number => {
    const n = integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)(value);
    if (n < 0) throw new Error(`--${flagName} can not be negative value`);
    return n;
  };
}

/** pflag's Float32Var (strconv.ParseFloat). */
function float(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(value)}: invalid syntax`);
  return n;
}

/** kube's ServiceAccountAuthenticationOptions: an issuer with a ':' must be a URL. */
function issuer(value: string): string[] {
  if (value === '') throw new Error('must not be empty');
  if (value.includes(':') && !URL.canParse(value)) throw new Error(`service-account-issuer ${JSON.stringify(value)} contained a ':' but was not a valid URL`);
  return [value];
}

function https(value: string): string {
  if (!URL.canParse(value) || new URL(value).protocol !== 'https:') throw new Error(`service-account-jwks-uri requires https scheme, parsed as: ${value}`);
  return value;
}

/** kube's --controllers: `*`, a name, or `-name`; unknown names are refused (kube's words). */
function controllerList(value: string): string[] {
  const list = commaList(value);
  for (const entry of list) {
    if (entry === '*') continue;
    const name = entry.replace(/^-/, '');
    if (!KNOWN_CONTROLLERS.includes(name)) throw new Error(`${JSON.stringify(name)} is not in the list of known controllers`);
  }
  return list;
}

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

/** The --oidc-* flags, which --authentication-config excludes. */
const OIDC_FLAGS = ['oidcIssuerUrl', 'oidcClientId', 'oidcUsernameClaim', 'oidcUsernamePrefix', 'oidcGroupsClaim', 'oidcGroupsPrefix', 'oidcRequiredClaim', 'oidcCaFile', 'oidcSigningAlgs'];

/** kube's mutually exclusive sets: `--authorization-config` versus the mode and webhook flags. */
const LEGACY_AUTHORIZATION_FLAGS = [
  'authorizationMode',
  'authorizationWebhookConfigFile',
  'authorizationWebhookVersion',
  'authorizationWebhookCacheAuthorizedTtl',
  'authorizationWebhookCacheUnauthorizedTtl',
];

// Help sections, as kube-apiserver groups its flags.
const SERVING = 'Secure serving flags:';
const STORAGE = 'Storage flags:';
const AUTHENTICATION = 'Authentication flags:';
const AUTHORIZATION = 'Authorization flags:';
const ADMISSION = 'Admission flags:';
const GENERIC = 'Generic flags:';
const FEATURE_GATE = 'Feature gate flags:';
const API_ENABLEMENT = 'API enablement flags:';
const METRICS = 'Metrics flags:';
const LOGGING = 'Logs flags:';
const AUDITING = 'Auditing flags:';

/** A flag as kube-apiserver defines one. */
interface FlagSpec {
  name: string;
  /** pflag's name for the value in the help: `int`, `string`, `duration`, ...; `bool` shows none. */
  type: string;
  /** The help section. */
  group: string;
  usage: string;
  /** Reads the value (and the flag's earlier value, for flags that add up); throws an Error saying what is wrong with it. */
  parse(value: string, previous?: unknown): unknown;
  default?: unknown;
  /** The default as kube prints it; none for a zero value. */
  shown?: string;
  /**
   * pflag's StringArray/StringSlice: each use adds the parsed values (an array); the first
   * use replaces the default.
   */
  repeatable?: boolean;
}

/** A commander option for a flag; a bad value is a FlagError in pflag's words, naming the flag. */
function flag(spec: FlagSpec): Option {
  let given = false;
  const option = new Option(spec.type === 'bool' ? `--${spec.name} [bool]` : `--${spec.name} <${spec.type}>`, spec.usage)
    .helpGroup(spec.group)
    .argParser((value: string, previous: unknown) => {
      try {
        if (!spec.repeatable) return spec.parse(value, previous === spec.default ? undefined : previous);
        const parsed = spec.parse(value);
        const base = given ? (previous as unknown[]) : [];
        given = true;
        return [...base, ...(parsed as unknown[])];
      } catch (err) {
        throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--${spec.name}" flag: ${(err as Error).message}`);
      }
    });
  return 'default' in spec ? option.default(spec.default, spec.shown) : option;
}

/** kube-apiserver's flags that this server has (defaults from `d`), in help order within each section. */
function flagSpecs(d: ServerOptions): FlagSpec[] {
  return [
    {
      name: 'bind-address',
      type: 'ip',
      group: SERVING,
      usage: 'The IP address (or host name) on which to listen for the --secure-port port.',
      parse: bindAddress,
      default: d.bindAddress,
      shown: d.bindAddress,
    },
    {
      name: 'secure-port',
      type: 'int',
      group: SERVING,
      usage: 'The port on which to serve HTTPS with authentication and authorization; 0 picks a free port.',
      parse: integer(0, 65535),
      default: d.securePort,
      shown: String(d.securePort),
    },
    {
      name: 'tls-cert-file',
      type: 'string',
      group: SERVING,
      usage: 'File containing the x509 serving certificate (PEM), followed by any intermediate certificates. Without it a certificate is generated into --data-dir.',
      parse: path,
    },
    {
      name: 'tls-private-key-file',
      type: 'string',
      group: SERVING,
      usage: 'File containing the x509 private key matching --tls-cert-file.',
      parse: path,
    },
    {
      name: 'tls-cipher-suites',
      type: 'strings',
      group: SERVING,
      usage: [
        "Comma-separated list of cipher suites for the server. If omitted, the TLS library's default cipher suites will be used. TLS 1.3 suites cannot be configured: TLS 1.3 handshakes may use any of them.",
        `Preferred values: ${PREFERRED_CIPHER_SUITES.join(', ')}.`,
        `Insecure values: ${INSECURE_CIPHER_SUITES.join(', ')}.`,
      ].join('\n'),
      parse: (value) => parseCipherSuites(commaList(value)),
      repeatable: true,
      default: d.tlsCipherSuites,
    },
    {
      name: 'tls-min-version',
      type: 'string',
      group: SERVING,
      usage: `Minimum TLS version supported. Possible values: ${TLS_VERSION_NAMES.join(', ')}`,
      parse: parseTlsVersion,
    },
    {
      name: 'max-request-bytes',
      type: 'int',
      group: SERVING,
      usage: 'The largest request body accepted (413 beyond).',
      parse: integer(1024, 1024 * 1024 * 1024),
      default: DEFAULT_MAX_REQUEST_BYTES,
      shown: String(DEFAULT_MAX_REQUEST_BYTES),
    },
    {
      name: 'data-dir',
      type: 'string',
      group: STORAGE,
      usage: 'Directory of the generated certificates, the admin kubeconfig and the embedded database.',
      parse: path,
      default: d.dataDir,
      shown: JSON.stringify(d.dataDir),
    },
    {
      name: 'database-url',
      type: 'string',
      group: STORAGE,
      usage: 'PostgreSQL URL (postgres://user:password@host:port/database). Defaults to $DATABASE_URL; unset, the embedded store in --data-dir is used.',
      parse: path,
    },
    {
      name: 'embedded-fsync',
      type: 'bool',
      group: STORAGE,
      usage: 'Whether the embedded store syncs each commit to disk, so that an acknowledged write survives a power loss. false is faster and survives only a crash of the server process.',
      parse: bool,
      default: d.embeddedFsync,
      shown: 'true',
    },
    {
      name: 'embedded-shared-buffers',
      type: 'string',
      group: STORAGE,
      usage: "The embedded store's page cache (PostgreSQL's shared_buffers, e.g. 16MB). All of it is resident from the start; the data directory is read through the host's file cache too.",
      parse: postgresMemory,
      default: d.embeddedSharedBuffersBytes,
      shown: '"16MB"',
    },
    {
      name: 'history-window',
      type: 'duration',
      group: STORAGE,
      usage: 'How long superseded object versions are kept for watch and consistent paging.',
      parse: goDuration,
      default: d.historyWindowSeconds * 1000,
      shown: '5m0s',
    },
    {
      name: 'watch-cache-size-bytes',
      type: 'int',
      group: STORAGE,
      usage: 'Memory for the recent changes watches replay from (their JSON size); older revisions are read from the store.',
      parse: integer(0, Number.MAX_SAFE_INTEGER),
      default: d.watchCacheSizeBytes,
      shown: String(d.watchCacheSizeBytes),
    },
    {
      name: 'anonymous-auth',
      type: 'bool',
      group: AUTHENTICATION,
      usage: 'Enables anonymous requests (user system:anonymous, group system:unauthenticated) to the secure port; requests not rejected by another authentication method are anonymous. Unset, it is on unless --authorization-mode includes AlwaysAllow (then only an explicit true turns it on).',
      parse: bool,
      default: true,
      shown: 'true',
    },
    {
      name: 'client-ca-file',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'File of certificate authorities (PEM) whose client certificates authenticate callers: common name as user name, organizations as groups. The --data-dir CA is always trusted.',
      parse: path,
    },
    {
      name: 'token-auth-file',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'File of static bearer tokens, CSV: token,user,uid,"group1,group2".',
      parse: path,
    },
    {
      name: 'enable-bootstrap-token-auth',
      type: 'bool',
      group: AUTHENTICATION,
      usage: "Enable to allow secrets of type 'bootstrap.platform.io/token' in the 'kube-system' namespace to be used for TLS bootstrapping authentication.",
      parse: bool,
      default: false,
    },
    {
      name: 'api-audiences',
      type: 'strings',
      group: AUTHENTICATION,
      usage:
        'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If unset, the first --service-account-issuer is used.',
      parse: commaList,
      repeatable: true,
      default: [],
    },
    {
      name: 'service-account-issuer',
      type: 'stringArray',
      group: AUTHENTICATION,
      usage:
        'Identifier of the service account token issuer (the iss claim). Repeatable: the first issues tokens, every one is accepted. Unset: https://<bind address>:<port>.',
      parse: issuer,
      repeatable: true,
      default: [],
    },
    {
      name: 'service-account-jwks-uri',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'Overrides the URI for the JSON Web Key Set in the discovery doc served at /.well-known/openid-configuration (https only).',
      parse: https,
    },
    {
      name: 'service-account-key-file',
      type: 'stringArray',
      group: AUTHENTICATION,
      usage: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. Repeatable. Default: the key of --service-account-signing-key-file.',
      parse: (value) => [path(value)],
      repeatable: true,
      default: [],
    },
    {
      name: 'service-account-lookup',
      type: 'bool',
      group: AUTHENTICATION,
      usage: 'If true, validate ServiceAccount tokens exist in etcd as part of authentication.',
      parse: bool,
      default: d.serviceAccounts.lookup,
      shown: 'true',
    },
    {
      name: 'service-account-max-token-expiration',
      type: 'duration',
      group: AUTHENTICATION,
      usage: 'The maximum validity duration of a token created by the service account token issuer. A TokenRequest asking for longer gets this instead.',
      parse: goDuration,
    },
    {
      name: 'service-account-signing-key-file',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'Path to the file that contains the current private key of the service account token issuer (PEM, RSA or ECDSA). Unset: a key generated once into --data-dir.',
      parse: path,
    },
    ...proxyAndTokenWebhookFlagSpecs(d),
    {
      name: 'authentication-config',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'File with an AuthenticationConfiguration (YAML or JSON): JWT authenticators and anonymous access, reloaded on change. Needs feature gate StructuredAuthenticationConfiguration; not with --oidc-*.',
      parse: path,
    },
    {
      name: 'oidc-issuer-url',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).',
      parse: (value) => value,
    },
    {
      name: 'oidc-client-id',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.',
      parse: (value) => value,
    },
    {
      name: 'oidc-username-claim',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'The OpenID claim to use as the user name. Claims other than the default (\'sub\') are not guaranteed to be unique and immutable.',
      parse: (value) => value,
      default: 'sub',
      shown: '"sub"',
    },
    {
      name: 'oidc-username-prefix',
      type: 'string',
      group: AUTHENTICATION,
      usage: "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.",
      parse: (value) => value,
    },
    {
      name: 'oidc-groups-claim',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings.',
      parse: (value) => value,
    },
    {
      name: 'oidc-groups-prefix',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.',
      parse: (value) => value,
    },
    {
      name: 'oidc-required-claim',
      type: 'mapStringString',
      group: AUTHENTICATION,
      usage: 'A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.',
      parse: requiredClaims,
      repeatable: true,
      default: [],
    },
    {
      name: 'oidc-ca-file',
      type: 'string',
      group: AUTHENTICATION,
      usage: "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used.",
      parse: path,
    },
    {
      name: 'oidc-signing-algs',
      type: 'strings',
      group: AUTHENTICATION,
      usage: `Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a supported 'alg' header values are: ${SUPPORTED_SIGNING_ALGS.join(', ')}.`,
      parse: signingAlgs,
      repeatable: true,
      default: ['RS256'],
      shown: '[RS256]',
    },
    {
      name: 'controllers',
      type: 'strings',
      group: GENERIC,
      usage: `A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'. All controllers: ${KNOWN_CONTROLLERS.join(', ')}. Disabled-by-default controllers: ${DISABLED_BY_DEFAULT_CONTROLLERS.join(', ')}.`,
      parse: controllerList,
      repeatable: true,
      default: d.controllers,
      shown: `[${d.controllers.join(',')}]`,
    },
    {
      name: 'expired-binding-retention',
      type: 'duration',
      group: GENERIC,
      usage: `How long the ${BINDING_EXPIRY_CONTROLLER} controller keeps a RoleBinding or ClusterRoleBinding after its valid-until annotation has passed, before deleting it. 0 keeps expired bindings forever.`,
      parse: goDuration,
      default: d.expiredBindingRetentionMs,
      shown: '24h0m0s',
    },
    {
      name: 'authorization-mode',
      type: 'strings',
      group: AUTHORIZATION,
      usage: `Ordered list of authorizers: ${SUPPORTED_AUTHORIZATION_MODES.join(', ')}. Not with --authorization-config.`,
      parse: modes,
      default: d.authorizationModes,
      shown: `[${d.authorizationModes.join(',')}]`,
    },
    {
      name: 'authorization-config',
      type: 'string',
      group: AUTHORIZATION,
      usage: 'File with an AuthorizationConfiguration (YAML or JSON): the authorizer chain, reloaded on change. Needs feature gate StructuredAuthorizationConfiguration; not with --authorization-mode or --authorization-webhook-*.',
      parse: path,
    },
    {
      name: 'authorization-policy-file',
      type: 'string',
      group: AUTHORIZATION,
      usage: 'File with the ABAC policy, one JSON Policy per line; with --authorization-mode=ABAC.',
      parse: path,
    },
    {
      name: 'authorization-webhook-config-file',
      type: 'string',
      group: AUTHORIZATION,
      usage: 'File in kubeconfig format with the webhook of --authorization-mode=Webhook.',
      parse: path,
    },
    {
      name: 'authorization-webhook-version',
      type: 'string',
      group: AUTHORIZATION,
      usage: 'The SubjectAccessReview version sent to the webhook: v1beta1 or v1.',
      parse: webhookVersion,
      default: d.authorizationWebhook.version,
      shown: JSON.stringify(d.authorizationWebhook.version),
    },
    {
      name: 'authorization-webhook-cache-authorized-ttl',
      type: 'duration',
      group: AUTHORIZATION,
      usage: "How long the webhook's allow answers are cached.",
      parse: goDuration,
      default: d.authorizationWebhook.cacheAuthorizedTTLMs,
      shown: '5m0s',
    },
    {
      name: 'authorization-webhook-cache-unauthorized-ttl',
      type: 'duration',
      group: AUTHORIZATION,
      usage: "How long the webhook's other answers are cached.",
      parse: goDuration,
      default: d.authorizationWebhook.cacheUnauthorizedTTLMs,
      shown: '30s',
    },
    {
      name: 'consistent-authorization',
      type: 'bool',
      group: AUTHORIZATION,
      usage:
        "Decide only once the RBAC index and the Node graph have applied every change the store committed before the request arrived, on every replica (one read of the store's revision per batch of requests on PostgreSQL, none on the embedded store; 503 with Retry-After if they do not catch up within 3s). false decides from them as they are, which may lag another replica's writes by the change feed's delay.",
      parse: bool,
      default: d.consistentAuthorization,
      shown: 'true',
    },
    {
      name: 'binding-usage-recording',
      type: 'bool',
      group: AUTHORIZATION,
      usage: 'Count, per RoleBinding and ClusterRoleBinding, the requests and access reviews it allowed (served as access.platform.io/v1 bindingusages).',
      parse: bool,
      default: d.bindingUsage.recording,
      shown: 'true',
    },
    {
      name: 'binding-usage-flush-interval',
      type: 'duration',
      group: AUTHORIZATION,
      usage: 'How often the binding usage counted in memory is added to the database, in one statement. Must be positive.',
      parse: goDuration,
      default: d.bindingUsage.flushIntervalMs,
      shown: '10s',
    },
    {
      name: 'enable-admission-plugins',
      type: 'strings',
      group: ADMISSION,
      usage: `Admission plugins to enable besides the always-on NamespaceLifecycle: ${ADMISSION_PLUGINS.join(', ')}.`,
      parse: admissionPlugins,
      default: d.enableAdmissionPlugins,
    },
    ...auditFlagSpecs(d),
    {
      name: 'feature-gates',
      type: 'mapStringBool',
      group: FEATURE_GATE,
      usage: ['A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:', ...featureGateHelpLines()].join('\n'),
      parse: (value) => FeatureGates.parse(value),
      default: FeatureGates.defaults(),
    },
    {
      name: 'runtime-config',
      type: 'mapStringString',
      group: API_ENABLEMENT,
      usage: [
        'A set of key=value pairs that enable or disable built-in APIs. Supported options are:',
        'v1=true|false for the core API group',
        '<group>/<version>=true|false for a specific API group and version (e.g. rbac.authorization.platform.io/v1=true)',
        '<group>/<version>/<resource>=false for one resource of a group version',
        'api/all=true|false controls all API versions',
        'api/ga=true|false controls all API versions of the form v[0-9]+',
        'api/beta=true|false controls all API versions of the form v[0-9]+beta[0-9]+',
        'api/alpha=true|false controls all API versions of the form v[0-9]+alpha[0-9]+',
      ].join('\n'),
      // Repeated flags add up, as pflag's map flags do.
      parse: (value: string, previous?: RuntimeConfig) => parseRuntimeConfig(value, previous ? structuredClone(previous) : undefined),
      default: d.runtimeConfig,
    },
    {
      name: 'show-hidden-metrics-for-version',
      type: 'string',
      group: METRICS,
      usage:
        'The previous version for which you want to show hidden metrics. Only the previous minor version is meaningful, other values will not be allowed. The format is <major>.<minor>, e.g.: \'1.16\'. The purpose of this format is make sure you have the opportunity to notice if the next release hides additional metrics, rather than being surprised when they are permanently removed in the release after that.',
      parse: showHiddenMetricsVersion,
    },
    {
      name: 'kubectl-review-aliases',
      type: 'bool',
      group: GENERIC,
      usage: 'Also answer the access reviews and SelfSubjectReview at the authorization.k8s.io and authentication.k8s.io paths kubectl posts to (not listed in discovery).',
      parse: bool,
      default: d.kubectlReviewAliases,
      shown: 'true',
    },
    {
      name: 'livez-grace-period',
      type: 'duration',
      group: GENERIC,
      usage: 'This option represents the maximum amount of time it should take for apiserver to complete its startup sequence and become live. From apiserver\'s start time to when this amount of time has elapsed, /livez will assume that unfinished post-start hooks will complete successfully and therefore return true.',
      parse: goDuration,
      default: d.livezGracePeriodMs,
      shown: '0s',
    },
    {
      name: 'max-mutating-requests-inflight',
      type: 'int',
      group: GENERIC,
      usage: 'The maximum number of mutating requests in flight at a given time. When the server exceeds this, it rejects requests. Zero for no limit.',
      parse: notNegative('max-mutating-requests-inflight'),
      default: d.maxMutatingRequestsInFlight,
      shown: String(d.maxMutatingRequestsInFlight),
    },
    {
      name: 'max-requests-inflight',
      type: 'int',
      group: GENERIC,
      usage: 'The maximum number of non-mutating requests in flight at a given time. When the server exceeds this, it rejects requests. Zero for no limit.',
      parse: notNegative('max-requests-inflight'),
      default: d.maxRequestsInFlight,
      shown: String(d.maxRequestsInFlight),
    },
    {
      name: 'min-request-timeout',
      type: 'int',
      group: GENERIC,
      usage: 'An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load.',
      parse: notNegative('min-request-timeout'),
      default: d.minRequestTimeoutSeconds,
      shown: String(d.minRequestTimeoutSeconds),
    },
    {
      name: 'request-timeout',
      type: 'duration',
      group: GENERIC,
      usage: 'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.',
      parse: goDuration,
      default: d.requestTimeoutMs,
      shown: '1m0s',
    },
    {
      name: 'shutdown-delay-duration',
      type: 'duration',
      group: GENERIC,
      usage: 'Time to delay the termination. During that time the server keeps serving requests normally. The endpoints /healthz and /livez will return success, but /readyz immediately returns failure. Graceful termination starts after this delay has elapsed. This can be used to allow load balancer to stop sending traffic to this server.',
      parse: goDuration,
      default: d.shutdownDelayMs,
      shown: '0s',
    },
    {
      name: 'shutdown-send-retry-after',
      type: 'bool',
      group: GENERIC,
      usage: "If true the HTTP Server will continue listening until all non long running request(s) in flight have been drained, during this window all incoming requests will be rejected with a status code 429 and a 'Retry-After' response header, in addition 'Connection: close' response header is set in order to tear down the TCP connection when idle.",
      parse: bool,
      default: d.shutdownSendRetryAfter,
    },
    {
      name: 'shutdown-watch-termination-grace-period',
      type: 'duration',
      group: GENERIC,
      usage: 'This option, if set, represents the maximum amount of grace period the apiserver will wait for active watch request(s) to drain during the graceful server shutdown window.',
      parse: goDuration,
      default: d.shutdownWatchTerminationGracePeriodMs,
      shown: '0s',
    },
    {
      name: 'migrate-only',
      type: 'bool',
      group: GENERIC,
      usage: 'Apply the database migrations and exit.',
      parse: bool,
    },
    {
      name: 'logging-format',
      type: 'string',
      group: LOGGING,
      usage: 'Sets the log format. Permitted formats: "json", "text".',
      parse: loggingFormat,
      default: d.loggingFormat,
      shown: JSON.stringify(d.loggingFormat),
    },
  ];
}

/** `--logging-format`: kube's two formats. */
function loggingFormat(value: string): LoggingFormat {
  if (value !== 'text' && value !== 'json') throw new Error('Unsupported log format');
  return value;
}

/** klog's `-v`/`--v`: pflag also reads `-v=2`, where commander hands over `=2`. */
function verbosity(value: string): number {
  return integer(0, 2 ** 31 - 1)(value.replace(/^=/, ''));
}

/** The batch flags of an audit backend (`--audit-log-batch-*`, `--audit-webhook-batch-*`). */
function auditBatchFlagSpecs(plugin: 'log' | 'webhook', d: AuditBatchOptions): FlagSpec[] {
  const only = `Only used in batch mode.`;
  return [
    { name: `audit-${plugin}-batch-buffer-size`, type: 'int', group: AUDITING, usage: `The size of the buffer to store events before batching and writing. ${only}`, parse: integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER), default: d.bufferSize, shown: String(d.bufferSize) },
    { name: `audit-${plugin}-batch-max-size`, type: 'int', group: AUDITING, usage: `The maximum size of a batch. ${only}`, parse: integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER), default: d.maxSize, shown: String(d.maxSize) },
    { name: `audit-${plugin}-batch-max-wait`, type: 'duration', group: AUDITING, usage: `The amount of time to wait before force writing the batch that hadn't reached the max size. ${only}`, parse: goDuration, default: d.maxWaitMs, shown: `${d.maxWaitMs / 1000}s` },
    { name: `audit-${plugin}-batch-throttle-enable`, type: 'bool', group: AUDITING, usage: `Whether batching throttling is enabled. ${only}`, parse: bool, default: d.throttleEnable, shown: d.throttleEnable ? 'true' : undefined },
    { name: `audit-${plugin}-batch-throttle-qps`, type: 'float32', group: AUDITING, usage: `Maximum average number of batches per second. ${only}`, parse: float, default: d.throttleQps, shown: String(d.throttleQps) },
    { name: `audit-${plugin}-batch-throttle-burst`, type: 'int', group: AUDITING, usage: `Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. ${only}`, parse: integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER), default: d.throttleBurst, shown: String(d.throttleBurst) },
  ];
}

/** The truncate flags of an audit backend (`--audit-log-truncate-*`, `--audit-webhook-truncate-*`). */
function auditTruncateFlagSpecs(plugin: 'log' | 'webhook', d: AuditTruncateOptions): FlagSpec[] {
  const int64 = integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  return [
    { name: `audit-${plugin}-truncate-enabled`, type: 'bool', group: AUDITING, usage: 'Whether event and batch truncating is enabled.', parse: bool, default: d.enabled, shown: d.enabled ? 'true' : undefined },
    {
      name: `audit-${plugin}-truncate-max-batch-size`,
      type: 'int',
      group: AUDITING,
      usage: 'Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size.',
      parse: int64,
      default: d.maxBatchSize,
      shown: String(d.maxBatchSize),
    },
    {
      name: `audit-${plugin}-truncate-max-event-size`,
      type: 'int',
      group: AUDITING,
      usage: "Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn't reduce the size enough, event is discarded.",
      parse: int64,
      default: d.maxEventSize,
      shown: String(d.maxEventSize),
    },
  ];
}

/** kube-apiserver's `--audit-*` flags. */
function auditFlagSpecs(d: ServerOptions): FlagSpec[] {
  const a = d.audit;
  return [
    { name: 'audit-policy-file', type: 'string', group: AUDITING, usage: 'Path to the file that defines the audit policy configuration (audit.platform.io/v1 Policy).', parse: path },
    { name: 'audit-log-path', type: 'string', group: AUDITING, usage: "If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out.", parse: path },
    { name: 'audit-log-format', type: 'string', group: AUDITING, usage: 'Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are legacy,json.', parse: auditLogFormat, default: a.logFormat, shown: JSON.stringify(a.logFormat) },
    { name: 'audit-log-maxage', type: 'int', group: AUDITING, usage: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.', parse: nonNegative('audit-log-maxage'), default: a.logMaxAge },
    { name: 'audit-log-maxbackup', type: 'int', group: AUDITING, usage: 'The maximum number of old audit log files to retain. Setting a value of 0 will mean there\'s no restriction on the number of files.', parse: nonNegative('audit-log-maxbackup'), default: a.logMaxBackup },
    { name: 'audit-log-maxsize', type: 'int', group: AUDITING, usage: 'The maximum size in megabytes of the audit log file before it gets rotated (0: 100).', parse: nonNegative('audit-log-maxsize'), default: a.logMaxSize },
    { name: 'audit-log-compress', type: 'bool', group: AUDITING, usage: 'If set, the rotated log files will be compressed using gzip.', parse: bool, default: a.logCompress },
    { name: 'audit-log-mode', type: 'string', group: AUDITING, usage: 'Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict.', parse: auditMode('log'), default: a.logMode, shown: JSON.stringify(a.logMode) },
    ...auditBatchFlagSpecs('log', a.logBatch),
    ...auditTruncateFlagSpecs('log', a.logTruncate),
    { name: 'audit-log-version', type: 'string', group: AUDITING, usage: 'API group and version used for serializing audit events written to log.', parse: auditGroupVersion, default: a.logVersion, shown: JSON.stringify(a.logVersion) },
    { name: 'audit-webhook-config-file', type: 'string', group: AUDITING, usage: 'Path to a kubeconfig formatted file that defines the audit webhook configuration.', parse: path },
    { name: 'audit-webhook-initial-backoff', type: 'duration', group: AUDITING, usage: 'The amount of time to wait before retrying the first failed request.', parse: goDuration, default: a.webhookInitialBackoffMs, shown: `${a.webhookInitialBackoffMs / 1000}s` },
    { name: 'audit-webhook-mode', type: 'string', group: AUDITING, usage: 'Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict.', parse: auditMode('webhook'), default: a.webhookMode, shown: JSON.stringify(a.webhookMode) },
    ...auditBatchFlagSpecs('webhook', a.webhookBatch),
    ...auditTruncateFlagSpecs('webhook', a.webhookTruncate),
    { name: 'audit-webhook-version', type: 'string', group: AUDITING, usage: 'API group and version used for serializing audit events written to webhook.', parse: auditGroupVersion, default: a.webhookVersion, shown: JSON.stringify(a.webhookVersion) },
  ];
}

/** kube's check of the header-name lists: no empty entry. */
function headerNames(flagName: string) {
  return (value: string): string[] => {
    const names = value.split(',').map((s) => s.trim());
    if (names.some((name) => name === '')) throw new Error(`empty value in ${JSON.stringify(flagName)}`);
    return names;
  };
}

function tokenWebhookVersion(value: string): 'v1' | 'v1beta1' {
  if (value !== 'v1' && value !== 'v1beta1') throw new Error(`unsupported authentication webhook version "${value}", supported versions are "v1", "v1beta1"`);
  return value;
}

/** The `--requestheader-*` (authenticating proxy) and `--authentication-token-webhook-*` flags. */
function proxyAndTokenWebhookFlagSpecs(d: ServerOptions): FlagSpec[] {
  const r = d.requestHeader;
  const w = d.authenticationTokenWebhook;
  const list = (name: string, usage: string, value: string[]): FlagSpec => ({
    name,
    type: 'strings',
    group: AUTHENTICATION,
    usage,
    parse: headerNames(name),
    repeatable: true,
    default: value,
    shown: value.length ? `[${value.join(',')}]` : undefined,
  });
  return [
    {
      name: 'authentication-token-webhook-cache-ttl',
      type: 'duration',
      group: AUTHENTICATION,
      usage: 'The duration to cache responses from the webhook token authenticator.',
      parse: goDuration,
      default: w.cacheTtlMs,
      shown: '2m0s',
    },
    {
      name: 'authentication-token-webhook-config-file',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.',
      parse: path,
    },
    {
      name: 'authentication-token-webhook-version',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'The API version of the authentication.platform.io TokenReview to send to and expect from the webhook.',
      parse: tokenWebhookVersion,
      default: w.version,
      shown: JSON.stringify(w.version),
    },
    list('requestheader-allowed-names', 'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.', r.allowedNames),
    {
      name: 'requestheader-client-ca-file',
      type: 'string',
      group: AUTHENTICATION,
      usage: 'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.',
      parse: path,
    },
    list('requestheader-extra-headers-prefix', 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.', r.extraHeaderPrefixes),
    list('requestheader-group-headers', 'List of request headers to inspect for groups. X-Remote-Group is suggested.', r.groupHeaders),
    list('requestheader-uid-headers', 'List of request headers to inspect for UIDs. X-Remote-Uid is suggested.', r.uidHeaders),
    list('requestheader-username-headers', 'List of request headers to inspect for usernames. X-Remote-User is common.', r.usernameHeaders),
  ];
}

/** The proxy and token-webhook options from parsed flag values. */
function proxyAndTokenWebhookOptionsOf(o: ParsedFlags): Pick<ServerOptions, 'requestHeader' | 'authenticationTokenWebhook'> {
  return {
    requestHeader: {
      clientCaFile: o.requestheaderClientCaFile,
      allowedNames: o.requestheaderAllowedNames,
      usernameHeaders: o.requestheaderUsernameHeaders,
      uidHeaders: o.requestheaderUidHeaders,
      groupHeaders: o.requestheaderGroupHeaders,
      extraHeaderPrefixes: o.requestheaderExtraHeadersPrefix,
    },
    authenticationTokenWebhook: {
      configFile: o.authenticationTokenWebhookConfigFile,
      version: o.authenticationTokenWebhookVersion,
      cacheTtlMs: o.authenticationTokenWebhookCacheTtl,
    },
  };
}

/** The audit options from parsed flag values. */
function auditOptionsOf(o: ParsedFlags): ServerOptions['audit'] {
  return {
    policyFile: o.auditPolicyFile,
    logPath: o.auditLogPath,
    logFormat: o.auditLogFormat,
    logMaxAge: o.auditLogMaxage,
    logMaxBackup: o.auditLogMaxbackup,
    logMaxSize: o.auditLogMaxsize,
    logCompress: !!o.auditLogCompress,
    logMode: o.auditLogMode,
    logBatch: {
      bufferSize: o.auditLogBatchBufferSize,
      maxSize: o.auditLogBatchMaxSize,
      maxWaitMs: o.auditLogBatchMaxWait,
      throttleEnable: o.auditLogBatchThrottleEnable,
      throttleQps: o.auditLogBatchThrottleQps,
      throttleBurst: o.auditLogBatchThrottleBurst,
    },
    logTruncate: { enabled: !!o.auditLogTruncateEnabled, maxBatchSize: o.auditLogTruncateMaxBatchSize, maxEventSize: o.auditLogTruncateMaxEventSize },
    logVersion: o.auditLogVersion,
    webhookConfigFile: o.auditWebhookConfigFile,
    webhookMode: o.auditWebhookMode,
    webhookBatch: {
      bufferSize: o.auditWebhookBatchBufferSize,
      maxSize: o.auditWebhookBatchMaxSize,
      maxWaitMs: o.auditWebhookBatchMaxWait,
      throttleEnable: o.auditWebhookBatchThrottleEnable,
      throttleQps: o.auditWebhookBatchThrottleQps,
      throttleBurst: o.auditWebhookBatchThrottleBurst,
    },
    webhookTruncate: { enabled: !!o.auditWebhookTruncateEnabled, maxBatchSize: o.auditWebhookTruncateMaxBatchSize, maxEventSize: o.auditWebhookTruncateMaxEventSize },
    webhookVersion: o.auditWebhookVersion,
    webhookInitialBackoffMs: o.auditWebhookInitialBackoff,
  };
}

/**
 * The parsed command line, keyed as commander camel-cases the flag names. Each flag's parser
 * in the spec table above produces its type; a flag without a default and not given is absent.
 */
interface ParsedFlags {
  securePort: number;
  bindAddress: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tlsCipherSuites: string[];
  tlsMinVersion?: TlsVersionName;
  clientCaFile?: string;
  dataDir: string;
  databaseUrl?: string;
  embeddedFsync: boolean;
  embeddedSharedBuffers: number;
  historyWindow: number;
  watchCacheSizeBytes: number;
  tokenAuthFile?: string;
  anonymousAuth: boolean;
  featureGates: FeatureGates;
  runtimeConfig: RuntimeConfig;
  showHiddenMetricsForVersion?: string;
  authenticationConfig?: string;
  oidcIssuerUrl?: string;
  oidcClientId?: string;
  oidcUsernameClaim: string;
  oidcUsernamePrefix?: string;
  oidcGroupsClaim?: string;
  oidcGroupsPrefix?: string;
  oidcRequiredClaim: Array<[string, string]>;
  oidcCaFile?: string;
  oidcSigningAlgs: string[];
  authorizationMode: string[];
  authorizationConfig?: string;
  authorizationPolicyFile?: string;
  authorizationWebhookConfigFile?: string;
  authorizationWebhookVersion: ServerOptions['authorizationWebhook']['version'];
  authorizationWebhookCacheAuthorizedTtl: number;
  authorizationWebhookCacheUnauthorizedTtl: number;
  enableAdmissionPlugins: string[];
  maxRequestBytes: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  requestTimeout: number;
  minRequestTimeout: number;
  kubectlReviewAliases: boolean;
  migrateOnly?: boolean;
  livezGracePeriod: number;
  shutdownDelayDuration: number;
  shutdownSendRetryAfter?: boolean;
  shutdownWatchTerminationGracePeriod: number;
  v: number;
  loggingFormat: LoggingFormat;
  auditPolicyFile?: string;
  auditLogPath?: string;
  auditLogFormat: AuditOptions['logFormat'];
  auditLogMaxage: number;
  auditLogMaxbackup: number;
  auditLogMaxsize: number;
  auditLogCompress: boolean;
  auditLogMode: AuditMode;
  auditLogBatchBufferSize: number;
  auditLogBatchMaxSize: number;
  auditLogBatchMaxWait: number;
  auditLogBatchThrottleEnable: boolean;
  auditLogBatchThrottleQps: number;
  auditLogBatchThrottleBurst: number;
  auditLogTruncateEnabled: boolean;
  auditLogTruncateMaxBatchSize: number;
  auditLogTruncateMaxEventSize: number;
  auditLogVersion: string;
  auditWebhookConfigFile?: string;
  auditWebhookInitialBackoff: number;
  auditWebhookMode: AuditMode;
  auditWebhookBatchBufferSize: number;
  auditWebhookBatchMaxSize: number;
  auditWebhookBatchMaxWait: number;
  auditWebhookBatchThrottleEnable: boolean;
  auditWebhookBatchThrottleQps: number;
  auditWebhookBatchThrottleBurst: number;
  auditWebhookTruncateEnabled: boolean;
  auditWebhookTruncateMaxBatchSize: number;
  auditWebhookTruncateMaxEventSize: number;
  auditWebhookVersion: string;
  enableBootstrapTokenAuth: boolean;
  apiAudiences: string[];
  serviceAccountIssuer: string[];
  serviceAccountJwksUri?: string;
  serviceAccountKeyFile: string[];
  serviceAccountLookup: boolean;
  serviceAccountMaxTokenExpiration?: number;
  serviceAccountSigningKeyFile?: string;
  controllers: string[];
  expiredBindingRetention: number;
  requestheaderClientCaFile?: string;
  requestheaderAllowedNames: string[];
  requestheaderUsernameHeaders: string[];
  requestheaderUidHeaders: string[];
  requestheaderGroupHeaders: string[];
  requestheaderExtraHeadersPrefix: string[];
  authenticationTokenWebhookConfigFile?: string;
  authenticationTokenWebhookVersion: 'v1' | 'v1beta1';
  authenticationTokenWebhookCacheTtl: number;
  bindingUsageRecording: boolean;
  bindingUsageFlushInterval: number;
  consistentAuthorization: boolean;
}

function program(): Command {
  const cmd = new Command(COMMAND)
    .description('A Kubernetes-compatible authorization API server: RBAC objects, access reviews, authentication and authorization of every request.')
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined })
    .helpOption(false)
    .configureHelp({ formatHelp: (command) => helpText(command) })
    .allowExcessArguments(false);
  for (const spec of flagSpecs(defaultOptions())) cmd.addOption(flag(spec));
  // klog's verbosity flag, the one flag with a shorthand.
  const v = new Option('-v, --v <Level>', 'number for the log level verbosity').helpGroup(LOGGING).default(0).argParser((value: string) => {
    try {
      return verbosity(value);
    } catch (err) {
      throw new FlagError(`invalid argument ${JSON.stringify(value)} for "-v, --v" flag: ${(err as Error).message}`);
    }
  });
  cmd.addOption(v);
  return cmd;
}

/** pflag's usage layout: `--name type   usage (default x)`, by section, names aligned. */
function helpText(cmd: Command): string {
  const sections = new Map<string, Array<[string, string]>>();
  for (const option of cmd.options) {
    const type = /<(\w+)>/.exec(option.flags)?.[1];
    const term = `${option.short ? `${option.short}, ` : '    '}--${option.name()}${type ? ` ${type}` : ''}`;
    const shown = option.defaultValueDescription;
    // A usage of several lines (the gate list) continues under the usage column, as pflag prints it.
    const usage = shown ? `${option.description} (default ${shown})` : option.description;
    const group = option.helpGroupHeading ?? GENERIC;
    sections.set(group, [...(sections.get(group) ?? []), [term, usage]]);
  }
  const lines = [cmd.description(), '', 'Usage:', `  ${COMMAND} [flags]`, ''];
  for (const [heading, rows] of sections) {
    const width = Math.max(...rows.map(([term]) => term.length));
    const indent = ' '.repeat(2 + width + 3);
    lines.push(heading, '', ...rows.map(([term, usage]) => `  ${term.padEnd(width)}   ${usage.split('\n').join(`\n${indent}`)}`), '');
  }
  return lines.join('\n');
}

/** Commander's own errors, in kube's (cobra and pflag) words. */
function flagErrorOf(err: CommanderError, argv: string[]): FlagError {
  const named = /'(--[\w-]+)/.exec(err.message)?.[1] ?? '';
  switch (err.code) {
    case 'commander.unknownOption':
      return new FlagError(`unknown flag: ${named}`);
    case 'commander.optionMissingArgument':
      return new FlagError(`flag needs an argument: ${named}`);
    case 'commander.excessArguments':
      return new FlagError(`"${COMMAND}" does not take any arguments, got ${JSON.stringify(argv.filter((a) => !a.startsWith('-')))}`);
    default:
      return new FlagError(err.message.replace(/^error: /, ''));
  }
}

/**
 * Parses kube-apiserver style flags into ServerOptions and checks how they combine (what
 * the files they name contain is checked when the configuration is loaded); throws
 * FlagError or HelpRequested.
 */
export function parseServerFlags(argv: string[], env: NodeJS.ProcessEnv): ServerOptions {
  const cmd = program();
  if (argv.includes('--help') || argv.includes('-h')) throw new HelpRequested(cmd.helpInformation());
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) throw flagErrorOf(err, argv);
    throw err;
  }
  const o = cmd.opts<ParsedFlags>();
  const given = (key: string) => cmd.getOptionValueSource(key) === 'cli';
  if (!!o.tlsCertFile !== !!o.tlsPrivateKeyFile) throw new FlagError('--tls-cert-file and --tls-private-key-file must be given together');
  if (o.historyWindow <= 0) throw new FlagError('--history-window must be positive');
  const databaseUrl: string | undefined = o.databaseUrl ?? (env.DATABASE_URL || undefined);
  if (databaseUrl && given('embeddedFsync')) {
    throw new FlagError('--embedded-fsync applies to the embedded store only; with --database-url the PostgreSQL server decides how commits reach its disk');
  }
  if (databaseUrl && given('embeddedSharedBuffers')) {
    throw new FlagError('--embedded-shared-buffers applies to the embedded store only; with --database-url the PostgreSQL server has its own shared_buffers');
  }
  // kube's BuiltInAuthorizationOptions.Validate: the configuration file excludes the legacy
  // flags; without it, the policy file goes with mode ABAC and the webhook file with Webhook.
  if (o.authorizationConfig) {
    if (!o.featureGates.enabled('StructuredAuthorizationConfiguration')) {
      throw new FlagError('--authorization-config cannot be used without enabling StructuredAuthorizationConfiguration feature flag');
    }
    if (LEGACY_AUTHORIZATION_FLAGS.some(given)) {
      throw new FlagError('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
    }
  } else {
    const abac = o.authorizationMode.includes('ABAC');
    if (abac && !o.authorizationPolicyFile) throw new FlagError("authorization-mode ABAC's authorization policy file not passed");
    if (!abac && o.authorizationPolicyFile) throw new FlagError('cannot specify --authorization-policy-file without mode ABAC');
    const webhook = o.authorizationMode.includes('Webhook');
    if (webhook && !o.authorizationWebhookConfigFile) throw new FlagError("authorization-mode Webhook's authorization config file not passed");
    if (!webhook && o.authorizationWebhookConfigFile) throw new FlagError('cannot specify --authorization-webhook-config-file without mode Webhook');
  }
  // kube's BuiltInAuthenticationOptions.Validate: the configuration file excludes the OIDC flags.
  if (o.authenticationConfig) {
    if (!o.featureGates.enabled('StructuredAuthenticationConfiguration')) {
      throw new FlagError('set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file');
    }
    if (OIDC_FLAGS.some(given)) throw new FlagError('authentication-config file and oidc-* flags are mutually exclusive');
  }
  if (!!o.oidcIssuerUrl !== !!o.oidcClientId) throw new FlagError('oidc-issuer-url and oidc-client-id must be specified together');
  const maxTokenExpirationMs: number = o.serviceAccountMaxTokenExpiration ?? 0;
  if (maxTokenExpirationMs !== 0 && (maxTokenExpirationMs < 3600_000 || maxTokenExpirationMs > 2 ** 32 * 1000)) {
    throw new FlagError('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  }
  if (o.serviceAccountJwksUri && !(o.serviceAccountIssuer as string[]).length) throw new FlagError('service-account-jwks-uri requires service-account-issuer');
  if (o.bindingUsageFlushInterval <= 0) throw new FlagError('--binding-usage-flush-interval must be positive');
  return defaultOptions({
    securePort: o.securePort,
    bindAddress: o.bindAddress,
    tlsCertFile: o.tlsCertFile,
    tlsPrivateKeyFile: o.tlsPrivateKeyFile,
    tlsCipherSuites: o.tlsCipherSuites,
    tlsMinVersion: o.tlsMinVersion ?? DEFAULT_TLS_MIN_VERSION,
    clientCaFile: o.clientCaFile,
    dataDir: o.dataDir,
    databaseUrl,
    embeddedFsync: o.embeddedFsync,
    embeddedSharedBuffersBytes: o.embeddedSharedBuffers,
    historyWindowSeconds: o.historyWindow / 1000,
    watchCacheSizeBytes: o.watchCacheSizeBytes,
    tokenAuthFile: o.tokenAuthFile,
    anonymousAuth: given('anonymousAuth') ? o.anonymousAuth : undefined,
    serviceAccounts: {
      issuers: o.serviceAccountIssuer,
      signingKeyFile: o.serviceAccountSigningKeyFile,
      keyFiles: o.serviceAccountKeyFile,
      apiAudiences: o.apiAudiences,
      maxTokenExpirationSeconds: Math.floor(maxTokenExpirationMs / 1000),
      lookup: o.serviceAccountLookup,
      jwksUri: o.serviceAccountJwksUri,
    },
    enableBootstrapTokenAuth: !!o.enableBootstrapTokenAuth,
    controllers: o.controllers,
    expiredBindingRetentionMs: o.expiredBindingRetention,
    featureGates: o.featureGates,
    runtimeConfig: o.runtimeConfig,
    showHiddenMetricsForVersion: o.showHiddenMetricsForVersion,
    // With a configuration file there is no mode list (kube defaults to AlwaysAllow only without one).
    authorizationModes: o.authorizationConfig ? [] : o.authorizationMode,
    authorizationConfigFile: o.authorizationConfig,
    authenticationConfigFile: o.authenticationConfig,
    oidc: {
      issuerUrl: o.oidcIssuerUrl,
      clientId: o.oidcClientId,
      usernameClaim: o.oidcUsernameClaim,
      usernamePrefix: o.oidcUsernamePrefix,
      groupsClaim: o.oidcGroupsClaim,
      groupsPrefix: o.oidcGroupsPrefix,
      requiredClaims: o.oidcRequiredClaim,
      caFile: o.oidcCaFile,
      signingAlgs: o.oidcSigningAlgs,
    },
    authorizationWebhook: {
      configFile: o.authorizationWebhookConfigFile,
      version: o.authorizationWebhookVersion,
      cacheAuthorizedTTLMs: o.authorizationWebhookCacheAuthorizedTtl,
      cacheUnauthorizedTTLMs: o.authorizationWebhookCacheUnauthorizedTtl,
    },
    authorizationPolicyFile: o.authorizationPolicyFile,
    enableAdmissionPlugins: o.enableAdmissionPlugins,
    maxRequestBodyBytes: o.maxRequestBytes,
    maxRequestsInFlight: o.maxRequestsInflight,
    maxMutatingRequestsInFlight: o.maxMutatingRequestsInflight,
    requestTimeoutMs: o.requestTimeout,
    minRequestTimeoutSeconds: o.minRequestTimeout,
    kubectlReviewAliases: o.kubectlReviewAliases,
    migrateOnly: !!o.migrateOnly,
    livezGracePeriodMs: o.livezGracePeriod,
    shutdownDelayMs: o.shutdownDelayDuration,
    shutdownSendRetryAfter: !!o.shutdownSendRetryAfter,
    shutdownWatchTerminationGracePeriodMs: o.shutdownWatchTerminationGracePeriod,
    verbosity: o.v,
    loggingFormat: o.loggingFormat,
    audit: auditOptionsOf(o),
    ...proxyAndTokenWebhookOptionsOf(o),
    bindingUsage: { recording: o.bindingUsageRecording, flushIntervalMs: o.bindingUsageFlushInterval },
    consistentAuthorization: o.consistentAuthorization,
  });
}
