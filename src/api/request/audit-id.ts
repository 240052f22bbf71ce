import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** kube's header carrying a request's audit ID, in both directions. */
export const AUDIT_ID_HEADER = 'Audit-ID';

const AUDIT_ID = Symbol('audit ID');

/**
 * The request's audit ID, made once per request: the caller's `Audit-ID` header when it sent
 * one (as kube's WithAuditInit honours it, so a front proxy's ID carries through), else a
 * new UUID. The response carries it back in the same header.
 */
export function auditIdOf(req: IncomingMessage): string {
  const holder = req as IncomingMessage & { [AUDIT_ID]?: string };
  let id = holder[AUDIT_ID];
  if (id === undefined) {
    const sent = req.headers['audit-id'];
    const given = (Array.isArray(sent) ? sent[0] : sent)?.trim();
    id = given ? given : randomUUID();
    holder[AUDIT_ID] = id;
  }
  return id;
}
