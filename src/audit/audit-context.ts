import * as YAML from 'yaml';
import { isPlainObject, Status } from '../apimachinery/types';
import { deepClone } from '../apimachinery/system-metadata';

/**
 * What the layers below the audit stage tell the audit event of a request (kube's
 * audit.AddAuditAnnotation, LogRequestObject, LogResponseObject): annotations, the decoded
 * request, the response. The audit stage opens the record once the policy gave the request
 * a level, and the request's scope carries it; without a record (audit off, or level None)
 * every call here is a no-op.
 */

/** kube's audit levels, least to most. */
export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';

const LEVEL_ORDER: Record<AuditLevel, number> = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 };

export function levelAtLeast(level: AuditLevel, least: AuditLevel): boolean {
  return LEVEL_ORDER[level] >= LEVEL_ORDER[least];
}

/** The bounded fields of a Status an event keeps (kube copies exactly these). */
export interface AuditResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}

/** Identity fields of the object, from the request body (kube completes objectRef with them). */
export interface AuditObjectMeta {
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface AuditRecord {
  level: AuditLevel;
  annotations: Record<string, string>;
  objectMeta: AuditObjectMeta;
  requestObject?: unknown;
  responseObject?: unknown;
  responseStatus?: AuditResponseStatus;
  /** The request failed with an unexpected error (kube's Panic stage). */
  panicked: boolean;
  /** The verb of the constrained-impersonation mode that allowed the impersonated user (kube's authenticationMetadata). */
  impersonationConstraint?: string;
}

/** Opens the record of a request the policy audits at `level` (the audit stage calls it). */
export function openAuditRecord(level: AuditLevel): AuditRecord {
  return { level, annotations: {}, objectMeta: {}, panicked: false };
}

/** An annotation on the request's audit event; the first value of a key stays, as in kube. */
export function addAuditAnnotation(record: AuditRecord | undefined, key: string, value: string): void {
  if (record && !(key in record.annotations)) record.annotations[key] = value;
}

/** The constrained-impersonation verb that allowed the impersonation; legacy impersonation records nothing. */
export function recordImpersonationConstraint(record: AuditRecord | undefined, constraint: string): void {
  if (record && constraint) record.impersonationConstraint = constraint;
}

/** The decoded body of a create or update (or a patch as sent): identity always, body at Request level and above. */
export function recordRequestObject(record: AuditRecord | undefined, object: unknown): void {
  if (!record) return;
  if (isPlainObject(object) && isPlainObject(object.metadata)) {
    const meta = object.metadata;
    const pick = (key: string) => (typeof meta[key] === 'string' && meta[key] ? (meta[key] as string) : undefined);
    record.objectMeta = { namespace: pick('namespace'), name: pick('name'), uid: pick('uid'), resourceVersion: pick('resourceVersion') };
  }
  // A copy: the write goes on to change the object it decoded (kube encodes it here).
  if (levelAtLeast(record.level, 'Request')) record.requestObject = deepClone(object);
}

/** A patch as sent (kube logs the patch, not the patched object), at Request level and above. */
export function recordRequestPatch(record: AuditRecord | undefined, body: Buffer): void {
  if (!record || !levelAtLeast(record.level, 'Request')) return;
  const text = body.toString('utf8');
  try {
    record.requestObject = JSON.parse(text);
  } catch {
    try {
      // An apply patch may be YAML.
      record.requestObject = YAML.parse(text);
    } catch {
      record.requestObject = text;
    }
  }
}

/** A response body: a Status sets the event's responseStatus; the body itself is kept at RequestResponse. */
export function recordResponseObject(record: AuditRecord | undefined, object: unknown): void {
  if (!record) return;
  if (isPlainObject(object) && object.kind === 'Status') record.responseStatus = boundedStatus(object as unknown as Status);
  if (levelAtLeast(record.level, 'RequestResponse')) record.responseObject = object;
}

/** The Status of a failed request; `unexpected` marks an error the server did not foresee (kube's panic). */
export function recordResponseError(record: AuditRecord | undefined, status: Status, unexpected: boolean): void {
  if (!record) return;
  record.panicked ||= unexpected;
  recordResponseObject(record, status);
}

function boundedStatus(status: Status): AuditResponseStatus {
  const bounded: AuditResponseStatus = { metadata: {}, code: status.code };
  if (status.status) bounded.status = status.status;
  if (status.message) bounded.message = status.message;
  if (status.reason) bounded.reason = status.reason;
  if (status.details) bounded.details = status.details;
  return bounded;
}
