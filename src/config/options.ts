import { FeatureGates } from './feature-gates';
import { EMPTY_RUNTIME_CONFIG, RuntimeConfig } from './runtime-config';
import { DEFAULT_TLS_MIN_VERSION, TlsVersionName } from './tls';

/**
 * The server's settings as the flags give them (their syntax checked). What they name (files,
 * addresses) is read and checked when the configuration is loaded (src/server/configuration.ts).
 * Names follow kube-apiserver's flags.
 */
export interface ServerOptions {
  /** --secure-port */
  securePort: number;
  /** --bind-address */
  bindAddress: string;
  /** --tls-cert-file / --tls-private-key-file; generated into the data dir when unset. */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** --client-ca-file: extra authorities for client certificates (the data dir CA is always trusted). */
  clientCaFile?: string;
  /** --tls-min-version: the oldest TLS version a client may handshake with (kube's default VersionTLS12). */
  tlsMinVersion: TlsVersionName;
  /** --tls-cipher-suites: Go's names of the suites offered; empty: the TLS library's defaults. */
  tlsCipherSuites: string[];
  /** --data-dir, default ./data */
  dataDir: string;
  /** --database-url or DATABASE_URL; the embedded store when unset. */
  databaseUrl?: string;
  /** --embedded-fsync: the embedded store syncs every commit to disk (default true, as PostgreSQL). */
  embeddedFsync: boolean;
  /** --embedded-shared-buffers in bytes: the embedded engine's shared_buffers (default 16 MiB). */
  embeddedSharedBuffersBytes: number;
  /** --history-window in seconds (default 300). */
  historyWindowSeconds: number;
  /** --watch-cache-size-bytes: how much of the recent changes watchers replay from is kept in memory. */
  watchCacheSizeBytes: number;
  /** --token-auth-file */
  tokenAuthFile?: string;
  /**
   * --anonymous-auth; unset = on, except when --authorization-mode includes AlwaysAllow
   * (the spec: anonymous is on "when authorization mode is not AlwaysAllow").
   */
  anonymousAuth?: boolean;
  /** --feature-gates */
  featureGates: FeatureGates;
  /** --runtime-config: API versions and resources turned on or off (checked against the served kinds at start). */
  runtimeConfig: RuntimeConfig;
  /** --show-hidden-metrics-for-version: the previous release, to expose metrics hidden in this one. */
  showHiddenMetricsForVersion?: string;
  /** Per-request metrics (apiserver_request_*, authentication_*) are recorded; not a flag: the benchmark measures their cost with it off. */
  requestMetrics: boolean;
  /** The --service-account-* and --api-audiences flags: tokens this server issues and accepts. */
  serviceAccounts: ServiceAccountTokenOptions;
  /** --enable-bootstrap-token-auth: bearer tokens `<id>.<secret>` backed by Secrets in kube-system. */
  enableBootstrapTokenAuth: boolean;
  /** --controllers, as kube's syntax lists them (`*`, `name`, `-name`); see controllerEnabled. */
  controllers: string[];
  /** --expired-binding-retention: how long the binding-expiry controller keeps a binding past its valid-until; 0 keeps it forever. */
  expiredBindingRetentionMs: number;
  /** --authorization-mode, in order. */
  authorizationModes: string[];
  /** --authorization-config: an AuthorizationConfiguration file, instead of the mode and webhook flags. */
  authorizationConfigFile?: string;
  /** How often that file is re-read even without a change event (not a flag; tests shorten it). */
  authorizationConfigReloadIntervalMs: number;
  /** --authentication-config: an AuthenticationConfiguration file (JWT authenticators, anonymous), instead of the --oidc-* flags. */
  authenticationConfigFile?: string;
  /** How often that file is re-read even without a change event (not a flag; tests shorten it). */
  authenticationConfigReloadIntervalMs: number;
  /** The --oidc-* flags: one JWT authenticator. */
  oidc: OidcOptions;
  /** --authorization-webhook-*: the webhook of `--authorization-mode=...,Webhook`. */
  authorizationWebhook: AuthorizationWebhookOptions;
  /** --authorization-policy-file: the ABAC policy file (required with mode ABAC). */
  authorizationPolicyFile?: string;
  /** --enable-admission-plugins: plugins besides the default-on NamespaceLifecycle (e.g. NodeRestriction). */
  enableAdmissionPlugins: string[];
  /** --max-request-bytes: largest request body accepted (default 3 MiB, as kube). */
  maxRequestBodyBytes: number;
  /** --max-requests-inflight: reads (get, list) served at once before 429s; 0: no limit. */
  maxRequestsInFlight: number;
  /** --max-mutating-requests-inflight: writes served at once before 429s; 0: no limit. */
  maxMutatingRequestsInFlight: number;
  /** --request-timeout in ms: a request that is not long-running gets 504 after it (default 1m). */
  requestTimeoutMs: number;
  /** --min-request-timeout in seconds: a watch without timeoutSeconds ends between it and twice it (default 1800). */
  minRequestTimeoutSeconds: number;
  /**
   * --kubectl-review-aliases (default true): also answer the review kinds at kube's
   * `authorization.k8s.io` and `authentication.k8s.io` paths, where kubectl posts them.
   */
  kubectlReviewAliases: boolean;
  /** --migrate-only: apply migrations and exit. */
  migrateOnly: boolean;
  /** Write <data-dir>/admin.kubeconfig once the port is known. */
  writeAdminKubeconfig: boolean;
  /** How long a successful bearer-token authentication is reused while the store is unchanged (not a flag; kube: 10 s; 0: never). */
  tokenCacheTtlMs: number;
  /** How often an idle watch with allowWatchBookmarks gets a BOOKMARK (not a flag; tests shorten it). */
  bookmarkIntervalMs: number;
  /** --livez-grace-period in ms: post-start hooks not finished yet do not fail /livez this long after start. */
  livezGracePeriodMs: number;
  /** --shutdown-delay-duration in ms: after SIGTERM, /readyz fails but requests are still served this long. */
  shutdownDelayMs: number;
  /** --shutdown-send-retry-after: after the delay, answer new requests 429 with Retry-After until in-flight ones finish. */
  shutdownSendRetryAfter: boolean;
  /** --shutdown-watch-termination-grace-period in ms: how long open watches may run on once the listener closed. */
  shutdownWatchTerminationGracePeriodMs: number;
  /** -v / --v: log verbosity (0: start-up and controller events; 2: one line per request). */
  verbosity: number;
  /** --logging-format: `text` (klog's lines) or `json`. */
  loggingFormat: LoggingFormat;
  /** The `--audit-*` flags. */
  audit: AuditOptions;
  /** The `--requestheader-*` flags: an authenticating proxy. */
  requestHeader: RequestHeaderOptions;
  /** The `--authentication-token-webhook-*` flags. */
  authenticationTokenWebhook: AuthenticationTokenWebhookOptions;
  /** The `--binding-usage-*` flags: which RBAC bindings grant, counted and flushed to the database. */
  bindingUsage: BindingUsageOptions;
  /** --consistent-authorization: decisions wait until the indexes have the store's revision of their arrival. */
  consistentAuthorization: boolean;
}

