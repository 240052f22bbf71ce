import type { AuditLevel } from './audit-context';
import { readConfigFile } from '../config/config-file';
import type * as PolicySchemaModule from './policy-schema';

/**
 * kube's audit Policy (`audit.k8s.io/v1`, here `audit.platform.io/v1`): an ordered list of
 * rules, the first matching one giving a request its level. Its shape and checks are in
 * policy-schema.ts, loaded with the first policy read.
 */

export const AUDIT_GROUP = 'audit.platform.io';
export const AUDIT_VERSION = 'v1';
export const AUDIT_API_VERSION = `${AUDIT_GROUP}/${AUDIT_VERSION}`;

export const AUDIT_LEVELS: AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';
export const AUDIT_STAGES: AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

export type { GroupResources, Policy, PolicyRule } from './policy-schema';

let policySchema: typeof PolicySchemaModule | undefined;

/**
 * The policy's schema classes, and class-validator and class-transformer with them (some
 * 350 files), load with the first policy read: a server without --audit-policy-file never needs them.
 */
function schema(): typeof PolicySchemaModule {
  return (policySchema ??= require('./policy-schema') as typeof PolicySchemaModule);
}

/** A policy from the text of a file (YAML or JSON); throws an Error in kube's words. */
export function parseAuditPolicy(text: string): PolicySchemaModule.Policy {
  return schema().parseAuditPolicy(text);
}

/** `--audit-policy-file`, read and checked (kube's LoadPolicyFromFile wording). */
export function loadAuditPolicy(path: string): PolicySchemaModule.Policy {
  const text = readConfigFile(path);
  try {
    return parseAuditPolicy(text);
  } catch (err) {
    throw new Error(`loading audit policy file: ${(err as Error).message}: from file ${path}`);
  }
}
