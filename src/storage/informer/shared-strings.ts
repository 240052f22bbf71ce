import { KubeObject } from '../../apimachinery/types';

/**
 * Values that most cached objects repeat (their apiVersion and kind, namespace, timestamps of
 * the same second, managed-field entries' manager and operation, RBAC references' kind and
 * group), held once: JSON.parse and request decoding make a new string for each occurrence,
 * which at 110,000 bindings is about 350 bytes per object (a third of a parsed binding).
 * Strings are values, so replacing one by an equal string is invisible to every reader.
 */
const pool = new Map<string, string>();
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
 * Replaces the object's repeated string values by the held ones, in place, before the cache
 * keeps it: a fixed set of fields, so the cost does not grow with the object's own data.
 */
export function shareRepeatedStrings(obj: KubeObject): void {
  shareFields(obj, TYPE_META);
  const metadata = (obj as { metadata?: unknown }).metadata;
  shareFields(metadata, METADATA);
  shareEach((metadata as { managedFields?: unknown } | undefined)?.managedFields, MANAGED_FIELD);
  shareEach((metadata as { ownerReferences?: unknown } | undefined)?.ownerReferences, TYPE_META);
  shareFields((obj as { roleRef?: unknown }).roleRef, REFERENCE);
  shareEach((obj as { subjects?: unknown }).subjects, REFERENCE);
}
