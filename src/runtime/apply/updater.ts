import { Schema } from '../schema/schema';
import { ApplyConflicts, conflictsFromManagers } from './conflicts';
import { FieldSet } from './field-set';
import { VersionedSet } from './managed-fields';
import {
  Comparison,
  compare,
  ensureNamedFieldsAreMembers,
  merge,
  reconcileWithSchema,
  removeItems,
  toFieldSet,
} from './typed-value';
import { jsonEqual } from '../../apimachinery/system-metadata';

/** Field sets by manager identifier. */
export type ManagerSets = Map<string, VersionedSet>;

/**
 * The ownership rules of server-side apply (structured-merge-diff's merge.Updater) for one
 * kind at one version. `ignored` fields (kube's reset fields, e.g. status on the main
 * resource) are never owned and never conflict.
 */
export class Updater {
  constructor(
    private readonly schema: Schema,
    private readonly apiVersion: string,
    private readonly ignored: FieldSet = new FieldSet(),
  ) {}

  /**
   * A write that is not an apply (create, update, non-apply patch): `manager` takes the
   * fields it added or changed, from everyone else; fields it removed leave every set.
   */
  update(live: unknown, next: unknown, managers: ManagerSets, manager: string): ManagerSets {
    const reconciled = this.reconcile(managers);
    const { managers: out, comparison } = this.takeOwnership(live, next, reconciled, manager, true);
    const previous = out.get(manager)?.set ?? new FieldSet();
    const set = previous
      .union(comparison.modified)
      .union(comparison.added)
      .difference(comparison.removed)
      .recursiveDifference(this.ignored);
    if (set.empty()) out.delete(manager);
    else out.set(manager, { set, apiVersion: this.apiVersion, applied: false });
    return out;
  }

  /**
   * An apply of `config` by `manager`: merges it into the live object, removes what the
   * manager applied before and no longer does (unless someone else owns it), and makes
   * the manager's set exactly the configuration's fields. Changing a field another manager
   * owns is a conflict unless `force`, which takes the field from them. Returns the new
   * object, or undefined when the object does not change.
   */
  apply(live: unknown, config: unknown, managers: ManagerSets, manager: string, force: boolean): { object: unknown; managers: ManagerSets } {
    const reconciled = this.reconcile(managers);
    let merged: unknown = merge(live, config, this.schema) ?? {};
    const lastSet = reconciled.get(manager);
    const set = toFieldSet(config, this.schema).recursiveDifference(this.ignored);
    reconciled.set(manager, { set, apiVersion: this.apiVersion, applied: true });
    merged = this.prune(merged, reconciled, lastSet);
    const { managers: out } = this.takeOwnership(live, merged, reconciled, manager, force);
    return { object: jsonEqual(live, merged) ? undefined : merged, managers: out };
  }

  /**
   * What changed from `live` to `next` (ignored fields left out), checked against every
   * other manager: fields they own that changed are conflicts (or, forced, are taken
   * from them); fields that went away leave their sets. Empty sets are dropped.
   */
  private takeOwnership(
    live: unknown,
    next: unknown,
    managers: ManagerSets,
    workflow: string,
    force: boolean,
  ): { managers: ManagerSets; comparison: Comparison } {
    const raw = compare(live, next, this.schema);
    const comparison: Comparison = {
      added: raw.added.recursiveDifference(this.ignored),
      modified: raw.modified.recursiveDifference(this.ignored),
      removed: raw.removed.recursiveDifference(this.ignored),
    };
    const changed = comparison.modified.union(comparison.added);
    const conflicts = new Map<string, FieldSet>();
    for (const [id, vs] of managers) {
      if (id === workflow) continue;
      const conflict = vs.set.intersection(changed);
      if (!conflict.empty()) conflicts.set(id, conflict);
    }
    if (!force && conflicts.size) throw new ApplyConflicts(conflictsFromManagers(conflicts));
    const out: ManagerSets = new Map();
    for (const [id, vs] of managers) {
      if (id === workflow) {
        out.set(id, vs);
        continue;
      }
      let set = vs.set;
      const conflict = conflicts.get(id);
      if (conflict) set = set.difference(conflict);
      if (!comparison.removed.empty()) set = set.difference(comparison.removed);
      if (!set.empty()) out.set(id, { ...vs, set });
    }
    if (out.get(workflow)?.set.empty()) out.delete(workflow);
    return { managers: out, comparison };
  }

  /**
   * Removes from the merged object what the applier owned last time and no longer applies,
   * unless another manager (or the new configuration) owns it; fields nobody owned, or
   * only updaters did, stay (prune, addBackOwnedItems, addBackDanglingItems).
   */
  private prune(merged: unknown, managers: ManagerSets, lastSet: VersionedSet | undefined): unknown {
    if (!lastSet || lastSet.set.empty()) return merged;
    const named = (s: FieldSet) => ensureNamedFieldsAreMembers(s, this.schema);
    let pruned = removeItems(merged, named(lastSet.set), this.schema) ?? {};
    // Add back what any manager (this applier's new configuration included) owns.
    let owned = new FieldSet();
    for (const vs of managers.values()) owned = owned.union(vs.set);
    const mergedSet = named(toFieldSet(merged, this.schema));
    const keptSet = named(toFieldSet(pruned, this.schema));
    pruned = removeItems(merged, mergedSet.difference(keptSet.union(named(owned))), this.schema) ?? {};
    // Only what this applier owned before may go: everything else removed comes back.
    const prunedSet = named(toFieldSet(pruned, this.schema));
    return removeItems(merged, mergedSet.difference(prunedSet).intersection(named(lastSet.set)), this.schema) ?? {};
  }

  /** Sets written under an older schema, made to fit this one. */
  private reconcile(managers: ManagerSets): ManagerSets {
    const out: ManagerSets = new Map();
    for (const [id, vs] of managers) out.set(id, { ...vs, set: reconcileWithSchema(vs.set, this.schema) });
    return out;
  }
}
