import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { isDNS1123Subdomain } from '../../apimachinery/validation/names';
import { formatGoDuration } from '../../config/go-duration';
import {
  AUTHORIZER_TYPES,
  AuthorizationConfiguration,
  CONNECTION_IN_CLUSTER,
  CONNECTION_KUBECONFIG_ALIAS,
  CONNECTION_KUBECONFIG_FILE,
  REPEATABLE_AUTHORIZER_TYPES,
  WebhookConfiguration,
} from './types';

/** kube's limit on match conditions per webhook. */
export const MAX_MATCH_CONDITIONS = 64;
/** kube's limit on a webhook call. */
export const MAX_WEBHOOK_TIMEOUT_MS = 30_000;

/** Compiles one match-condition expression; throws an error with `type` Required/Invalid and `detail`. */
export type MatchConditionCompiler = (expression: string) => void;

interface CompileFailure {
  type?: string;
  detail?: string;
  message: string;
}

/** Go's os.Stat error text for the common failures. */
function statError(path: string, err: NodeJS.ErrnoException): string {
  const reasons: Record<string, string> = { ENOENT: 'no such file or directory', EACCES: 'permission denied', ENOTDIR: 'not a directory' };
  return `stat ${path}: ${reasons[err.code ?? ''] ?? err.message}`;
}

function validateConnection(path: FieldPath, info: WebhookConfiguration['connectionInfo']): FieldError[] {
  const typePath = path.child('connectionInfo').child('type');
  const filePath = path.child('connectionInfo').child('kubeConfigFile');
  switch (info.type) {
    case '':
      return [fieldErrors.required(typePath)];
    case CONNECTION_IN_CLUSTER:
      if (info.kubeConfigFile !== undefined) return [fieldErrors.invalid(filePath, info.kubeConfigFile, 'can only be set when type=KubeConfigFile')];
      // kube documents InClusterConfig as not allowed for the API server: it would call itself.
      return [fieldErrors.invalid(typePath, info.type, 'InClusterConfig is not allowed for the API server (it would call itself); use KubeConfigFile')];
    case CONNECTION_KUBECONFIG_FILE:
    case CONNECTION_KUBECONFIG_ALIAS: {
      const file = info.kubeConfigFile;
      if (!file) return [fieldErrors.required(filePath)];
      if (!isAbsolute(file)) return [fieldErrors.invalid(filePath, file, 'must be an absolute path')];
      try {
        if (!statSync(file).isFile()) return [fieldErrors.invalid(filePath, file, 'must be a regular file')];
      } catch (err) {
        return [fieldErrors.invalid(filePath, file, `error loading file: ${statError(file, err as NodeJS.ErrnoException)}`)];
      }
      return [];
    }
    default:
      return [fieldErrors.notSupported(typePath, info.type, [CONNECTION_IN_CLUSTER, CONNECTION_KUBECONFIG_FILE])];
  }
}

function validateMatchConditions(path: FieldPath, webhook: WebhookConfiguration, compile: MatchConditionCompiler): FieldError[] {
  const conditions = webhook.matchConditions;
  if (conditions.length > MAX_MATCH_CONDITIONS) {
    return [{ type: 'FieldValueTooMany', field: path.child('matchConditions').toString(), badValue: conditions.length, detail: `must have at most ${MAX_MATCH_CONDITIONS} items` }];
  }
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  conditions.forEach((condition, i) => {
    const exprPath = path.child('matchConditions').index(i).child('expression');
    if (condition.expression.trim() === '') {
      errs.push(fieldErrors.required(exprPath));
      return;
    }
    if (seen.has(condition.expression)) {
      errs.push(fieldErrors.duplicate(exprPath, condition.expression));
      return;
    }
    seen.add(condition.expression);
    try {
      compile(condition.expression);
    } catch (err) {
      const failure = err as CompileFailure;
      const detail = failure.detail ?? failure.message;
      errs.push(failure.type === 'Required' ? fieldErrors.required(exprPath, detail) : fieldErrors.invalid(exprPath, condition.expression, detail));
    }
  });
  return errs;
}

/**
 * kube's ValidateWebhookConfiguration. Note kube's paths: webhook fields hang directly off
 * the authorizer (`authorizers[0].timeout`), not off `authorizers[0].webhook`.
 */