/** The `--requestheader-*` flags (header defaults as kubeadm sets them). */
export interface RequestHeaderOptions {
  /** --requestheader-client-ca-file: enables the proxy; the authorities its client certificates chain to. */
  clientCaFile?: string;
  /** --requestheader-allowed-names: common names a proxy certificate may have; empty: any. */
  allowedNames: string[];
  /** --requestheader-username-headers: the first one with a value names the user. */
  usernameHeaders: string[];
  /** --requestheader-uid-headers */
  uidHeaders: string[];
  /** --requestheader-group-headers: every value of each is a group. */
  groupHeaders: string[];
  /** --requestheader-extra-headers-prefix: `<prefix><key>: value` is an extra value. */
  extraHeaderPrefixes: string[];
}

/** The `--authentication-token-webhook-*` flags. */
export interface AuthenticationTokenWebhookOptions {
  /** --authentication-token-webhook-config-file: kubeconfig of the service that reviews bearer tokens. */
  configFile?: string;
  /** --authentication-token-webhook-version: the TokenReview version sent. */
  version: 'v1' | 'v1beta1';
  /** --authentication-token-webhook-cache-ttl, in ms: how long its answers (both kinds) are reused. */
  cacheTtlMs: number;
}

/** The `--binding-usage-*` flags. */
export interface BindingUsageOptions {
  /** --binding-usage-recording (default true): count the allows each binding grants. */
  recording: boolean;
  /** --binding-usage-flush-interval in ms (default 10 s): how often counts are written. */
  flushIntervalMs: number;
}

