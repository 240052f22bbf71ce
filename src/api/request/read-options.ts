import { errors } from '../../apimachinery/errors';
import { KubeObject } from '../../apimachinery/types';
import { ResourceType } from '../schema/resource-type';
import { FieldSelector, parseFieldSelector } from '../selectors/field-selector';
import { LabelSelector, parseLabelSelector, SelectorParseError } from '../selectors/label-selector';
import { getSemantics, listSemantics, ReadSemantics, WatchStart, watchSemantics } from './resource-version';

/**
 * The options of get, list and watch (kube's GetOptions, ListOptions and the watch form of
 * ListOptions), parsed and checked once per request from the query; the storage receives
 * these, never the query. Bad values are 400 with kube's messages.
 */

/** Fields every kind can be selected by; a kind's type adds its own (selectableFields). */
const METADATA_FIELDS = ['metadata.name', 'metadata.namespace'];

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Beyond this many items a limit cannot cut a list short: a bound for the store's queries. */
const UNREACHABLE_LIMIT = 2n ** 31n;

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
  /** The watch ends after this many seconds. */
  timeoutSeconds?: number;
  /** `allowWatchBookmarks`: idle watches get BOOKMARK events. */
  allowWatchBookmarks: boolean;
}

export type Query = Record<string, unknown>;

/** A query parameter's first value, as Go's url.Values.Get reads it. */
function firstString(v: unknown): string | undefined {
  if (Array.isArray(v)) return v.length ? String(v[0]) : undefined;
  return v === undefined ? undefined : String(v);
}

/** The watch flags read `true` or `1` as set. */
function truthy(v: unknown): boolean {
  const s = firstString(v);
  return s === 'true' || s === '1';
}

/** An int64 query parameter as kube's conversion reads it (strconv.ParseInt), with its errors as 400. */
function parseInt64(text: string): bigint {
  if (!/^[+-]?\d+$/.test(text)) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  const n = BigInt(text);
  if (n < INT64_MIN || n > INT64_MAX) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range`);
  return n;
}

function parseLimit(v: unknown): number | undefined {
  const text = firstString(v);
  if (text === undefined || text === '') return undefined;
  const n = parseInt64(text);
  return n > 0n ? Number(n < UNREACHABLE_LIMIT ? n : UNREACHABLE_LIMIT) : undefined;
}

function parseTimeoutSeconds(v: unknown): number | undefined {
  const text = firstString(v);
  if (text === undefined || text === '') return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw errors.badRequest(`timeoutSeconds: Invalid value: ${JSON.stringify(text)}: must be a non-negative integer`);
  return n;
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
  return { resourceVersion: getSemantics(firstString(query.resourceVersion)) };
}

/** list and deletecollection: limit, then the resourceVersion rules, then the selectors (kube's order). */
export function parseListOptions(query: Query, type: ResourceType): ListOptions {
  const limit = parseLimit(query.limit);
  const semantics = listSemantics({
    resourceVersion: firstString(query.resourceVersion),
    resourceVersionMatch: firstString(query.resourceVersionMatch),
    limit,
    continue: firstString(query.continue),
  });
  const options: ListOptions = { semantics, predicate: selectionPredicate(type, firstString(query.labelSelector), firstString(query.fieldSelector)) };
  if (limit !== undefined) options.limit = limit;
  return options;
}

/**
 * watch: the resourceVersion rules, the selectors, then timeoutSeconds. A watch of one
 * object (`name`) selects it by `metadata.name` in place of any field selector given.
 */
export function parseWatchOptions(query: Query, type: ResourceType, name = ''): WatchOptions {
  const allowWatchBookmarks = truthy(query.allowWatchBookmarks);
  const start = watchSemantics({
    resourceVersion: firstString(query.resourceVersion),
    resourceVersionMatch: firstString(query.resourceVersionMatch),
    sendInitialEvents: query.sendInitialEvents === undefined ? undefined : truthy(query.sendInitialEvents),
    allowWatchBookmarks,
  });
  const fieldSelector = name ? `metadata.name=${name}` : firstString(query.fieldSelector);
  const predicate = selectionPredicate(type, firstString(query.labelSelector), fieldSelector);
  const options: WatchOptions = { start, predicate, allowWatchBookmarks };
  const timeoutSeconds = parseTimeoutSeconds(query.timeoutSeconds);
  if (timeoutSeconds !== undefined) options.timeoutSeconds = timeoutSeconds;
  return options;
}