export function validateWebhookConfiguration(path: FieldPath, webhook: WebhookConfiguration, compile: MatchConditionCompiler): FieldError[] {
  const errs: FieldError[] = [];
  if (webhook.timeoutMs === 0) errs.push(fieldErrors.required(path.child('timeout')));
  else if (webhook.timeoutMs > MAX_WEBHOOK_TIMEOUT_MS || webhook.timeoutMs < 0) {
    errs.push(fieldErrors.invalid(path.child('timeout'), formatGoDuration(webhook.timeoutMs), 'must be > 0s and <= 30s'));
  }
  for (const [field, ms] of [['authorizedTTL', webhook.authorizedTTLMs], ['unauthorizedTTL', webhook.unauthorizedTTLMs]] as const) {
    if (ms === 0) errs.push(fieldErrors.required(path.child(field)));
    else if (ms < 0) errs.push(fieldErrors.invalid(path.child(field), formatGoDuration(ms), 'must be > 0s'));
  }
  const sarVersion = webhook.subjectAccessReviewVersion;
  if (sarVersion === '') errs.push(fieldErrors.required(path.child('subjectAccessReviewVersion')));
  else if (sarVersion !== 'v1' && sarVersion !== 'v1beta1') errs.push(fieldErrors.notSupported(path.child('subjectAccessReviewVersion'), sarVersion, ['v1', 'v1beta1']));
  const matchVersion = webhook.matchConditionSubjectAccessReviewVersion;
  if (matchVersion === '') {
    if (webhook.matchConditions.length > 0) {
      errs.push(fieldErrors.required(path.child('matchConditionSubjectAccessReviewVersion'), 'required if match conditions are specified'));
    }
  } else if (matchVersion !== 'v1') errs.push(fieldErrors.notSupported(path.child('matchConditionSubjectAccessReviewVersion'), matchVersion, ['v1']));
  const policy = webhook.failurePolicy;
  if (policy === '') errs.push(fieldErrors.required(path.child('failurePolicy')));
  else if (policy !== 'NoOpinion' && policy !== 'Deny') errs.push(fieldErrors.notSupported(path.child('failurePolicy'), policy, ['NoOpinion', 'Deny']));
  errs.push(...validateConnection(path, webhook.connectionInfo));
  errs.push(...validateMatchConditions(path, webhook, compile));
  return errs;
}

/** kube's ValidateAuthorizationConfiguration with kube-apiserver's known and repeatable types. */
export function validateAuthorizationConfiguration(config: AuthorizationConfiguration, compile: MatchConditionCompiler): FieldError[] {
  const errs: FieldError[] = [];
  const root = FieldPath.root('authorizers');
  if (config.authorizers.length === 0) errs.push(fieldErrors.required(root, 'at least one authorization mode must be defined'));
  const knownTypes = [...AUTHORIZER_TYPES].sort();
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  config.authorizers.forEach((authorizer, i) => {
    const path = root.index(i);
    const type = authorizer.type;
    if (type === '') {
      errs.push(fieldErrors.required(path.child('type')));
      return;
    }
    if (!knownTypes.includes(type)) {
      errs.push(fieldErrors.notSupported(path.child('type'), type, knownTypes));
      return;
    }
    if (seenTypes.has(type) && !REPEATABLE_AUTHORIZER_TYPES.includes(type)) {
      errs.push(fieldErrors.duplicate(path.child('type'), type));
      return;
    }
    seenTypes.add(type);
    const name = authorizer.name;
    if (name === '') errs.push(fieldErrors.required(path.child('name')));
    else if (seenNames.has(name)) errs.push(fieldErrors.duplicate(path.child('name'), name));
    else {
      const nameErrs = isDNS1123Subdomain(name);
      if (nameErrs.length) errs.push(fieldErrors.invalid(path.child('name'), name, `authorizer name is invalid: ${nameErrs.join(', ')}`));
    }
    seenNames.add(name);
    if (type === 'Webhook') {
      if (!authorizer.webhook) errs.push(fieldErrors.required(path.child('webhook'), 'required when type=Webhook'));
      else errs.push(...validateWebhookConfiguration(path, authorizer.webhook, compile));
    } else if (authorizer.webhook) {
      errs.push(fieldErrors.invalid(path.child('webhook'), 'non-null', 'may only be specified when type=Webhook'));
    }
  });
  return errs;
}

/**
 * kube-apiserver's own checks after validation: a non-webhook authorizer is named after its
 * type in lower case, and (on reload) every non-webhook type in force at start must remain.
 */
export function validateServerRequirements(config: AuthorizationConfiguration, requiredNonWebhookTypes: ReadonlySet<string>): string[] {
  const errs: string[] = [];
  const seen = new Set<string>();
  for (const authorizer of config.authorizers) {
    if (authorizer.type === 'Webhook') continue;
    seen.add(authorizer.type);
    const expected = authorizer.type.toLowerCase();
    if (authorizer.name !== expected) errs.push(`expected name ${expected} for authorizer ${authorizer.type} instead of ${authorizer.name}`);
  }
  const missing = [...requiredNonWebhookTypes].filter((t) => !seen.has(t)).sort();
  if (missing.length) errs.push(`missing required types: [${missing.join(' ')}]`);
  return errs;
}