/** How an audit backend gets events: kube's --audit-*-mode values. */
export type AuditMode = 'batch' | 'blocking' | 'blocking-strict';
export const AUDIT_MODES: AuditMode[] = ['batch', 'blocking', 'blocking-strict'];

/** The `--audit-{log,webhook}-batch-*` flags. */
export interface AuditBatchOptions {
  bufferSize: number;
  maxSize: number;
  maxWaitMs: number;
  throttleEnable: boolean;
  throttleQps: number;
  throttleBurst: number;
}

/** The `--audit-{log,webhook}-truncate-*` flags (sizes in bytes). */
export interface AuditTruncateOptions {
  enabled: boolean;
  maxBatchSize: number;
  maxEventSize: number;
}

/** The one group and version audit events are serialized in (`--audit-{log,webhook}-version`). */
export const AUDIT_GROUP_VERSIONS = ['audit.platform.io/v1'];

/** The `--audit-*` flags (kube's defaults). */
export interface AuditOptions {
  /** --audit-policy-file: nothing is audited without it. */
  policyFile?: string;
  /** --audit-log-path: a file, or `-` for stdout. */
  logPath?: string;
  /** --audit-log-format */
  logFormat: 'json' | 'legacy';
  /** --audit-log-maxage (days), --audit-log-maxbackup (files), --audit-log-maxsize (MB), --audit-log-compress. */
  logMaxAge: number;
  logMaxBackup: number;
  logMaxSize: number;
  logCompress: boolean;
  /** --audit-log-mode */
  logMode: AuditMode;
  logBatch: AuditBatchOptions;
  logTruncate: AuditTruncateOptions;
  /** --audit-log-version */
  logVersion: string;
  /** --audit-webhook-config-file: kubeconfig of the webhook that receives EventLists. */
  webhookConfigFile?: string;
  /** --audit-webhook-mode */
  webhookMode: AuditMode;
  webhookBatch: AuditBatchOptions;
  webhookTruncate: AuditTruncateOptions;
  /** --audit-webhook-version */
  webhookVersion: string;
  /** --audit-webhook-initial-backoff, in ms. */
  webhookInitialBackoffMs: number;
}

export function defaultAuditOptions(): AuditOptions {
  const batch = { bufferSize: 10_000, maxSize: 400, maxWaitMs: 30_000, throttleEnable: true, throttleQps: 10, throttleBurst: 15 };
  const truncate = { enabled: false, maxBatchSize: 10 * 1024 * 1024, maxEventSize: 100 * 1024 };
  return {
    logFormat: 'json',
    logMaxAge: 0,
    logMaxBackup: 0,
    logMaxSize: 0,
    logCompress: false,
    logMode: 'blocking',
    // The log backend has no request overhead: batches of one, no throttling (kube's defaults).
    logBatch: { ...batch, maxSize: 1, throttleEnable: false },
    logTruncate: { ...truncate },
    logVersion: AUDIT_GROUP_VERSIONS[0],
    webhookMode: 'batch',
    webhookBatch: batch,
    webhookTruncate: { ...truncate },
    webhookVersion: AUDIT_GROUP_VERSIONS[0],
    webhookInitialBackoffMs: 10_000,
  };
}

export type LoggingFormat = 'text' | 'json';

/** The `--authorization-webhook-*` flags (kube's defaults: v1beta1, 5m, 30s). */
export interface AuthorizationWebhookOptions {
  /** --authorization-webhook-config-file: the webhook's kubeconfig. */
  configFile?: string;
  /** --authorization-webhook-version: the SubjectAccessReview version sent. */
  version: 'v1' | 'v1beta1';
  /** --authorization-webhook-cache-authorized-ttl, in ms (0: allow answers not cached). */
  cacheAuthorizedTTLMs: number;
  /** --authorization-webhook-cache-unauthorized-ttl, in ms (0: other answers not cached). */
  cacheUnauthorizedTTLMs: number;
}

/** The asymmetric algorithms an ID token may be signed with (kube's allow-list); HMAC and `none` never. */
export const SUPPORTED_SIGNING_ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

