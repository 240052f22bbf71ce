import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { isPlainObject, KubeObject } from '../../apimachinery/types';
import { RBAC_GROUP } from './types';

/**
 * Time-bound bindings: a RoleBinding or ClusterRoleBinding may carry the annotations
 * `valid-from` and `valid-until` (RFC 3339). Outside that window the binding grants
 * nothing; the check is made at each decision against the clock, so a binding starts and
 * stops granting on the second, with no controller involved.
 */

export const VALID_FROM_ANNOTATION = `${RBAC_GROUP}/valid-from`;
export const VALID_UNTIL_ANNOTATION = `${RBAC_GROUP}/valid-until`;

/** When a binding may grant: from `validFrom` (inclusive) until `validUntil` (exclusive), in ms since the epoch. */
export interface BindingWindow {
  validFrom?: number;
  validUntil?: number;
}

export type WindowState = 'active' | 'not-yet-valid' | 'expired';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/** An RFC 3339 timestamp (`2026-01-02T03:04:05Z`, `...05.5+02:00`) in ms since the epoch, or undefined. */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (!m[8]) {
    const [offsetHours, offsetMins] = [Number(m[10]), Number(m[11])];
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  // Date.UTC maps two-digit years to 19xx: set the year separately.
  const utc = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  utc.setUTCFullYear(year);
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  return utc.getTime() + fraction - offsetMinutes * 60_000;
}

function annotationsOf(binding: KubeObject): Record<string, unknown> {
  const annotations = binding?.metadata?.annotations;
  return isPlainObject(annotations) ? annotations : {};
}

/**
 * The window a binding's annotations set. A value that does not parse (only possible for
 * objects stored before validation existed) closes that side: an unreadable limit must not
 * widen access.
 */
export function bindingWindow(binding: KubeObject): BindingWindow {
  const annotations = annotationsOf(binding);
  const read = (key: string, closed: number): number | undefined => {
    if (!Object.hasOwn(annotations, key)) return undefined;
    const value = annotations[key];
    return (typeof value === 'string' ? parseRfc3339(value) : undefined) ?? closed;
  };
  const validFrom = read(VALID_FROM_ANNOTATION, Number.POSITIVE_INFINITY);
  const validUntil = read(VALID_UNTIL_ANNOTATION, Number.NEGATIVE_INFINITY);
  return { ...(validFrom !== undefined ? { validFrom } : {}), ...(validUntil !== undefined ? { validUntil } : {}) };
}

/** Where `now` (ms since the epoch) falls in the window. */
export function windowState(window: BindingWindow, now: number): WindowState {
  if (window.validFrom !== undefined && now < window.validFrom) return 'not-yet-valid';
  if (window.validUntil !== undefined && now >= window.validUntil) return 'expired';
  return 'active';
}

/** The annotations' own text, for answers that show a binding's window. */
export function windowAnnotations(binding: KubeObject): { validFrom?: string; validUntil?: string } {
  const annotations = annotationsOf(binding);
  const text = (key: string) => (typeof annotations[key] === 'string' ? (annotations[key] as string) : undefined);
  const validFrom = text(VALID_FROM_ANNOTATION);
  const validUntil = text(VALID_UNTIL_ANNOTATION);
  return { ...(validFrom !== undefined ? { validFrom } : {}), ...(validUntil !== undefined ? { validUntil } : {}) };
}

const ANNOTATIONS_PATH = FieldPath.root('metadata').child('annotations');

/**
 * On update, as kube ratchets stricter validation: a window left exactly as it was stored
 * (before this validation existed) does not make every other change to the binding fail.
 */
export function validateBindingWindowUpdate(binding: KubeObject, old: KubeObject): FieldError[] {
  const next = annotationsOf(binding);
  const prev = annotationsOf(old);
  const unchanged = [VALID_FROM_ANNOTATION, VALID_UNTIL_ANNOTATION].every((key) => Object.hasOwn(next, key) === Object.hasOwn(prev, key) && next[key] === prev[key]);
  return unchanged ? [] : validateBindingWindow(binding);
}

/** The window annotations must be RFC 3339 timestamps, and `valid-from` before `valid-until`. */
export function validateBindingWindow(binding: KubeObject): FieldError[] {
  const annotations = annotationsOf(binding);
  const errs: FieldError[] = [];
  const parsed: Record<string, number | undefined> = {};
  for (const key of [VALID_FROM_ANNOTATION, VALID_UNTIL_ANNOTATION]) {
    if (!Object.hasOwn(annotations, key)) continue;
    const value = annotations[key];
    parsed[key] = typeof value === 'string' ? parseRfc3339(value) : undefined;
    if (parsed[key] === undefined) {
      errs.push(fieldErrors.invalid(ANNOTATIONS_PATH.key(key), value, 'must be an RFC 3339 timestamp (e.g. 2006-01-02T15:04:05Z)'));
    }
  }
  const from = parsed[VALID_FROM_ANNOTATION];
  const until = parsed[VALID_UNTIL_ANNOTATION];
  if (from !== undefined && until !== undefined && from >= until) {
    errs.push(fieldErrors.invalid(ANNOTATIONS_PATH.key(VALID_UNTIL_ANNOTATION), annotations[VALID_UNTIL_ANNOTATION], `must be after ${VALID_FROM_ANNOTATION}`));
  }
  return errs;
}
