import { KubeObject } from '../../apimachinery/types';

/**
 * Values that most cached objects repeat (their apiVersion and kind, namespace, timestamps of
 * the same second, managed-field entries' manager, operation and field set, RBAC references'
 * kind and group), held once: JSON.parse and request decoding make a new copy of each
 * occurrence, which at 110,000 bindings is about a third of a parsed binding. Strings are
 * values, so replacing one by an equal string is invisible to every reader; a field set is
 * shared only because cached objects are never changed (managed fields are decoded into a
 * field set and written back as new objects, never edited in place).
 */
const pool = new Map<string, string>();
/** Managed-field sets by their JSON text. */
const fieldSets = new Map<string, unknown>();
/** The pool is an optimisation: past this many values it starts again, so unusual values never pile up. */
const POOL_LIMIT = 20_000;
const LONGEST = 80;

function shared(value: unknown): unknown {
  if (typeof value !== 'string' || value.length > LONGEST) return value;
  const held = pool.get(value);
  if (held !== undefined) return held;
  if (pool.size >= POOL_LIMIT) pool.clear();
  pool.set(value, value);
  return value;
}

/** Small field sets (those of objects written the same way are equal) are shared by their text. */
const LARGEST_FIELD_SET = 512;

function sharedFieldSet(entry: unknown): void {
  if (typeof entry !== 'object' || entry === null) return;
  const set = (entry as Fields).fieldsV1;
  if (typeof set !== 'object' || set === null) return;
  const text = JSON.stringify(set);
  if (text.length > LARGEST_FIELD_SET) return;
  const held = fieldSets.get(text);
  if (held !== undefined) {
    (entry as Fields).fieldsV1 = held;
    return;
  }
  if (fieldSets.size >= POOL_LIMIT) fieldSets.clear();
  fieldSets.set(text, set);
}

type Fields = Record<string, unknown>;

function shareFields(o: unknown, names: readonly string[]): void {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return;
  const fields = o as Fields;
  for (const name of names) if (typeof fields[name] === 'string') fields[name] = shared(fields[name]);
}

function shareEach(list: unknown, names: readonly string[]): void {
  if (Array.isArray(list)) for (const item of list) shareFields(item, names);
}

const TYPE_META = ['apiVersion', 'kind'];
const METADATA = ['namespace', 'creationTimestamp', 'generateName'];
const MANAGED_FIELD = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'subresource'];
const REFERENCE = ['apiGroup', 'kind', 'name', 'namespace'];

/**
 * Replaces the object's repeated values by the held ones, in place, before the cache
 * keeps it: a fixed set of fields, so the cost does not grow with the object's own data.
 */
export function shareRepeatedValues(obj: KubeObject): void {
  shareFields(obj, TYPE_META);
  const metadata = (obj as { metadata?: unknown }).metadata;
  shareFields(metadata, METADATA);
  const managedFields = (metadata as { managedFields?: unknown } | undefined)?.managedFields;
  shareEach(managedFields, MANAGED_FIELD);
  if (Array.isArray(managedFields)) for (const entry of managedFields) sharedFieldSet(entry);
  shareEach((metadata as { ownerReferences?: unknown } | undefined)?.ownerReferences, TYPE_META);
  shareFields((obj as { roleRef?: unknown }).roleRef, REFERENCE);
  shareEach((obj as { subjects?: unknown }).subjects, REFERENCE);
}
