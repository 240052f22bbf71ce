import { StructSchema } from '../schema/schema';
import { KubeObject, setOwn } from '../../apimachinery/types';
import { nowTimestamp } from '../../apimachinery/system-metadata';
import { ApplyConflicts } from './conflicts';
import { FieldSet } from './field-set';
import { fieldsFromLastApplied, KUBECTL_MANAGER, refreshLastApplied } from './last-applied';
import {
  capUpdateManagers,
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  isResetManagedFields,
  Managed,
  ManagedFieldsError,
  managerIdentifier,
} from './managed-fields';
import { field } from './path-element';
import { TypedValueError } from './typed-value';
import { ManagerSets, Updater } from './updater';
import { jsonEqual } from '../../apimachinery/system-metadata';

/** What the field manager needs to know about a kind. */
export interface ManagedKind {
  /** `group/version` (or `v1`): the apiVersion entries are recorded at. */
  apiVersion: string;
  schema: StructSchema;
}

/**
 * Fields no manager ever owns (kube's stripMetaManager): type meta, the metadata struct
 * itself, and the metadata the server sets or that identifies the object.
 */
const STRIPPED = FieldSet.of(
  [field('apiVersion')],
  [field('kind')],
  [field('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map(
    (name) => [field('metadata'), field(name)],
  ),
);

/** The provisional identifier of the write in progress, merged into its manager afterwards. */
const CURRENT_OPERATION = 'current-operation';

/** A manager with no name is recorded as `unknown`, as kube does. */
function managerName(name: string): string {
  return name || 'unknown';
}

/**
 * The object as the updater compares it: without its managedFields. A shallow copy: the
 * updater builds new values and never changes its inputs (a deep copy of a large object
 * held the event loop for hundreds of milliseconds).
 */
function withoutManagedFields(obj: KubeObject | Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...obj };
  const metadata = copy.metadata;
  if (metadata && typeof metadata === 'object' && !Array.isArray(metadata)) {
    const { managedFields: _managedFields, ...rest } = metadata as Record<string, unknown>;
    copy.metadata = rest;
  }
  return copy;
}

/** Object fields set to null are absent once kube decodes the object into its type. */
function dropNullFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNullFields);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) setOwn(out, k, dropNullFields(v));
  return out;
}

/**
 * kube's field manager for one kind: keeps `metadata.managedFields` on every write and
 * merges applied configurations. Decorated the way kube stacks its managers: identifiers
 * built from manager name, operation and version; metadata never owned; timestamps set
 * only when an entry changes; Update entries capped; entries encoded in kube's order.
 */
export class FieldManager {
  private readonly updater: Updater;

  constructor(private readonly kind: ManagedKind) {
    // The main resource never owns status (kube's reset fields for kinds with a status).
    const ignored = kind.schema.fields.status ? FieldSet.of([field('status')]) : new FieldSet();
    this.updater = new Updater(kind.schema, kind.apiVersion, ignored);
  }

  /**
   * Records a non-apply write (create, update, patch) on `next`: `manager` takes the
   * fields `next` adds or changes relative to `live` (null for a create). managedFields
   * sent in `next` are honoured as kube honours them: a valid list replaces the live one,
   * one empty entry clears them first, anything else keeps the live ones. If the object
   * does not fit its schema, its managedFields are dropped, as kube's UpdateNoErrors does.
   */
  update(live: KubeObject | null, next: KubeObject, manager: string): void {
    try {
      const managed = this.decodeLiveOrNew(live, next);
      const liveObj = withoutManagedFields(live ?? { metadata: {} });
      const nextObj = withoutManagedFields(next);
      const id = managerIdentifier({ manager: managerName(manager), operation: 'Update', apiVersion: this.kind.apiVersion });
      const sets = this.strip(this.updater.update(liveObj, nextObj, new Map(managed.fields), CURRENT_OPERATION), CURRENT_OPERATION);
      const result: Managed = { fields: sets, times: new Map(managed.times) };
      const taken = sets.get(CURRENT_OPERATION);
      if (taken) {
        sets.delete(CURRENT_OPERATION);
        const previous = sets.get(id);
        sets.set(id, { ...taken, set: previous ? taken.set.union(previous.set) : taken.set });
        result.times.set(id, nowTimestamp());
      }
      this.store(next, capUpdateManagers(result));
    } catch (err) {
      if (!(err instanceof TypedValueError || err instanceof ManagedFieldsError)) throw err;
      delete next.metadata.managedFields;
    }
  }

