import { existsSync, statSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { dirname, resolve } from 'node:path';
import { AuthenticationSettings } from '../authentication/authenticator';
import { loadTokenFile } from '../authentication/token-file/token-file';
import { loadStartupJwtAuthentication, StartupJwtAuthentication } from '../authentication/jwt/startup';
import { loadAbacPolicies } from '../authorization/abac/abac-authorizer';
import { AbacPolicy } from '../authorization/abac/abac-policy';
import { loadStartupAuthorization, StartupAuthorization } from '../authorization/config/authorization-setup';
import { FlagError } from '../config/flags';
import { AuditSettings, loadAuditSettings } from '../audit/audit-settings';
import { frozenOptions, RequestHeaderOptions, ServerOptions } from '../config/options';
import { loadWebhookKubeconfig } from '../webhook-client/kubeconfig';
import { readServiceAccountKeyFiles, ServiceAccountKeyFiles, serviceAccountTokenSettings } from '../authentication/serviceaccount/settings';
import { ServiceAccountTokenSettings } from '../authentication/serviceaccount/service-account-tokens';
import { readClientCertificateAuthorities, readServingCertificate, readServingKey, ServingFiles, ServingMaterial } from './certificates';
import { parsePostgresUrl, PostgresUrlError } from '../storage/engine/postgres-url';

/**
 * What the flags name, each file and address read and checked: loaded before the store opens
 * or the port is bound, so a bad setting stops the start at once, with one line naming the
 * flag. Frozen; what the data directory and the port settle completes it (ServerConfiguration).
 */
export interface LoadedConfiguration {
  readonly options: ServerOptions;
  readonly serving: ServingFiles;
  readonly authentication: AuthenticationSettings;
  /** The JWT authenticators of --authentication-config or the --oidc-* flags. */
  readonly jwtAuthentication: StartupJwtAuthentication;
  readonly authorization: StartupAuthorization;
  /** --authorization-policy-file, parsed; null unless an ABAC authorizer is configured. */
  readonly abacPolicies: AbacPolicy[] | null;
  /** The --audit-* flags with the policy read; null when nothing is audited. */
  readonly audit: AuditSettings | null;
  /** The --service-account-*key-file keys, read. */
  readonly serviceAccountKeys: ServiceAccountKeyFiles;
  /** Said to the operator at start (kube logs them as warnings). */
  readonly warnings: readonly string[];
}

/**
 * Everything the server runs with (kube's CompletedConfig): the loaded configuration with the
 * data directory's authorities among the client CAs and the token issuer's settings, which
 * need the server's URL. Computed once, when both are known, and frozen.
 */
export interface ServerConfiguration extends LoadedConfiguration {
  readonly serviceAccountTokens: ServiceAccountTokenSettings;
}

/** Said when anonymous requests are turned on explicitly next to AlwaysAllow: every one of them is then allowed. */
export const ANONYMOUS_WITH_ALWAYS_ALLOW =
  'AnonymousAuth is enabled with the AlwaysAllow authorizer: every unauthenticated request is allowed. You should use a different authorizer';

/** Runs a check of what a flag names; any failure becomes a FlagError naming the flag. */
async function fromFlag<T>(flag: string, load: () => T | Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (err instanceof FlagError) throw err;
    throw FlagError.about(flag, (err as Error).message);
  }
}

/**
 * Reads and checks everything the flags name and returns it typed. The flags' values are
 * checked when they are read (src/config/options/); here, what they name.
 */
