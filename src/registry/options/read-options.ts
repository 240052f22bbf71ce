import { errors } from '../../apimachinery/errors';
import { KubeObject } from '../../apimachinery/types';
import { ResourceType } from '../../runtime/schema/resource-type';
import { FieldSelector, parseFieldSelector } from '../../apimachinery/selectors/field-selector';
import { LabelSelector, parseLabelSelector, SelectorParseError } from '../../apimachinery/selectors/label-selector';
import { getSemantics, listSemantics, ReadSemantics, WatchStart, watchSemantics } from './resource-version';
import { decodeQueryParameters, GET_OPTIONS, LIST_OPTIONS, Query } from './query-parameters';

export type { Query } from './query-parameters';

/**
 * The options of get, list and watch (kube's GetOptions, ListOptions and the watch form of
 * ListOptions), decoded once per request from the query by kube's rules (query-parameters.ts)
 * and checked; the storage receives these, never the query. Bad values are 400 with kube's messages.
 */

/** Fields every kind can be selected by; a kind's type adds its own (selectableFields). */
const METADATA_FIELDS = ['metadata.name', 'metadata.namespace'];

/** Which objects a list, watch or deletecollection selects (kube's SelectionPredicate). */
export interface SelectionPredicate {
  label: LabelSelector;
  field: FieldSelector;
  /** False when both selectors are empty: every object matches. */
  filtering: boolean;
  matches(obj: KubeObject): boolean;
}

export interface GetOptions {
  /** unset or '' = most recent, 0 = any, N = not older than N. */
  resourceVersion?: ReadSemantics;
}

export interface ListOptions {
  /** Where the list reads: most recent, any, not older than, exactly at, or a continue token's snapshot. */
  semantics: ReadSemantics;
  /** At most this many items (absent: no limit; 0 and negative limits mean none, as in kube). */
  limit?: number;
  predicate: SelectionPredicate;
}

export interface WatchOptions {
  /** Where the watch starts and whether it first sends the current state. */
  start: WatchStart;
  predicate: SelectionPredicate;
  /** `timeoutSeconds` as sent: the watch ends after this many seconds (0 or absent: the server's choice; negative: at once). */
  timeoutSeconds?: number;
  /** `allowWatchBookmarks`: idle watches get BOOKMARK events. */
  allowWatchBookmarks: boolean;
}

/** Beyond this many items a limit cannot cut a list short: a bound for the store's queries. */
const UNREACHABLE_LIMIT = 2 ** 31;

/** A positive limit cuts the list; zero and negative limits mean none, as in kube's storage. */
function effectiveLimit(limit: number | undefined): number | undefined {
  return limit !== undefined && limit > 0 ? Math.min(limit, UNREACHABLE_LIMIT) : undefined;
}

/** The fields of an object a field selector may name, with their values. */
export function selectableFieldsOf(type: ResourceType, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '', 'metadata.namespace': obj.metadata.namespace ?? '' };
  for (const field of type.selectableFields ?? []) fields[field.name] = field.value(obj);
  return fields;
}

/** The label and field selectors of a kind's list or watch; bad syntax or an unknown field is 400. */
export function selectionPredicate(type: ResourceType, labelSelector: string | undefined, fieldSelector: string | undefined): SelectionPredicate {
  try {
    const label = parseLabelSelector(labelSelector);
    const supported = [...METADATA_FIELDS, ...(type.selectableFields ?? []).map((f) => f.name)];
    const field = parseFieldSelector(fieldSelector, supported);
    return {
      label,
      field,
      filtering: !label.empty || !field.empty,
      matches: (obj: KubeObject) => label.matches(obj.metadata.labels) && field.matches(selectableFieldsOf(type, obj)),
    };
  } catch (err) {
    if (err instanceof SelectorParseError) throw errors.badRequest(`unable to parse requirement: ${err.message}`);
    throw err;
  }
}

/** Selects every object of a kind: the list options of a caller that wants them all. */
export function everything(type: ResourceType): ListOptions {
  return { semantics: { kind: 'MostRecent' }, predicate: selectionPredicate(type, undefined, undefined) };
}

export function parseGetOptions(query: Query): GetOptions {
  return { resourceVersion: getSemantics(decodeQueryParameters(query, GET_OPTIONS).resourceVersion) };
}

/**
 * list and deletecollection: the whole ListOptions decoded first (a bad `timeoutSeconds` is
 * 400 on a list too, as in kube), then the resourceVersion rules, then the selectors.
 */
export function parseListOptions(query: Query, type: ResourceType): ListOptions {
  const decoded = decodeQueryParameters(query, LIST_OPTIONS);
  const limit = effectiveLimit(decoded.limit);
  const semantics = listSemantics({
    resourceVersion: decoded.resourceVersion,
    resourceVersionMatch: decoded.resourceVersionMatch,
    limit,
    continue: decoded.continue,
  });
  if (decoded.sendInitialEvents !== undefined) throw errors.badRequest('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
  const options: ListOptions = { semantics, predicate: selectionPredicate(type, decoded.labelSelector, decoded.fieldSelector) };
  if (limit !== undefined) options.limit = limit;
  return options;
}

/**
 * watch: the ListOptions decoded, then the resourceVersion rules and the selectors.
 * `timeoutSeconds` is kept as sent: absent or 0 leaves the length of the watch to the server,
 * a negative value ends it at once (kube's watch timer fires immediately).
 */
export function parseWatchOptions(query: Query, type: ResourceType): WatchOptions {
  const decoded = decodeQueryParameters(query, LIST_OPTIONS);
  const allowWatchBookmarks = decoded.allowWatchBookmarks;
  const start = watchSemantics({
    resourceVersion: decoded.resourceVersion,
    resourceVersionMatch: decoded.resourceVersionMatch,
    sendInitialEvents: decoded.sendInitialEvents,
    allowWatchBookmarks,
  });
  const predicate = selectionPredicate(type, decoded.labelSelector, decoded.fieldSelector);
  const options: WatchOptions = { start, predicate, allowWatchBookmarks };
  if (decoded.timeoutSeconds !== undefined) options.timeoutSeconds = decoded.timeoutSeconds;
  return options;
}
