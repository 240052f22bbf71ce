import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DurationSyntaxError, parseGoDuration } from '../authorization/config/go-duration';
import { FeatureGateError, FeatureGates, KNOWN_FEATURES } from './feature-gates';
import { DEFAULT_MAX_REQUEST_BYTES, defaultOptions, ServerOptions } from './options';

/** A bad command line: main prints the message and exits non-zero. */
export class FlagError extends Error {}

/** `--help`: main prints the text and exits 0. */
export class HelpRequested extends Error {
  constructor(readonly helpText: string) {
    super('help requested');
  }
}

/** The names `--authorization-mode` accepts; each needs its module's authorizer factory at start. */
export const SUPPORTED_AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'RBAC', 'Node', 'Webhook'];

/** Admission plugins this server has; NamespaceLifecycle is on by default, as in kube. */
export const ADMISSION_PLUGINS = ['NamespaceLifecycle', 'NodeRestriction'];

function admissionPlugins(value: string): string[] {
  const list = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = list.filter((name) => !ADMISSION_PLUGINS.includes(name));
  if (unknown.length) throw new InvalidArgumentError(unknown.map((name) => `enable-admission-plugins plugin "${name}" is unknown`).join(', '));
  return [...new Set(list)];
}

function integer(min: number, max: number) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError(`"${value}" is not an integer`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`must be between ${min} and ${max}`);
    return n;
  };
}

/** kube-style booleans: `--flag`, `--flag=true`, `--flag=false`. */
function bool(value: string | undefined): boolean {
  if (value === undefined || value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new InvalidArgumentError(`"${value}" is not a boolean (true or false)`);
}

/** Go-style durations (`300ms`, `90s`, `5m`, `1h30m`) or plain seconds, in seconds. */
export function parseDurationSeconds(value: string): number {
  if (/^\d+$/.test(value)) return Number(value);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (const m of value.matchAll(re)) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n / 1000 : m[2] === 's' ? n : m[2] === 'm' ? n * 60 : n * 3600;
    consumed += m[0].length;
  }
  if (consumed !== value.length || consumed === 0) throw new InvalidArgumentError(`"${value}" is not a duration (e.g. 90s, 5m)`);
  return total;
}

function modes(value: string): string[] {
  const list = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (list.length === 0) throw new InvalidArgumentError('at least one mode is required');
  for (const mode of list) {
    if (!SUPPORTED_AUTHORIZATION_MODES.includes(mode)) {
      throw new InvalidArgumentError(`unknown authorization mode "${mode}"; supported modes: ${SUPPORTED_AUTHORIZATION_MODES.join(', ')}`);
    }
  }
  if (new Set(list).size !== list.length) throw new InvalidArgumentError('an authorization mode may be listed only once');
  return list;
}

/** pflag's DurationVar: Go duration text (`5m`, `30s`, `0`), here in milliseconds; not negative. */
function goDuration(value: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(value);
  } catch (err) {
    if (err instanceof DurationSyntaxError) throw new InvalidArgumentError(err.message);
    throw err;
  }
  if (ms < 0) throw new InvalidArgumentError(`"${value}" must not be negative`);
  return ms;
}

function webhookVersion(value: string): 'v1' | 'v1beta1' {
  if (value !== 'v1' && value !== 'v1beta1') {
    throw new InvalidArgumentError(`unsupported webhook authorizer version "${value}", supported versions are "v1", "v1beta1"`);
  }
  return value;
}

/** kube's mutually exclusive sets: `--authorization-config` versus the mode and webhook flags. */
const LEGACY_AUTHORIZATION_FLAGS = [
  'authorizationMode',
  'authorizationWebhookConfigFile',
  'authorizationWebhookVersion',
  'authorizationWebhookCacheAuthorizedTtl',
  'authorizationWebhookCacheUnauthorizedTtl',
];

