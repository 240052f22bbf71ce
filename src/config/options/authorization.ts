import { bool, commaList, duration, flag, FlagProblem, flagsOf, path, problem, ReplacingFile, replacingFileProblems, SECTION, setting, strings, subsystem, text } from './flag';

/** The names `--authorization-mode` accepts; each needs its module's authorizer factory at start. */
const SUPPORTED_AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'RBAC', 'Node', 'Webhook', 'Guardrail'];

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

/** The `--authorization-webhook-*` flags: the webhook of `--authorization-mode=...,Webhook` (kube's defaults). */
const webhookFlags = {
  configFile: flag({ name: 'authorization-webhook-config-file', ...path, usage: 'File in kubeconfig format with the webhook of --authorization-mode=Webhook.' }),
  version: flag({ name: 'authorization-webhook-version', ...text(webhookVersion), default: 'v1beta1', usage: 'The SubjectAccessReview version sent to the webhook: v1beta1 or v1.' }),
  /** 0: allow answers not cached. */
  cacheAuthorizedTTLMs: flag({ name: 'authorization-webhook-cache-authorized-ttl', ...duration, default: 5 * 60_000, usage: "How long the webhook's allow answers are cached." }),
  /** 0: other answers not cached. */
  cacheUnauthorizedTTLMs: flag({ name: 'authorization-webhook-cache-unauthorized-ttl', ...duration, default: 30_000, usage: "How long the webhook's other answers are cached." }),
};

/** --authorization-config, which stands for the mode and webhook flags (kube's mutually exclusive sets). */
const CONFIG_FILE: ReplacingFile = {
  flag: 'authorization-config',
  gate: 'StructuredAuthorizationConfiguration',
  gateOff: '--authorization-config cannot be used without enabling StructuredAuthorizationConfiguration feature flag',
  replaces: ['authorization-mode', ...flagsOf(webhookFlags).map((f) => f.name)],
  together: '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
};

/** kube's BuiltInAuthorizationOptions, and how decisions are made and counted. */
export const authorization = subsystem({
  section: SECTION.authorization,
  flags: {
    /** In order; none with --authorization-config. */
    authorizationModes: flag({
      name: 'authorization-mode',
      ...strings(modes),
      repeatable: false,
      default: ['Node', 'RBAC'],
      usage: `Ordered list of authorizers: ${SUPPORTED_AUTHORIZATION_MODES.join(', ')}. Not with --authorization-config.`,
    }),
    /** An AuthorizationConfiguration file, instead of the mode and webhook flags. */
    authorizationConfigFile: flag({
      name: 'authorization-config',
      ...path,
      usage:
        'File with an AuthorizationConfiguration (YAML or JSON): the authorizer chain, reloaded on change. Needs feature gate StructuredAuthorizationConfiguration; not with --authorization-mode or --authorization-webhook-*.',
    }),
    /** The ABAC policy file (required with mode ABAC). */
    authorizationPolicyFile: flag({ name: 'authorization-policy-file', ...path, usage: 'File with the ABAC policy, one JSON Policy per line; with --authorization-mode=ABAC.' }),
    authorizationWebhook: webhookFlags,
    /** Decisions wait until the indexes have the store's revision of their arrival. */
    consistentAuthorization: flag({
      name: 'consistent-authorization',
      ...bool,
      default: true,
      usage:
        "Decide only once the RBAC index and the Node graph have applied every change the store committed before the request arrived, on every replica (one read of the store's revision per batch of requests on PostgreSQL, none on the embedded store; 503 with Retry-After if they do not catch up within 3s). false decides from them as they are, which may lag another replica's writes by the change feed's delay.",
    }),
    /** The `--binding-usage-*` flags: which RBAC bindings grant, counted and flushed to the database. */
    bindingUsage: {
      recording: flag({
        name: 'binding-usage-recording',
        ...bool,
        default: true,
        usage: 'Count, per RoleBinding and ClusterRoleBinding, the requests and access reviews it allowed (served as access.platform.io/v1 bindingusages).',
      }),
      flushIntervalMs: flag({
        name: 'binding-usage-flush-interval',
        ...duration,
        default: 10_000,
        usage: 'How often the binding usage counted in memory is added to the database, in one statement. Must be positive.',
      }),
    },
    /** How often --authorization-config is re-read even without a change event (tests shorten it). */
    authorizationConfigReloadIntervalMs: setting(60_000),
  },
  validate(o, context) {
    const problems: FlagProblem[] = [];
    // kube's BuiltInAuthorizationOptions.Validate: the configuration file excludes the legacy
    // flags; without it, the policy file goes with mode ABAC and the webhook file with Webhook.
    if (o.authorizationConfigFile) problems.push(...replacingFileProblems(CONFIG_FILE, context));
    else {
      const abac = o.authorizationModes.includes('ABAC');
      if (abac && !o.authorizationPolicyFile) problems.push(problem("authorization-mode ABAC's authorization policy file not passed", 'authorization-mode', 'authorization-policy-file'));
      if (!abac && o.authorizationPolicyFile) problems.push(problem('cannot specify --authorization-policy-file without mode ABAC', 'authorization-mode', 'authorization-policy-file'));
      const webhook = o.authorizationModes.includes('Webhook');
      const webhookFile = o.authorizationWebhook.configFile;
      if (webhook && !webhookFile) problems.push(problem("authorization-mode Webhook's authorization config file not passed", 'authorization-mode', 'authorization-webhook-config-file'));
      if (!webhook && webhookFile) problems.push(problem('cannot specify --authorization-webhook-config-file without mode Webhook', 'authorization-mode', 'authorization-webhook-config-file'));
    }
    if (o.bindingUsage.flushIntervalMs <= 0) problems.push(problem('--binding-usage-flush-interval must be positive', 'binding-usage-flush-interval'));
    return problems;
  },
  // With a configuration file there is no mode list (kube defaults to AlwaysAllow only without one).
  complete: (o) => (o.authorizationConfigFile ? { ...o, authorizationModes: [] } : o),
});
