import { errors } from '../../apimachinery/errors';
import { FieldSelector } from '../../apimachinery/selectors/field-selector';
import { DurationSyntaxError, parseGoDuration } from '../../config/go-duration';

/** The window of findings and suggestions when none is asked for. */
export const DEFAULT_USAGE_WINDOW = '720h';

/** How long rule usage and refusals are kept after their last use: windows beyond it are refused. */
export const USAGE_RETENTION_MS = 90 * 24 * 3600 * 1000;

/** A window is a whole question about use: one older than the records is refused (400), never answered short. */
export function refuseBeyondRetention(where: string, window: string, windowMs: number): void {
  if (windowMs > USAGE_RETENTION_MS) {
    throw errors.badRequest(`${where}: window ${window} reaches beyond the usage retention of ${USAGE_RETENTION_MS / 3600_000}h: older use is not kept`);
  }
}

/**
 * The window a list of findings is about: the field selector `since=DURATION` (a Go duration
 * ending now, as an AccessSuggestion's spec.since), default 720h. Each finding carries it in
 * `since`, so the selector also matches what it selects. Malformed, not positive, `!=`, or
 * beyond the retention: 400.
 */
export function selectedWindow(field: FieldSelector | undefined): { since: string; windowMs: number } {
  if (field?.requirements.some((r) => r.field === 'since' && r.operator === 'NotEquals')) {
    throw errors.badRequest('fieldSelector since: a window is selected with since=DURATION, not excluded');
  }
  const since = field?.exactValue('since') ?? DEFAULT_USAGE_WINDOW;
  let windowMs: number;
  try {
    windowMs = parseGoDuration(since);
  } catch (err) {
    if (!(err instanceof DurationSyntaxError)) throw err;
    throw errors.badRequest(`fieldSelector since=${since}: ${err.message}`);
  }
  if (windowMs <= 0) throw errors.badRequest(`fieldSelector since=${since}: the window must be positive`);
  refuseBeyondRetention('fieldSelector since', since, windowMs);
  return { since, windowMs };
}
