import { fieldErrors, FieldError, FieldPath } from '../../apimachinery/field-errors';
import { isPlainObject } from '../../apimachinery/types';
import { jsonEqual } from '../../apimachinery/system-metadata';
import { parseGoDuration } from '../../config/go-duration';
import { AccessRequest, AccessRequestStatus, Condition, Decision } from './access-request-types';

/** What one write to the approval subresource decides. */
export type DecisionKind = 'approve' | 'deny' | 'revoke' | 'cancel';

export interface NewDecision {
  kind: DecisionKind;
  comment?: string;
  /** The path of the new entry, for field errors. */
  path: string;
}

const STATUS = FieldPath.root('status');
const MAX_COMMENT_LENGTH = 1024;

/** RFC 3339 to the second, as the binding window annotations and kube's metav1.Time are written. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function checkEntry(entry: unknown, path: FieldPath, caller: string, errs: FieldError[]): string | undefined {
  if (!isPlainObject(entry)) {
    errs.push(fieldErrors.invalid(path, entry, 'must be an object'));
    return undefined;
  }
  const { user, comment } = entry as Partial<Decision>;
  if (user !== undefined && user !== '' && user !== caller) {
    errs.push(fieldErrors.invalid(path.child('user'), user, `set by the server to the caller ("${caller}"); leave it empty`));
  }
  if (comment !== undefined && typeof comment !== 'string') errs.push(fieldErrors.invalid(path.child('comment'), comment, 'must be a string'));
  else if (typeof comment === 'string' && comment.length > MAX_COMMENT_LENGTH) errs.push(fieldErrors.tooLong(path.child('comment'), '', MAX_COMMENT_LENGTH));
  return typeof comment === 'string' && comment ? comment : undefined;
}

/**
 * The one decision a body adds to the stored status, as kube's CSR approval reads the
 * conditions a client appended: one more entry in status.approvals or status.denials, or a
 * status.revocation where there was none. Entries already recorded cannot change, and
 * `user` and `time` are the server's. Answers the field errors of a body that does not.
 *
 * `readEarlier`: the body names no resourceVersion, so it may come from an older read (a
 * client that appends and writes back, while another approver got in first): its new
 * entries are those it has that are not recorded, and recorded ones it lacks are not removals.
 */
export function newDecision(body: Record<string, unknown>, current: AccessRequest, caller: string, readEarlier = false): NewDecision | FieldError[] {
  const status = isPlainObject(body.status) ? (body.status as AccessRequestStatus) : {};
  const old = current.status ?? {};
  const errs: FieldError[] = [];
  const found: NewDecision[] = [];
  for (const [key, kind] of [
    ['approvals', 'approve'],
    ['denials', 'deny'],
  ] as const) {
    const path = STATUS.child(key);
    const given = status[key] ?? [];
    const recorded = old[key] ?? [];
    if (!Array.isArray(given)) {
      errs.push(fieldErrors.invalid(path, given, 'must be a list'));
      continue;
    }
    if (readEarlier) {
      given.forEach((entry, i) => {
        if (recorded.some((r) => jsonEqual(r, entry))) return;
        found.push({ kind, comment: checkEntry(entry, path.index(i), caller, errs), path: path.index(i).toString() });
      });
      continue;
    }
    if (given.length < recorded.length) errs.push(fieldErrors.forbidden(path, `recorded ${key} cannot be removed`));
    recorded.forEach((entry, i) => {
      if (i < given.length && !jsonEqual(given[i], entry)) errs.push(fieldErrors.forbidden(path.index(i), `recorded ${key} cannot be changed`));
    });
    given.slice(recorded.length).forEach((entry, j) => {
      const entryPath = path.index(recorded.length + j);
      found.push({ kind, comment: checkEntry(entry, entryPath, caller, errs), path: entryPath.toString() });
    });
  }
  for (const [key, kind] of [
    ['revocation', 'revoke'],
    ['cancellation', 'cancel'],
  ] as const) {
    const given = status[key];
    if (given === undefined || given === null) continue;
    const path = STATUS.child(key);
    // One made since an earlier read is this caller's decision too late: the phase check refuses it (409).
    if (!old[key] || (readEarlier && !jsonEqual(given, old[key]))) found.push({ kind, comment: checkEntry(given, path, caller, errs), path: path.toString() });
    else if (!jsonEqual(given, old[key])) errs.push(fieldErrors.forbidden(path, `a recorded ${key} cannot be changed`));
  }
  if (errs.length) return errs;
  if (found.length === 0) return [fieldErrors.required(STATUS, 'add one approval (status.approvals), denial (status.denials) or a status.revocation')];
  if (found.length > 1) return [fieldErrors.forbidden(STATUS, 'one decision per write: add a single approval, denial or revocation')];
  return found[0];
}

/** Sets a condition, keeping its lastTransitionTime when its status does not change (kube's meta.SetStatusCondition). */
export function setCondition(status: AccessRequestStatus, condition: Omit<Condition, 'lastTransitionTime'>, now: number): void {
  const conditions = (status.conditions ??= []);
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) {
    conditions.push({ ...condition, lastTransitionTime: rfc3339(now) });
    return;
  }
  if (existing.status !== condition.status) existing.lastTransitionTime = rfc3339(now);
  existing.status = condition.status;
  existing.reason = condition.reason;
  existing.message = condition.message;
}

/**
 * The status after a decision. The clock of the access starts at the final approval:
 * validFrom is that moment, validUntil validFrom plus the requested duration.
 */
export function decide(request: AccessRequest, decision: { kind: DecisionKind; user: string; comment?: string }, requiredApprovals: number, now: number): AccessRequestStatus {
  const status: AccessRequestStatus = structuredClone(request.status ?? {});
  const entry: Decision = { user: decision.user, time: rfc3339(now) };
  if (decision.comment) entry.comment = decision.comment;
  switch (decision.kind) {
    case 'approve': {
      const approvals = (status.approvals ??= []);
      approvals.push(entry);
      const approvers = new Set(approvals.map((a) => a.user)).size;
      if (approvers >= requiredApprovals) {
        const from = Math.floor(now / 1000) * 1000;
        status.phase = 'Approved';
        status.validFrom = rfc3339(from);
        status.validUntil = rfc3339(from + parseGoDuration(request.spec.duration));
        setCondition(status, { type: 'Approved', status: 'True', reason: 'Approved', message: `approved by ${[...new Set(approvals.map((a) => a.user))].join(', ')}` }, now);
      } else {
        setCondition(status, { type: 'Approved', status: 'False', reason: 'AwaitingApprovals', message: `${approvers} of ${requiredApprovals} approvals` }, now);
      }
      break;
    }
    case 'deny':
      (status.denials ??= []).push(entry);
      status.phase = 'Denied';
      setCondition(status, { type: 'Denied', status: 'True', reason: 'Denied', message: `denied by ${decision.user}${decision.comment ? `: ${decision.comment}` : ''}` }, now);
      break;
    case 'cancel':
      status.cancellation = entry;
      status.phase = 'Canceled';
      setCondition(status, { type: 'Canceled', status: 'True', reason: 'Canceled', message: `canceled by ${decision.user}${decision.comment ? `: ${decision.comment}` : ''}` }, now);
      break;
    case 'revoke':
      status.revocation = entry;
      status.phase = 'Revoked';
      setCondition(status, { type: 'Revoked', status: 'True', reason: 'Revoked', message: `revoked by ${decision.user}${decision.comment ? `: ${decision.comment}` : ''}` }, now);
      break;
  }
  return status;
}
