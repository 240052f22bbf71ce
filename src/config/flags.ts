import { Command, CommanderError, Option } from 'commander';
import { isIP } from 'node:net';
import { DurationSyntaxError, parseGoDuration } from '../authorization/config/go-duration';
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

/**
 * A flag. `type` is pflag's name for the value in the help (`int`, `string`, `duration`, ...;
 * none for booleans); `shown` is the default as kube prints it (none for a zero value).
 */
function flag(name: string, type: string, usage: string, group: string, parse: (value: string) => unknown, defaults?: { value: unknown; shown?: string }): Option {
  const option = new Option(type === 'bool' ? `--${name} [bool]` : `--${name} <${type}>`, usage).helpGroup(group).argParser(parse);
  return defaults ? option.default(defaults.value, defaults.shown) : option;
}

function program(): Command {
  const d = defaultOptions();
  const cmd = new Command(COMMAND)
    .description('A Kubernetes-compatible authorization API server: RBAC objects, access reviews, authentication and authorization of every request.')
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined })
    .helpOption(false)
    .configureHelp({ formatHelp: (command) => helpText(command) })
    .allowExcessArguments(false)
    .addOption(flag('bind-address', 'ip', 'The IP address (or host name) on which to listen for the --secure-port port.', SERVING, bindAddress, { value: d.bindAddress, shown: d.bindAddress }))
    .addOption(flag('secure-port', 'int', 'The port on which to serve HTTPS with authentication and authorization; 0 picks a free port.', SERVING, integer(0, 65535), { value: d.securePort, shown: String(d.securePort) }))
    .addOption(flag('tls-cert-file', 'string', 'File containing the x509 serving certificate (PEM), followed by any intermediate certificates. Without it a certificate is generated into --data-dir.', SERVING, path))
    .addOption(flag('tls-private-key-file', 'string', 'File containing the x509 private key matching --tls-cert-file.', SERVING, path))
    .addOption(flag('max-request-bytes', 'int', 'The largest request body accepted (413 beyond).', SERVING, integer(1024, 1024 * 1024 * 1024), { value: DEFAULT_MAX_REQUEST_BYTES, shown: String(DEFAULT_MAX_REQUEST_BYTES) }))
    .addOption(flag('data-dir', 'string', 'Directory of the generated certificates, the admin kubeconfig and the embedded database.', STORAGE, path, { value: d.dataDir, shown: JSON.stringify(d.dataDir) }))
    .addOption(flag('database-url', 'string', 'PostgreSQL URL (postgres://user:password@host:port/database). Defaults to $DATABASE_URL; unset, the embedded store in --data-dir is used.', STORAGE, path))
    .addOption(flag('embedded-fsync', 'bool', 'Whether the embedded store syncs each commit to disk, so that an acknowledged write survives a power loss. false is faster and survives only a crash of the server process.', STORAGE, bool, { value: d.embeddedFsync, shown: 'true' }))
    .addOption(flag('history-window', 'duration', 'How long superseded object versions are kept for watch and consistent paging.', STORAGE, goDuration, { value: d.historyWindowSeconds * 1000, shown: '5m0s' }))
    .addOption(flag('anonymous-auth', 'bool', 'Enables anonymous requests (user system:anonymous, group system:unauthenticated) to the secure port; requests not rejected by another authentication method are anonymous. Turned off when --authorization-mode includes AlwaysAllow.', AUTHENTICATION, bool, { value: d.anonymousAuth, shown: 'true' }))
    .addOption(flag('client-ca-file', 'string', 'File of certificate authorities (PEM) whose client certificates authenticate callers: common name as user name, organizations as groups. The --data-dir CA is always trusted.', AUTHENTICATION, path))
    .addOption(flag('token-auth-file', 'string', 'File of static bearer tokens, CSV: token,user,uid,"group1,group2".', AUTHENTICATION, path))
    .addOption(flag('authorization-mode', 'strings', `Ordered list of authorizers: ${SUPPORTED_AUTHORIZATION_MODES.join(', ')}. Not with --authorization-config.`, AUTHORIZATION, modes, { value: d.authorizationModes, shown: `[${d.authorizationModes.join(',')}]` }))
    .addOption(flag('authorization-config', 'string', 'File with an AuthorizationConfiguration (YAML or JSON): the authorizer chain, reloaded on change. Needs feature gate StructuredAuthorizationConfiguration; not with --authorization-mode or --authorization-webhook-*.', AUTHORIZATION, path))
    .addOption(flag('authorization-policy-file', 'string', 'File with the ABAC policy, one JSON Policy per line; with --authorization-mode=ABAC.', AUTHORIZATION, path))
    .addOption(flag('authorization-webhook-config-file', 'string', 'File in kubeconfig format with the webhook of --authorization-mode=Webhook.', AUTHORIZATION, path))
    .addOption(flag('authorization-webhook-version', 'string', 'The SubjectAccessReview version sent to the webhook: v1beta1 or v1.', AUTHORIZATION, webhookVersion, { value: d.authorizationWebhook.version, shown: JSON.stringify(d.authorizationWebhook.version) }))
    .addOption(flag('authorization-webhook-cache-authorized-ttl', 'duration', "How long the webhook's allow answers are cached.", AUTHORIZATION, goDuration, { value: d.authorizationWebhook.cacheAuthorizedTTLMs, shown: '5m0s' }))
    .addOption(flag('authorization-webhook-cache-unauthorized-ttl', 'duration', "How long the webhook's other answers are cached.", AUTHORIZATION, goDuration, { value: d.authorizationWebhook.cacheUnauthorizedTTLMs, shown: '30s' }))
    .addOption(flag('enable-admission-plugins', 'strings', `Admission plugins to enable besides the always-on NamespaceLifecycle: ${ADMISSION_PLUGINS.join(', ')}.`, ADMISSION, admissionPlugins, { value: d.enableAdmissionPlugins }))
    .addOption(flag('feature-gates', 'mapStringBool', `Comma list of Name=true|false. Known gates: ${Object.keys(KNOWN_FEATURES).sort().join(', ')}.`, GENERIC, (value) => FeatureGates.parse(value), { value: FeatureGates.defaults() }))
    .addOption(flag('migrate-only', 'bool', 'Apply the database migrations and exit.', GENERIC, bool));
  // One place adds the flag's name to every value error, in pflag's words.
  for (const option of cmd.options) {
    const parse = option.parseArg;
    if (!parse) continue;
    option.argParser((value: string, previous: unknown) => {
      try {
        return parse(value, previous);
      } catch (err) {
        throw new FlagError(`invalid argument ${JSON.stringify(value)} for "${option.long}" flag: ${(err as Error).message}`);
      }
    });
  }
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
  const o = cmd.opts();
  const given = (key: string) => cmd.getOptionValueSource(key) === 'cli';
  if (!!o.tlsCertFile !== !!o.tlsPrivateKeyFile) throw new FlagError('--tls-cert-file and --tls-private-key-file must be given together');
  if (o.historyWindow <= 0) throw new FlagError('--history-window must be positive');
  const databaseUrl: string | undefined = o.databaseUrl ?? (env.DATABASE_URL || undefined);
  if (databaseUrl && given('embeddedFsync')) {
    throw new FlagError('--embedded-fsync applies to the embedded store only; with --database-url the PostgreSQL server decides how commits reach its disk');
  }
  // kube's BuiltInAuthorizationOptions.Validate: the configuration file excludes the legacy
  // flags; without it, the policy file goes with mode ABAC and the webhook file with Webhook.
  if (o.authorizationConfig) {
    if (!(o.featureGates as FeatureGates).enabled('StructuredAuthorizationConfiguration')) {
      throw new FlagError('--authorization-config cannot be used without enabling StructuredAuthorizationConfiguration feature flag');
    }
    if (LEGACY_AUTHORIZATION_FLAGS.some(given)) {
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
    databaseUrl,
    embeddedFsync: o.embeddedFsync,
    historyWindowSeconds: o.historyWindow / 1000,
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
