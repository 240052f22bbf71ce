import { FeatureGates } from './feature-gates';

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
  /** --authorization-mode, in order. */
  authorizationModes: string[];
  /** --authorization-config: an AuthorizationConfiguration file, instead of the mode and webhook flags. */
  authorizationConfigFile?: string;
  /** How often that file is re-read even without a change event (not a flag; tests shorten it). */
  authorizationConfigReloadIntervalMs: number;
  /** --authorization-webhook-*: the webhook of `--authorization-mode=...,Webhook`. */
  authorizationWebhook: AuthorizationWebhookOptions;
  /** --authorization-policy-file: the ABAC policy file (required with mode ABAC). */
  authorizationPolicyFile?: string;
  /** --enable-admission-plugins: plugins besides the default-on NamespaceLifecycle (e.g. NodeRestriction). */
  enableAdmissionPlugins: string[];
  /** --max-request-bytes: largest request body accepted (default 3 MiB, as kube). */
  maxRequestBodyBytes: number;
  /**
   * --kubectl-review-aliases (default true): also answer the review kinds at kube's
   * `authorization.k8s.io` and `authentication.k8s.io` paths, where kubectl posts them.
   */
  kubectlReviewAliases: boolean;
  /** --migrate-only: apply migrations and exit. */
  migrateOnly: boolean;
  /** Write <data-dir>/admin.kubeconfig once the port is known. */
  writeAdminKubeconfig: boolean;
  /** How often an idle watch with allowWatchBookmarks gets a BOOKMARK (not a flag; tests shorten it). */
  bookmarkIntervalMs: number;
}

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

export const DEFAULT_MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/** --watch-cache-size-bytes: 64 MiB holds the default 20,000 recent changes of objects of about 1.5 KiB. */
export const DEFAULT_WATCH_CACHE_SIZE_BYTES = 64 * 1024 * 1024;

export function defaultOptions(overrides: Partial<ServerOptions> = {}): ServerOptions {
  return {
    securePort: 6443,
    bindAddress: '127.0.0.1',
    dataDir: './data',
    embeddedFsync: true,
    embeddedSharedBuffersBytes: 16 * 1024 * 1024,
    historyWindowSeconds: 300,
    watchCacheSizeBytes: DEFAULT_WATCH_CACHE_SIZE_BYTES,
    featureGates: FeatureGates.defaults(),
    authorizationModes: ['Node', 'RBAC'],
    authorizationConfigReloadIntervalMs: 60_000,
    authorizationWebhook: { version: 'v1beta1', cacheAuthorizedTTLMs: 5 * 60_000, cacheUnauthorizedTTLMs: 30_000 },
    enableAdmissionPlugins: [],
    maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BYTES,
    kubectlReviewAliases: true,
    migrateOnly: false,
    writeAdminKubeconfig: true,
    bookmarkIntervalMs: 60_000,
    ...overrides,
  };
}

export const SERVER_OPTIONS = Symbol('SERVER_OPTIONS');
