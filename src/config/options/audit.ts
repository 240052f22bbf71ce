import { bool, duration, flag, float32, FlagProblem, int, nonNegativeInt, OptionsOf, path, problem, SECTION, subsystem, text } from './flag';

/** How an audit backend gets events: kube's --audit-*-mode values. */
export type AuditMode = 'batch' | 'blocking' | 'blocking-strict';
const AUDIT_MODES: AuditMode[] = ['batch', 'blocking', 'blocking-strict'];

/** The one group and version audit events are serialized in (`--audit-{log,webhook}-version`). */
const AUDIT_GROUP_VERSIONS = ['audit.platform.io/v1'];

type Plugin = 'log' | 'webhook';

/** `--audit-{log,webhook}-mode`, in kube's words. */
function auditMode(plugin: Plugin) {
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
const count = nonNegativeInt((flag, n) => `${flag} ${n} can't be a negative number`);

const MODE_USAGE =
  'Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict.';

/** The batch flags of an audit backend (`--audit-{log,webhook}-batch-*`); kube's defaults, `batch` where they differ. */
function batchFlags(plugin: Plugin, batch: { maxSize: number; throttleEnable: boolean }) {
  const only = `Only used in batch mode.`;
  return {
    bufferSize: flag({ name: `audit-${plugin}-batch-buffer-size`, ...int(), default: 10_000, usage: `The size of the buffer to store events before batching and writing. ${only}` }),
    maxSize: flag({ name: `audit-${plugin}-batch-max-size`, ...int(), default: batch.maxSize, usage: `The maximum size of a batch. ${only}` }),
    maxWaitMs: flag({
      name: `audit-${plugin}-batch-max-wait`,
      ...duration,
      default: 30_000,
      usage: `The amount of time to wait before force writing the batch that hadn't reached the max size. ${only}`,
    }),
    throttleEnable: flag({ name: `audit-${plugin}-batch-throttle-enable`, ...bool, default: batch.throttleEnable, usage: `Whether batching throttling is enabled. ${only}` }),
    throttleQps: flag({ name: `audit-${plugin}-batch-throttle-qps`, ...float32, default: 10, usage: `Maximum average number of batches per second. ${only}` }),
    throttleBurst: flag({
      name: `audit-${plugin}-batch-throttle-burst`,
      ...int(),
      default: 15,
      usage: `Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. ${only}`,
    }),
  };
}

/** The truncate flags of an audit backend (`--audit-{log,webhook}-truncate-*`, sizes in bytes). */
function truncateFlags(plugin: Plugin) {
  return {
    enabled: flag({ name: `audit-${plugin}-truncate-enabled`, ...bool, default: false, usage: 'Whether event and batch truncating is enabled.' }),
    maxBatchSize: flag({
      name: `audit-${plugin}-truncate-max-batch-size`,
      ...int(),
      default: 10 * 1024 * 1024,
      usage:
        'Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size.',
    }),
    maxEventSize: flag({
      name: `audit-${plugin}-truncate-max-event-size`,
      ...int(),
      default: 100 * 1024,
      usage:
        "Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn't reduce the size enough, event is discarded.",
    }),
  };
}

/** kube's AuditOptions: the `--audit-*` flags, with kube's defaults. */
const auditFlags = {
  /** Nothing is audited without it. */
  policyFile: flag({ name: 'audit-policy-file', ...path, usage: 'Path to the file that defines the audit policy configuration (audit.platform.io/v1 Policy).' }),
  /** A file, or `-` for stdout. */
  logPath: flag({ name: 'audit-log-path', ...path, usage: "If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out." }),
  logFormat: flag({
    name: 'audit-log-format',
    ...text(auditLogFormat),
    default: 'json',
    usage: 'Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are legacy,json.',
  }),
  /** Days. */
  logMaxAge: flag({ name: 'audit-log-maxage', ...count, default: 0, usage: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.' }),
  logMaxBackup: flag({
    name: 'audit-log-maxbackup',
    ...count,
    default: 0,
    usage: "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files.",
  }),
  /** Megabytes. */
  logMaxSize: flag({ name: 'audit-log-maxsize', ...count, default: 0, usage: 'The maximum size in megabytes of the audit log file before it gets rotated (0: 100).' }),
  logCompress: flag({ name: 'audit-log-compress', ...bool, default: false, usage: 'If set, the rotated log files will be compressed using gzip.' }),
  logMode: flag({ name: 'audit-log-mode', ...text(auditMode('log')), default: 'blocking', usage: MODE_USAGE }),
  // The log backend has no request overhead: batches of one, no throttling (kube's defaults).
  logBatch: batchFlags('log', { maxSize: 1, throttleEnable: false }),
  logTruncate: truncateFlags('log'),
  logVersion: flag({ name: 'audit-log-version', ...text(auditGroupVersion), default: AUDIT_GROUP_VERSIONS[0], usage: 'API group and version used for serializing audit events written to log.' }),
  /** Kubeconfig of the webhook that receives EventLists. */
  webhookConfigFile: flag({ name: 'audit-webhook-config-file', ...path, usage: 'Path to a kubeconfig formatted file that defines the audit webhook configuration.' }),
  webhookInitialBackoffMs: flag({ name: 'audit-webhook-initial-backoff', ...duration, default: 10_000, usage: 'The amount of time to wait before retrying the first failed request.' }),
  webhookMode: flag({ name: 'audit-webhook-mode', ...text(auditMode('webhook')), default: 'batch', usage: MODE_USAGE }),
  webhookBatch: batchFlags('webhook', { maxSize: 400, throttleEnable: true }),
  webhookTruncate: truncateFlags('webhook'),
  webhookVersion: flag({
    name: 'audit-webhook-version',
    ...text(auditGroupVersion),
    default: AUDIT_GROUP_VERSIONS[0],
    usage: 'API group and version used for serializing audit events written to webhook.',
  }),
};

export type AuditOptions = OptionsOf<typeof auditFlags>;
export type AuditBatchOptions = AuditOptions['logBatch'];
export type AuditTruncateOptions = AuditOptions['logTruncate'];

/** kube's AuditBatchOptions.Validate, for a backend in batch mode. */
function validateBatch(plugin: Plugin, batch: AuditBatchOptions): FlagProblem[] {
  const problems: FlagProblem[] = [];
  const positive = (what: string, field: string, value: number) => {
    const name = `audit-${plugin}-batch-${field}`;
    if (value <= 0) problems.push(problem(`--${name}: invalid audit batch ${plugin} ${what} ${value}, must be a positive number`, name));
  };
  positive('buffer size', 'buffer-size', batch.bufferSize);
  positive('max batch size', 'max-size', batch.maxSize);
  if (batch.throttleEnable) {
    positive('throttle QPS', 'throttle-qps', batch.throttleQps);
    positive('throttle burst', 'throttle-burst', batch.throttleBurst);
  }
  return problems;
}

/** kube's AuditTruncateOptions.Validate, for an enabled backend (truncating on or not). */
function validateTruncate(plugin: Plugin, truncate: AuditTruncateOptions): FlagProblem[] {
  const { maxEventSize, maxBatchSize } = truncate;
  const [event, batch] = [`audit-${plugin}-truncate-max-event-size`, `audit-${plugin}-truncate-max-batch-size`];
  if (maxEventSize <= 0) return [problem(`--${event}: invalid audit truncate ${plugin} max event size ${maxEventSize}, must be a positive number`, event)];
  if (maxBatchSize < maxEventSize) {
    return [problem(`--${batch}: invalid audit truncate ${plugin} max batch size ${maxBatchSize}, must be greater than max event size (${maxEventSize})`, batch, event)];
  }
  return [];
}

/** kube's AuditOptions.Validate: the batch and truncate settings of each backend that is on. */
export function validateAudit(o: AuditOptions): FlagProblem[] {
  const problems: FlagProblem[] = [];
  if (o.logPath) {
    if (o.logMode === 'batch') problems.push(...validateBatch('log', o.logBatch));
    problems.push(...validateTruncate('log', o.logTruncate));
  }
  if (o.webhookConfigFile) {
    if (o.webhookMode === 'batch') problems.push(...validateBatch('webhook', o.webhookBatch));
    problems.push(...validateTruncate('webhook', o.webhookTruncate));
  }
  return problems;
}

export const audit = subsystem({
  section: SECTION.auditing,
  flags: { audit: auditFlags },
  validate: (o) => validateAudit(o.audit),
});