function featureGates(value: string): FeatureGates {
  try {
    return FeatureGates.parse(value);
  } catch (err) {
    if (err instanceof FeatureGateError) throw new InvalidArgumentError(err.message);
    throw err;
  }
}

function program(): Command {
  const d = defaultOptions();
  return new Command('platform-authz-apiserver')
    .description('A Kubernetes-compatible authorization API server')
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined })
    .allowExcessArguments(false)
    .addOption(new Option('--secure-port <port>', 'HTTPS port (0 = any free port)').argParser(integer(0, 65535)).default(d.securePort))
    .addOption(new Option('--bind-address <ip>', 'address to listen on').default(d.bindAddress))
    .addOption(new Option('--tls-cert-file <file>', 'serving certificate (PEM); generated into the data dir when unset'))
    .addOption(new Option('--tls-private-key-file <file>', 'serving private key (PEM)'))
    .addOption(new Option('--client-ca-file <file>', 'CAs whose client certificates authenticate callers'))
    .addOption(new Option('--data-dir <dir>', 'certificates, admin kubeconfig and the embedded database').default(d.dataDir))
    .addOption(new Option('--database-url <url>', 'PostgreSQL URL (default: $DATABASE_URL, else the embedded store)'))
    .addOption(
      new Option('--history-window <duration>', 'how long superseded versions are kept for watch and paging')
        .argParser(parseDurationSeconds)
        .default(d.historyWindowSeconds, '5m'),
    )
    .addOption(
      new Option('--watch-cache-size-bytes <bytes>', 'memory for the recent changes watches replay from; older ones are read from the store')
        .argParser(integer(0, Number.MAX_SAFE_INTEGER))
        .default(d.watchCacheSizeBytes),
    )
    .addOption(new Option('--token-auth-file <file>', 'static bearer tokens: CSV token,user,uid,"group1,group2"'))
    .addOption(new Option('--anonymous-auth [bool]', 'requests without credentials run as system:anonymous').argParser(bool).default(true))
    .addOption(
      new Option('--authorization-mode <modes>', `ordered authorizers: ${SUPPORTED_AUTHORIZATION_MODES.join(', ')}`)
        .argParser(modes)
        .default(d.authorizationModes, d.authorizationModes.join(',')),
    )
    .addOption(
      new Option(
        '--authorization-config <file>',
        'AuthorizationConfiguration file (YAML or JSON) with the authorizer chain, reloaded on change; requires feature gate StructuredAuthorizationConfiguration; excludes --authorization-mode and --authorization-webhook-*',
      ),
    )
    .addOption(new Option('--authorization-webhook-config-file <file>', 'kubeconfig of the webhook of --authorization-mode=Webhook'))
    .addOption(
      new Option('--authorization-webhook-version <version>', 'SubjectAccessReview version sent to the webhook: v1beta1 or v1')
        .argParser(webhookVersion)
        .default(d.authorizationWebhook.version),
    )
    .addOption(
      new Option('--authorization-webhook-cache-authorized-ttl <duration>', "how long the webhook's allow answers are cached")
        .argParser(goDuration)
        .default(d.authorizationWebhook.cacheAuthorizedTTLMs, '5m0s'),
    )
    .addOption(
      new Option('--authorization-webhook-cache-unauthorized-ttl <duration>', "how long the webhook's other answers are cached")
        .argParser(goDuration)
        .default(d.authorizationWebhook.cacheUnauthorizedTTLMs, '30s'),
    )
    .addOption(new Option('--authorization-policy-file <file>', 'ABAC policy file, one JSON Policy per line (with --authorization-mode=ABAC)'))
    .addOption(
      new Option('--enable-admission-plugins <plugins>', `admission plugins to enable besides the default NamespaceLifecycle: ${ADMISSION_PLUGINS.join(', ')}`)
        .argParser(admissionPlugins)
        .default(d.enableAdmissionPlugins, ''),
    )
    .addOption(
      new Option('--max-request-bytes <bytes>', 'largest request body accepted')
        .argParser(integer(1024, 1024 * 1024 * 1024))
        .default(DEFAULT_MAX_REQUEST_BYTES),
    )
    .addOption(
      new Option('--feature-gates <gates>', `comma list of Name=true|false; known gates: ${Object.keys(KNOWN_FEATURES).join(', ')}`)
        .argParser(featureGates)
        .default(FeatureGates.defaults(), ''),
    )
    .addOption(new Option('--migrate-only', 'apply database migrations and exit'));
}