export async function loadConfiguration(options: ServerOptions): Promise<LoadedConfiguration> {
  frozenOptions(options);
  const warnings = [...options.featureGates.warnings];
  await fromFlag('--bind-address', () => resolvable(options.bindAddress));
  await fromFlag('--data-dir', () => usableDirectory(options.dataDir));
  if (options.databaseUrl) await fromFlag('--database-url', () => postgresUrl(options.databaseUrl!));

  const serving: ServingFiles = {};
  if (options.tlsCertFile && options.tlsPrivateKeyFile) {
    const certPem = await fromFlag('--tls-cert-file', () => readServingCertificate(options.tlsCertFile!));
    const keyPem = await fromFlag('--tls-private-key-file', () => readServingKey(options.tlsPrivateKeyFile!, certPem));
    serving.certificate = { certPem, keyPem };
  }
  if (options.clientCaFile) serving.clientCaPem = await fromFlag('--client-ca-file', () => readClientCertificateAuthorities(options.clientCaFile!));

  // Anonymous requests are off by default when a mode is AlwaysAllow (which would let them do
  // anything); only an explicit --anonymous-auth=true turns them on then. A configuration
  // file's authorizers do not count (kube looks at the mode flag only).
  const alwaysAllow = options.authorizationModes.includes('AlwaysAllow');
  const anonymous = options.anonymousAuth ?? !alwaysAllow;
  if (anonymous && alwaysAllow) warnings.push(ANONYMOUS_WITH_ALWAYS_ALLOW);
  const authentication: AuthenticationSettings = { anonymous, tokenCacheTtlMs: options.tokenCacheTtlMs };
  if (options.tokenAuthFile) authentication.staticTokens = await fromFlag('--token-auth-file', () => loadTokenFile(options.tokenAuthFile!));
  await loadProxyAndTokenWebhook(options, authentication, warnings);

  const jwtAuthentication = await fromFlag(options.authenticationConfigFile ? '--authentication-config' : '--oidc-issuer-url', () => loadStartupJwtAuthentication(options));
  const anonymousConfig = jwtAuthentication.loaded.configuration.anonymous;
  if (anonymousConfig) {
    if (options.anonymousAuth !== undefined) throw new FlagError('--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
    authentication.anonymous = anonymousConfig.enabled;
    if (anonymousConfig.conditions.length) authentication.anonymousPaths = anonymousConfig.conditions.map((c) => c.path);
  }

  const serviceAccountKeys = await readServiceAccountKeyFiles(options.serviceAccounts, fromFlag);

  const authorization = await fromFlag(options.authorizationConfigFile ? '--authorization-config' : '--authorization-webhook-config-file', () =>
    loadStartupAuthorization(options),
  );
  let abacPolicies: AbacPolicy[] | null = null;
  if (authorization.configuration.authorizers.some((a) => a.type === 'ABAC')) {
    if (!options.authorizationPolicyFile) throw new FlagError("authorization-mode ABAC's authorization policy file not passed");
    abacPolicies = await fromFlag('--authorization-policy-file', () => loadAbacPolicies(options.authorizationPolicyFile!));
  }
  const audit = loadAuditSettings(options.audit, warnings);
  return Object.freeze({
    options,
    serving: Object.freeze(serving),
    authentication: Object.freeze(authentication),
    jwtAuthentication,
    authorization,
    abacPolicies,
    audit,
    serviceAccountKeys,
    warnings: Object.freeze(warnings),
  });
}

/** The loaded configuration completed once the serving material and the server's URL are known. */
export function completeConfiguration(loaded: LoadedConfiguration, material: ServingMaterial, serverUrl: string): ServerConfiguration {
  const { options } = loaded;
  return Object.freeze({
    ...loaded,
    authentication: Object.freeze({ ...loaded.authentication, clientCaPems: material.clientCaPems }),
    serviceAccountTokens: serviceAccountTokenSettings(options.serviceAccounts, loaded.serviceAccountKeys, options.dataDir, serverUrl, material.caCertPem),
  });
}

/** The standard header names an aggregated server reads, with the flag that may leave one out. */
const STANDARD_HEADER_FLAGS: Array<[keyof Omit<RequestHeaderOptions, 'clientCaFile' | 'allowedNames'>, string, string]> = [
  ['usernameHeaders', '--requestheader-username-headers', 'X-Remote-User'],
  ['groupHeaders', '--requestheader-group-headers', 'X-Remote-Group'],
  ['extraHeaderPrefixes', '--requestheader-extra-headers-prefix', 'X-Remote-Extra-'],
];

/** --requestheader-client-ca-file and --authentication-token-webhook-config-file, read and checked. */
async function loadProxyAndTokenWebhook(options: ServerOptions, authentication: AuthenticationSettings, warnings: string[]): Promise<void> {
  const proxy = options.requestHeader;
  if (proxy.clientCaFile) {
    const clientCaPem = await fromFlag('--requestheader-client-ca-file', () => readClientCertificateAuthorities(proxy.clientCaFile!));
    authentication.requestHeader = { ...proxy, clientCaPem };
    for (const [field, flag, standard] of STANDARD_HEADER_FLAGS) {
      if (!proxy[field].some((name) => name.toLowerCase() === standard.toLowerCase())) {
        warnings.push(`${flag} is set without specifying the standard ${standard} header - API aggregation will not work`);
      }
    }
  }
  const webhook = options.authenticationTokenWebhook;
  if (webhook.configFile) {
    const connection = await fromFlag('--authentication-token-webhook-config-file', () => loadWebhookKubeconfig(webhook.configFile!));
    authentication.tokenWebhook = { connection, version: webhook.version, cacheTtlMs: webhook.cacheTtlMs };
  }
}

/** An IP address, or a host name the resolver knows. */
async function resolvable(address: string): Promise<void> {
  if (isIP(address)) return;
  try {
    await lookup(address);
  } catch (err) {
    throw new Error(`cannot resolve ${JSON.stringify(address)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** A directory, or a path where one can be created. */
function usableDirectory(dir: string): void {
  const path = resolve(dir);
  if (existsSync(path)) {
    if (!statSync(path).isDirectory()) throw new Error(`${dir} is not a directory`);
    return;
  }
  let parent = dirname(path);
  while (!existsSync(parent)) parent = dirname(parent);
  if (!statSync(parent).isDirectory()) throw new Error(`cannot create ${dir}: ${parent} is not a directory`);
}

/** A PostgreSQL URL; the value is never repeated, as it may hold a password. */
function postgresUrl(url: string): void {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  if (scheme === undefined) throw new Error('not a URL; expected postgres://user:password@host:port/database');
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new Error(`unsupported scheme "${scheme}"; expected postgres://user:password@host:port/database`);
  }
  // libpq's syntax, several hosts included (postgres://h1:5432,h2:5432/db?target_session_attrs=read-write).
  try {
    parsePostgresUrl(url);
  } catch (err) {
    if (err instanceof PostgresUrlError) throw new Error(`${err.message.replace(/ in the PostgreSQL URL .*$/, '')}; expected postgres://user:password@host:port/database`);
    throw err;
  }
}