  /**
   * Applies `config` for `manager` to `live` (null when the object does not exist yet) and
   * returns the resulting object with its managedFields. Throws ApplyConflicts when the
   * configuration changes fields other managers own and `force` is not set.
   */
  apply(live: KubeObject | null, config: Record<string, unknown>, manager: string, force: boolean): KubeObject {
    let result: KubeObject;
    try {
      result = this.applyAs(live, config, manager, force);
    } catch (err) {
      if (!(err instanceof ApplyConflicts) || manager !== KUBECTL_MANAGER || !live) throw err;
      // kubectl taking over from its client-side apply: conflicts on fields it last applied are its own.
      const own = fieldsFromLastApplied(withoutManagedFields(live), this.kind.apiVersion, this.kind.schema);
      if (!own) throw err;
      const remaining = err.conflicts.filter((c) => !own.has(c.path));
      if (remaining.length) throw new ApplyConflicts(remaining);
      result = this.applyAs(live, config, manager, true);
    }
    if (manager === KUBECTL_MANAGER) refreshLastApplied(result, config);
    return result;
  }

  private applyAs(live: KubeObject | null, config: Record<string, unknown>, manager: string, force: boolean): KubeObject {
    const managed = this.decodeOrEmpty(live?.metadata.managedFields);
    const liveObj = withoutManagedFields(live ?? { metadata: {} });
    const id = managerIdentifier({ manager: managerName(manager), operation: 'Apply', apiVersion: this.kind.apiVersion });
    const result = this.updater.apply(liveObj, config, new Map(managed.fields), id, force);
    const times = new Map(managed.times);
    // An apply that changes nothing in the object leaves its entry's time alone.
    if (result.object !== undefined) times.set(id, nowTimestamp());
    const object = dropNullFields(result.object ?? liveObj) as KubeObject;
    object.metadata ??= {};
    this.store(object, { fields: this.strip(result.managers, id), times });
    return object;
  }

  /** kube's decodeLiveOrNew: the request's managedFields when usable, else the live ones. */
  private decodeLiveOrNew(live: KubeObject | null, next: KubeObject): Managed {
    const sent = next.metadata.managedFields;
    if (isResetManagedFields(sent)) return emptyManaged();
    try {
      const managed = decodeManagedFields(sent);
      if (managed.fields.size > 0) return managed;
    } catch (err) {
      if (!(err instanceof ManagedFieldsError)) throw err;
    }
    return this.decodeOrEmpty(live?.metadata.managedFields);
  }

  private decodeOrEmpty(entries: unknown): Managed {
    try {
      return decodeManagedFields(entries);
    } catch (err) {
      if (err instanceof ManagedFieldsError) return emptyManaged();
      throw err;
    }
  }

  /** Removes the fields nobody may own from one manager's set (dropping it when empty). */
  private strip(sets: ManagerSets, id: string): ManagerSets {
    const vs = sets.get(id);
    if (!vs) return sets;
    const set = vs.set.difference(STRIPPED);
    if (set.empty()) sets.delete(id);
    else sets.set(id, { ...vs, set });
    return sets;
  }

  private store(obj: KubeObject, managed: Managed): void {
    const entries = encodeManagedFields(managed);
    if (entries) obj.metadata.managedFields = entries;
    else delete obj.metadata.managedFields;
  }
}

/**
 * kube's IgnoreManagedFieldsTimestampsTransformer: when a write changes nothing but the
 * times of managedFields entries, the old times are kept so the write is a no-op (no new
 * resourceVersion).
 */
export function keepTimestampsOfNoopWrite(next: KubeObject, old: KubeObject): void {
  const nextEntries = next.metadata.managedFields;
  const oldEntries = old.metadata.managedFields;
  if (!nextEntries || !oldEntries || nextEntries.length !== oldEntries.length) return;
  const untimed = (entries: typeof nextEntries) => entries.map(({ time: _time, ...rest }) => rest);
  if (!jsonEqual(untimed(nextEntries), untimed(oldEntries))) return;
  const withoutFields = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } });
  if (!jsonEqual(withoutFields(next), withoutFields(old))) return;
  next.metadata.managedFields = oldEntries;
}
