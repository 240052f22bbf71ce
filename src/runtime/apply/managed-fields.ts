import { ManagedFieldsEntry } from '../../apimachinery/types';
import { FieldSet } from './field-set';
import { FieldsV1Error, fromFieldsV1, toFieldsV1 } from './fields-v1';
import { compareStrings, goJsonString, isJsonObject } from './value';

/**
 * `metadata.managedFields` in memory, as kube's field manager holds it: one field set per
 * manager identifier, with the version it was written at, whether it came from an apply,
 * and the time of its last change.
 */
export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

export interface Managed {
  fields: Map<string, VersionedSet>;
  times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

export function cloneManaged(m: Managed): Managed {
  return { fields: new Map(m.fields), times: new Map(m.times) };
}

export type Operation = 'Apply' | 'Update';

/** What identifies a manager's entry: kube's BuildManagerIdentifier. */
export interface ManagerInfo {
  manager: string;
  operation: Operation;
  apiVersion?: string;
  subresource?: string;
}

/**
 * The identifier of an entry: the JSON of its manager, operation, apiVersion and
 * subresource (Go's field order, empty ones left out). Appliers are one entry whatever the
 * version they apply at, so their apiVersion is not part of it.
 */
export function managerIdentifier(info: ManagerInfo): string {
  const parts: string[] = [];
  if (info.manager) parts.push(`"manager":${goJsonString(info.manager)}`);
  parts.push(`"operation":${goJsonString(info.operation)}`);
  if (info.operation !== 'Apply' && info.apiVersion) parts.push(`"apiVersion":${goJsonString(info.apiVersion)}`);
  if (info.subresource) parts.push(`"subresource":${goJsonString(info.subresource)}`);
  return `{${parts.join(',')}}`;
}

export function parseManagerIdentifier(id: string): ManagerInfo {
  try {
    const parsed = JSON.parse(id) as ManagerInfo;
    if (isJsonObject(parsed)) return { ...parsed, manager: parsed.manager ?? '' };
  } catch {
    // fall through: an identifier that is not JSON names the manager itself
  }
  return { manager: id, operation: 'Update' };
}

/** managedFields that cannot be read; the message names the entry. */
export class ManagedFieldsError extends Error {}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** metav1.Time as kube writes it: RFC 3339, UTC, whole seconds. */
export function normalizeTime(time: string): string {
  return new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Reads managedFields entries (DecodeManagedFields); any malformed entry fails the whole list. */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new ManagedFieldsError('managedFields must be a list');
  entries.forEach((entry, i) => {
    if (!isJsonObject(entry)) throw new ManagedFieldsError(`managed fields entry ${i} must be an object`);
    const e = entry as Record<string, unknown>;
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (typeof e.apiVersion !== 'string' || e.apiVersion.length < 1) throw new ManagedFieldsError('apiVersion must not be empty');
    if (e.fieldsType === undefined || e.fieldsType === '') throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    if (e.manager !== undefined && typeof e.manager !== 'string') throw new ManagedFieldsError(`manager of managed fields entry ${i} must be a string`);
    if (e.subresource !== undefined && typeof e.subresource !== 'string') throw new ManagedFieldsError(`subresource of managed fields entry ${i} must be a string`);
    if (e.time !== undefined && e.time !== null && (typeof e.time !== 'string' || !RFC3339.test(e.time) || isNaN(Date.parse(e.time)))) {
      throw new ManagedFieldsError(`time of managed fields entry ${i} is not an RFC 3339 time`);
    }
    let set: FieldSet;
    try {
      set = e.fieldsV1 === undefined || e.fieldsV1 === null ? new FieldSet() : fromFieldsV1(e.fieldsV1);
    } catch (err) {
      if (err instanceof FieldsV1Error) throw new ManagedFieldsError(`error decoding versioned set from managed fields entry ${i}: ${err.message}`);
      throw err;
    }
    const id = managerIdentifier({
      manager: (e.manager as string | undefined) ?? '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource: e.subresource as string | undefined,
    });
    managed.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    managed.times.set(id, typeof e.time === 'string' ? normalizeTime(e.time) : undefined);
  });
  return managed;
}

/**
 * A write that sets managedFields to one empty entry asks for them to be cleared (spec
 * rule 9). An empty list does not: clients that drop the field must not strip it.
 */
export function isResetManagedFields(entries: unknown): boolean {
  return Array.isArray(entries) && entries.length === 1 && isJsonObject(entries[0]) && Object.keys(entries[0]).length === 0;
}

/** Writes the entries back, sorted as kube sorts them: Apply first, then oldest first, then by manager. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const info = parseManagerIdentifier(id);
    const entry: ManagedFieldsEntry = {};
    if (info.manager) entry.manager = info.manager;
    entry.operation = vs.applied ? 'Apply' : info.operation;
    entry.apiVersion = vs.apiVersion;
    const time = managed.times.get(id);
    if (time) entry.time = time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = toFieldsV1(vs.set);
    if (info.subresource) entry.subresource = info.subresource;
    entries.push(entry);
  }
  if (!entries.length) return undefined;
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  return entries.sort(
    (p, q) =>
      compareStrings(p.operation!, q.operation!) ||
      seconds(p.time) - seconds(q.time) ||
      compareStrings(p.manager ?? '', q.manager ?? '') ||
      compareStrings(p.apiVersion ?? '', q.apiVersion ?? '') ||
      compareStrings(p.subresource ?? '', q.subresource ?? ''),
  );
}

/** How many Update entries kube keeps before folding the oldest into one. */
export const MAX_UPDATE_MANAGERS = 10;
/** The manager the folded entries are recorded under. */
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

/**
 * Keeps at most MAX_UPDATE_MANAGERS Update entries (kube's capManagersManager): going from
 * the oldest, the second and later entries of a version are folded into that version's
 * `ancient-changes` entry (which starts from the first), until the count fits.
 */
export function capUpdateManagers(managed: Managed, max = MAX_UPDATE_MANAGERS): Managed {
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= max) return managed;
  const seconds = (id: string) => {
    const t = managed.times.get(id);
    return t ? Math.floor(Date.parse(t) / 1000) : 0;
  };
  updaters.sort((a, b) => seconds(a) - seconds(b) || compareStrings(a, b));
  const out = cloneManaged(managed);
  const firstOfVersion = new Map<string, string>();
  let count = updaters.length;
  for (const id of updaters) {
    if (count <= max) break;
    const vs = out.fields.get(id)!;
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES_MANAGER, operation: 'Update', apiVersion: vs.apiVersion });
    if (!out.fields.has(bucket)) {
      out.fields.set(bucket, out.fields.get(first)!);
      out.fields.delete(first);
    }
    out.fields.set(bucket, { set: vs.set.union(out.fields.get(bucket)!.set), apiVersion: vs.apiVersion, applied: false });
    out.fields.delete(id);
    // The folded entry is the newer one: its time becomes the bucket's.
    out.times.set(bucket, out.times.get(id));
    count--;
  }
  return out;
}
