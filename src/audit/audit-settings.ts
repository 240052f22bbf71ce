import { closeSync, openSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadWebhookKubeconfig, WebhookConnection } from '../webhook-client/kubeconfig';
import { FlagError } from '../config/flags';
import { AuditBatchOptions, AuditMode, AuditOptions, AuditTruncateOptions } from '../config/options';
import { AuditLogFormat, BatchConfig } from './backends';
import { loadAuditPolicy, Policy } from './policy';
import { RotationLimits } from './rotating-file';
import { TruncateConfig } from './truncate';

export interface AuditLogSettings {
  /** A file, or `-` for stdout. */
  path: string;
  format: AuditLogFormat;
  mode: AuditMode;
  batch: BatchConfig;
  rotation: RotationLimits;
  /** Set with --audit-log-truncate-enabled. */
  truncate?: TruncateConfig;
}

export interface AuditWebhookSettings {
  connection: WebhookConnection;
  mode: AuditMode;
  batch: BatchConfig;
  initialBackoffMs: number;
  /** Set with --audit-webhook-truncate-enabled. */
  truncate?: TruncateConfig;
}

/** The audit configuration the server runs with, its files read and checked. */
export interface AuditSettings {
  policy: Policy;
  log?: AuditLogSettings;
  webhook?: AuditWebhookSettings;
}

export const AUDIT_SETTINGS = Symbol('AUDIT_SETTINGS');

function batchConfig(batch: AuditBatchOptions): BatchConfig {
  return {
    bufferSize: batch.bufferSize,
    maxBatchSize: batch.maxSize,
    maxBatchWaitMs: batch.maxWaitMs,
    throttleQps: batch.throttleEnable ? batch.throttleQps : 0,
    throttleBurst: batch.throttleBurst,
  };
}

function truncateConfig(truncate: AuditTruncateOptions): TruncateConfig | undefined {
  return truncate.enabled ? { maxBatchSize: truncate.maxBatchSize, maxEventSize: truncate.maxEventSize } : undefined;
}

/** The audit log file can be opened for appending (kube's ensureLogFile creates it, 0600). */
function ensureLogFile(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    closeSync(openSync(path, 'a', 0o600));
  } catch (err) {
    throw FlagError.about('--audit-log-path', `ensureLogFile: ${(err as Error).message}`);
  }
}

/**
 * Reads the policy and the webhook's kubeconfig, and opens the log file (the flags' values are
 * checked when they are read); null with a warning when nothing would be audited (no policy,
 * or no backend), as kube only logs then.
 */
export function loadAuditSettings(options: AuditOptions, warnings: string[]): AuditSettings | null {
  const backends = !!options.logPath || !!options.webhookConfigFile;
  if (!options.policyFile) {
    if (backends) warnings.push('No audit policy file provided, no events will be recorded for the audit backends');
    return null;
  }
  let policy: Policy;
  try {
    policy = loadAuditPolicy(options.policyFile);
  } catch (err) {
    throw FlagError.about('--audit-policy-file', (err as Error).message);
  }
  if (!backends) {
    warnings.push('--audit-policy-file is set but neither --audit-log-path nor --audit-webhook-config-file: no audit events will be recorded');
    return null;
  }
  const settings: AuditSettings = { policy };
  if (options.logPath) {
    if (options.logPath !== '-') ensureLogFile(options.logPath);
    settings.log = {
      path: options.logPath,
      format: options.logFormat,
      mode: options.logMode,
      batch: batchConfig(options.logBatch),
      rotation: { maxSizeMB: options.logMaxSize, maxBackups: options.logMaxBackup, maxAgeDays: options.logMaxAge, compress: options.logCompress },
      truncate: truncateConfig(options.logTruncate),
    };
  }
  if (options.webhookConfigFile) {
    let connection: WebhookConnection;
    try {
      connection = loadWebhookKubeconfig(options.webhookConfigFile);
    } catch (err) {
      throw FlagError.about('--audit-webhook-config-file', (err as Error).message);
    }
    settings.webhook = {
      connection,
      mode: options.webhookMode,
      batch: batchConfig(options.webhookBatch),
      initialBackoffMs: options.webhookInitialBackoffMs,
      truncate: truncateConfig(options.webhookTruncate),
    };
  }
  return settings;
}