/** Parses kube-apiserver style flags into ServerOptions; throws FlagError or HelpRequested. */
export function parseServerFlags(argv: string[], env: NodeJS.ProcessEnv): ServerOptions {
  const cmd = program();
  if (argv.includes('--help') || argv.includes('-h')) throw new HelpRequested(cmd.helpInformation());
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) throw new FlagError(err.message.replace(/^error: /, ''));
    throw err;
  }
  const o = cmd.opts();
  if (!!o.tlsCertFile !== !!o.tlsPrivateKeyFile) throw new FlagError('--tls-cert-file and --tls-private-key-file must be given together');
  if (o.historyWindow <= 0) throw new FlagError('--history-window must be positive');
  // kube's BuiltInAuthorizationOptions.Validate: the configuration file excludes the legacy
  // flags; without it, the policy file goes with mode ABAC and the webhook file with Webhook.
  if (o.authorizationConfig) {
    if (!(o.featureGates as FeatureGates).enabled('StructuredAuthorizationConfiguration')) {
      throw new FlagError('--authorization-config cannot be used without enabling StructuredAuthorizationConfiguration feature flag');
    }
    if (LEGACY_AUTHORIZATION_FLAGS.some((flag) => cmd.getOptionValueSource(flag) === 'cli')) {
      throw new FlagError('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
    }
  } else {
    const abac = (o.authorizationMode as string[]).includes('ABAC');
    if (abac && !o.authorizationPolicyFile) throw new FlagError("authorization-mode ABAC's authorization policy file not passed");
    if (!abac && o.authorizationPolicyFile) throw new FlagError('cannot specify --authorization-policy-file without mode ABAC');
    const webhook = (o.authorizationMode as string[]).includes('Webhook');
    if (webhook && !o.authorizationWebhookConfigFile) throw new FlagError("authorization-mode Webhook's authorization config file not passed");
    if (!webhook && o.authorizationWebhookConfigFile) throw new FlagError('cannot specify --authorization-webhook-config-file without mode Webhook');
  }
  return defaultOptions({
    securePort: o.securePort,
    bindAddress: o.bindAddress,
    tlsCertFile: o.tlsCertFile,
    tlsPrivateKeyFile: o.tlsPrivateKeyFile,
    clientCaFile: o.clientCaFile,
    dataDir: o.dataDir,
    databaseUrl: o.databaseUrl ?? (env.DATABASE_URL || undefined),
    historyWindowSeconds: o.historyWindow,
    watchCacheSizeBytes: o.watchCacheSizeBytes,
    tokenAuthFile: o.tokenAuthFile,
    anonymousAuth: o.anonymousAuth,
    featureGates: o.featureGates,
    // With a configuration file there is no mode list (kube defaults to AlwaysAllow only without one).
    authorizationModes: o.authorizationConfig ? [] : o.authorizationMode,
    authorizationConfigFile: o.authorizationConfig,
    authorizationWebhook: {
      configFile: o.authorizationWebhookConfigFile,
      version: o.authorizationWebhookVersion,
      cacheAuthorizedTTLMs: o.authorizationWebhookCacheAuthorizedTtl,
      cacheUnauthorizedTTLMs: o.authorizationWebhookCacheUnauthorizedTtl,
    },
    authorizationPolicyFile: o.authorizationPolicyFile,
    enableAdmissionPlugins: o.enableAdmissionPlugins,
    maxRequestBodyBytes: o.maxRequestBytes,
    migrateOnly: !!o.migrateOnly,
  });
}