/** The `--oidc-*` flags (kube's defaults: username claim `sub`, algorithm RS256). */
export interface OidcOptions {
  /** --oidc-issuer-url: https only; unset, OpenID Connect by flags is off. */
  issuerUrl?: string;
  /** --oidc-client-id: the audience tokens must be issued for. */
  clientId?: string;
  /** --oidc-username-claim */
  usernameClaim: string;
  /** --oidc-username-prefix: `-` disables; unset, `<issuer>#` unless the claim is `email`. */
  usernamePrefix?: string;
  /** --oidc-groups-claim */
  groupsClaim?: string;
  /** --oidc-groups-prefix */
  groupsPrefix?: string;
  /** --oidc-required-claim (repeatable key=value), in the order given. */
  requiredClaims: Array<[string, string]>;
  /** --oidc-ca-file: authorities for the issuer's certificate; unset, the system roots. */
  caFile?: string;
  /** --oidc-signing-algs */
  signingAlgs: string[];
}

/** The service-account token flags, as kube-apiserver names them. */
export interface ServiceAccountTokenOptions {
  /** --service-account-issuer (repeatable): the first issues, every one is accepted. Unset: `https://<bind address>:<port>`. */
  issuers: string[];
  /** --service-account-signing-key-file: the private key tokens are signed with. Unset: generated into the data dir. */
  signingKeyFile?: string;
  /** --service-account-key-file (repeatable): public (or private) keys tokens are verified with; default the signing key. */
  keyFiles: string[];
  /** --api-audiences: the audiences the API accepts (and issues by default); unset: the issuer. */
  apiAudiences: string[];
  /** --service-account-max-token-expiration, in seconds; 0: no cap. */
  maxTokenExpirationSeconds: number;
  /** --service-account-lookup: a token is valid only while its account (and bound object) exists. */
  lookup: boolean;
  /** --service-account-jwks-uri: the jwks_uri the discovery document names instead of `<issuer>/openid/v1/jwks`. */
  jwksUri?: string;
}

export const DEFAULT_MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/** --watch-cache-size-bytes: 64 MiB holds the default 20,000 recent changes of objects of about 1.5 KiB. */
export const DEFAULT_WATCH_CACHE_SIZE_BYTES = 64 * 1024 * 1024;

export function defaultOptions(overrides: Partial<ServerOptions> = {}): ServerOptions {
  return {
    securePort: 6443,
    bindAddress: '127.0.0.1',
    tlsMinVersion: DEFAULT_TLS_MIN_VERSION,
    tlsCipherSuites: [],
    dataDir: './data',
    embeddedFsync: true,
    embeddedSharedBuffersBytes: 16 * 1024 * 1024,
    historyWindowSeconds: 300,
    watchCacheSizeBytes: DEFAULT_WATCH_CACHE_SIZE_BYTES,
    featureGates: FeatureGates.defaults(),
    runtimeConfig: EMPTY_RUNTIME_CONFIG,
    requestMetrics: true,
    serviceAccounts: { issuers: [], keyFiles: [], apiAudiences: [], maxTokenExpirationSeconds: 0, lookup: true },
    enableBootstrapTokenAuth: false,
    controllers: ['*'],
    expiredBindingRetentionMs: 24 * 3600_000,
    authorizationModes: ['Node', 'RBAC'],
    authorizationConfigReloadIntervalMs: 60_000,
    authenticationConfigReloadIntervalMs: 60_000,
    oidc: { usernameClaim: 'sub', requiredClaims: [], signingAlgs: ['RS256'] },
    authorizationWebhook: { version: 'v1beta1', cacheAuthorizedTTLMs: 5 * 60_000, cacheUnauthorizedTTLMs: 30_000 },
    enableAdmissionPlugins: [],
    maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BYTES,
    maxRequestsInFlight: 400,
    maxMutatingRequestsInFlight: 200,
    requestTimeoutMs: 60_000,
    minRequestTimeoutSeconds: 1800,
    kubectlReviewAliases: true,
    migrateOnly: false,
    writeAdminKubeconfig: true,
    bookmarkIntervalMs: 60_000,
    livezGracePeriodMs: 0,
    shutdownDelayMs: 0,
    shutdownSendRetryAfter: false,
    shutdownWatchTerminationGracePeriodMs: 0,
    verbosity: 0,
    loggingFormat: 'text',
    audit: defaultAuditOptions(),
    tokenCacheTtlMs: 10_000,
    requestHeader: { allowedNames: [], usernameHeaders: ['X-Remote-User'], uidHeaders: [], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] },
    authenticationTokenWebhook: { version: 'v1', cacheTtlMs: 2 * 60_000 },
    bindingUsage: { recording: true, flushIntervalMs: 10_000 },
    consistentAuthorization: true,
    ...overrides,
  };
}

export const SERVER_OPTIONS = Symbol('SERVER_OPTIONS');
