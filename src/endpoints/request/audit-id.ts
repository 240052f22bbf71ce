import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** kube's header: the request's audit ID, sent back on every response and named in every log line and audit event. */
export const AUDIT_ID_HEADER = 'Audit-ID';

/** kube refuses longer IDs from clients and makes its own. */
const MAX_AUDIT_ID_LENGTH = 128;
const CLIENT_AUDIT_ID = /^[\x21-\x7e]+$/;

const AUDIT_ID_REQUEST_HEADER = AUDIT_ID_HEADER.toLowerCase();

/**
 * The request's audit ID (the request chain's first stage keeps it in the scope): the
 * client's `Audit-ID` header when it sent a usable one (as kube does, so a proxy can
 * correlate), else a new UUID. The response carries it in `Audit-ID` unless something
 * already set that header.
 */
export function assignAuditId(req: IncomingMessage, res: ServerResponse): string {
  const sent = req.headers[AUDIT_ID_REQUEST_HEADER];
  const given = typeof sent === 'string' ? sent.trim() : '';
  const auditId = given.length > 0 && given.length <= MAX_AUDIT_ID_LENGTH && CLIENT_AUDIT_ID.test(given) ? given : randomUUID();
  if (!res.headersSent && !res.hasHeader(AUDIT_ID_HEADER)) res.setHeader(AUDIT_ID_HEADER, auditId);
  return auditId;
}
