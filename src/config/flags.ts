import { Command, CommanderError, Option } from 'commander';
import { isIP } from 'node:net';
import { DurationSyntaxError, parseGoDuration } from './go-duration';
import { FeatureGates, KNOWN_FEATURES } from './feature-gates';
import { DEFAULT_MAX_REQUEST_BYTES, defaultOptions, ServerOptions } from './options';

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

/** Admission plugins this server has; NamespaceLifecycle is on by default, as in kube. */
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

/** A flag as kube-apiserver defines one. */
interface FlagSpec {
  name: string;
  /** pflag's name for the value in the help: `int`, `string`, `duration`, ...; `bool` shows none. */
  type: string;
  /** The help section. */
  group: string;
  usage: string;
  /** Reads the value; throws an Error saying what is wrong with it. */
  parse: (value: string) => unknown;
  default?: unknown;
  /** The default as kube prints it; none for a zero value. */
  shown?: string;
}

/** A commander option for a flag; a bad value is a FlagError in pflag's words, naming the flag. */
function flag(spec: FlagSpec): Option {
  const option = new Option(spec.type === 'bool' ? `--${spec.name} [bool]` : `--${spec.name} <${spec.type}>`, spec.usage)
    .helpGroup(spec.group)
    .argParser((value: string) => {
      try {
        return spec.parse(value);
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
      name: 'enable-admission-plugins',
      type: 'strings',
      group: ADMISSION,
      usage: `Admission plugins to enable besides the always-on NamespaceLifecycle: ${ADMISSION_PLUGINS.join(', ')}.`,
      parse: admissionPlugins,
      default: d.enableAdmissionPlugins,
    },
    {
      name: 'feature-gates',
      type: 'mapStringBool',
      group: GENERIC,
      usage: `Comma list of Name=true|false. Known gates: ${Object.keys(KNOWN_FEATURES).sort().join(', ')}.`,
      parse: (value) => FeatureGates.parse(value),
      default: FeatureGates.defaults(),
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
      name: 'migrate-only',
      type: 'bool',
      group: GENERIC,
      usage: 'Apply the database migrations and exit.',
      parse: bool,
    },
  ];
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
  authorizationMode: string[];
  authorizationConfig?: string;
  authorizationPolicyFile?: string;
  authorizationWebhookConfigFile?: string;
  authorizationWebhookVersion: ServerOptions['authorizationWebhook']['version'];
  authorizationWebhookCacheAuthorizedTtl: number;
  authorizationWebhookCacheUnauthorizedTtl: number;
  enableAdmissionPlugins: string[];
  maxRequestBytes: number;
  kubectlReviewAliases: boolean;
  migrateOnly?: boolean;
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
  return cmd;
}

/** pflag's usage layout: `--name type   usage (default x)`, by section, names aligned. */
function helpText(cmd: Command): string {
  const sections = new Map<string, Array<[string, string]>>();
  for (const option of cmd.options) {
    const type = /<(\w+)>/.exec(option.flags)?.[1];
    const term = `--${option.name()}${type ? ` ${type}` : ''}`;
    const shown = option.defaultValueDescription;
    const usage = shown ? `${option.description} (default ${shown})` : option.description;
    const group = option.helpGroupHeading ?? GENERIC;
    sections.set(group, [...(sections.get(group) ?? []), [term, usage]]);
  }
  const lines = [cmd.description(), '', 'Usage:', `  ${COMMAND} [flags]`, ''];
  for (const [heading, rows] of sections) {
    const width = Math.max(...rows.map(([term]) => term.length));
    lines.push(heading, '', ...rows.map(([term, usage]) => `      ${term.padEnd(width)}   ${usage}`), '');
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
  return defaultOptions({
    securePort: o.securePort,
    bindAddress: o.bindAddress,
    tlsCertFile: o.tlsCertFile,
    tlsPrivateKeyFile: o.tlsPrivateKeyFile,
    clientCaFile: o.clientCaFile,
    dataDir: o.dataDir,
    databaseUrl,
    embeddedFsync: o.embeddedFsync,
    embeddedSharedBuffersBytes: o.embeddedSharedBuffers,
    historyWindowSeconds: o.historyWindow / 1000,
    watchCacheSizeBytes: o.watchCacheSizeBytes,
    tokenAuthFile: o.tokenAuthFile,
    anonymousAuth: given('anonymousAuth') ? o.anonymousAuth : undefined,
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
    kubectlReviewAliases: o.kubectlReviewAliases,
    migrateOnly: !!o.migrateOnly,
  });
}
