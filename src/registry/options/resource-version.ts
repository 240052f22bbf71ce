import { errors } from '../../apimachinery/errors';

/**
 * The resource-version semantics of get, list and watch (the conventions' tables), as a
 * pure function of the query so every row of the table is unit-tested.
 */
export type ReadSemantics =
  | { kind: 'MostRecent' }
  | { kind: 'Any' }
  | { kind: 'NotOlderThan'; revision: string }
  | { kind: 'Exact'; revision: string }
  | { kind: 'Continue'; token: string };

export interface ListQuery {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
}

/** A revision as the client sent it: decimal digits, no sign, not empty. */
export function parseRevision(value: string): string {
  if (!/^\d+$/.test(value) || value.length > 19) throw errors.badRequest(`invalid resource version: ${JSON.stringify(value)}`);
  return value.replace(/^0+(?=\d)/, '');
}

export function getSemantics(resourceVersion: string | undefined): ReadSemantics {
  if (resourceVersion === undefined || resourceVersion === '') return { kind: 'MostRecent' };
  if (resourceVersion === '0') return { kind: 'Any' };
  return { kind: 'NotOlderThan', revision: parseRevision(resourceVersion) };
}

const MATCH_VALUES = ['Exact', 'NotOlderThan'];

export function listSemantics(q: ListQuery): ReadSemantics {
  const rv = q.resourceVersion === '' ? undefined : q.resourceVersion;
  const match = q.resourceVersionMatch === '' ? undefined : q.resourceVersionMatch;
  const hasLimit = q.limit !== undefined && q.limit > 0;
  const token = q.continue === '' ? undefined : q.continue;

  if (match !== undefined) {
    if (!MATCH_VALUES.includes(match)) {
      throw errors.badRequest(`resourceVersionMatch: Unsupported value: ${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan"`);
    }
    if (token !== undefined) throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided');
    if (rv === undefined) {
      throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    }
    if (match === 'Exact') {
      if (rv === '0') throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
      return { kind: 'Exact', revision: parseRevision(rv) };
    }
    return rv === '0' ? { kind: 'Any' } : { kind: 'NotOlderThan', revision: parseRevision(rv) };
  }

  if (token !== undefined) {
    if (rv !== undefined && rv !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
    return { kind: 'Continue', token };
  }
  if (rv === undefined) return { kind: 'MostRecent' };
  if (rv === '0') return { kind: 'Any' };
  const revision = parseRevision(rv);
  return hasLimit ? { kind: 'Exact', revision } : { kind: 'NotOlderThan', revision };
}

export interface WatchQuery {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
}

export interface WatchStart {
  /** Send synthetic ADDED events for the state at the start revision first. */
  initialEvents: boolean;
  /** Read the initial state at the newest revision (consistent) or any recent one. */
  from: { kind: 'MostRecent' } | { kind: 'Any' } | { kind: 'NotOlderThan'; revision: string } | { kind: 'Exact'; revision: string };
  /** With sendInitialEvents: end the initial events with a BOOKMARK (when bookmarks are allowed). */
  initialEventsEndBookmark: boolean;
}

export function watchSemantics(q: WatchQuery): WatchStart {
  const rv = q.resourceVersion === '' ? undefined : q.resourceVersion;
  const match = q.resourceVersionMatch === '' ? undefined : q.resourceVersionMatch;
  if (q.sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan') {
      throw errors.badRequest(
        `resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`,
      );
    }
    if (!q.sendInitialEvents) {
      // Explicit false: behave like a watch from the given version without initial state.
      if (rv === undefined || rv === '0') return { initialEvents: false, from: { kind: 'MostRecent' }, initialEventsEndBookmark: false };
      return { initialEvents: false, from: { kind: 'Exact', revision: parseRevision(rv) }, initialEventsEndBookmark: false };
    }
    const from: WatchStart['from'] =
      rv === undefined ? { kind: 'MostRecent' } : rv === '0' ? { kind: 'Any' } : { kind: 'NotOlderThan', revision: parseRevision(rv) };
    return { initialEvents: true, from, initialEventsEndBookmark: !!q.allowWatchBookmarks };
  }
  if (match !== undefined) {
    throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  }
  if (rv === undefined) return { initialEvents: true, from: { kind: 'MostRecent' }, initialEventsEndBookmark: false };
  if (rv === '0') return { initialEvents: true, from: { kind: 'Any' }, initialEventsEndBookmark: false };
  return { initialEvents: false, from: { kind: 'Exact', revision: parseRevision(rv) }, initialEventsEndBookmark: false };
}
