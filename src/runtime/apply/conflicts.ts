import { StatusError } from '../../apimachinery/errors';
import { FieldSet } from './field-set';
import { describePath, FieldPath } from './path-element';
import { parseManagerIdentifier } from './managed-fields';
import { goQuote } from '../../apimachinery/go-text';
import { compareStrings } from './value';

/** A field the applier wants to change that another manager owns. */
export interface Conflict {
  /** The other manager's identifier. */
  manager: string;
  path: FieldPath;
}

/** Thrown by the field manager when an apply without force meets conflicts. */
export class ApplyConflicts extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(conflictMessage(conflicts));
  }

  toStatusError(): StatusError {
    return applyConflictError(this.conflicts);
  }
}

/** The conflicts of each manager's set, managers in identifier order, paths in set order. */
export function conflictsFromManagers(sets: Map<string, FieldSet>): Conflict[] {
  const out: Conflict[] = [];
  for (const manager of [...sets.keys()].sort(compareStrings)) {
    for (const path of sets.get(manager)!.paths()) out.push({ manager, path });
  }
  return out;
}

/** How kube names a manager in a conflict: `"kubectl"`, or `"x" using v1` for an Update entry. */
export function describeManager(id: string): string {
  const info = parseManagerIdentifier(id);
  let text = goQuote(info.manager);
  if (info.subresource) text += ` with subresource ${goQuote(info.subresource)}`;
  if (info.operation === 'Update') text += ` using ${info.apiVersion ?? ''}`;
  return text;
}

/**
 * kube's message: one conflict on one line; several grouped by manager (sorted), each
 * field on its own `- .path` line.
 */
export function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0];
    return `Apply failed with 1 conflict: conflict with ${describeManager(c.manager)}: ${describePath(c.path)}`;
  }
  const byManager = new Map<string, FieldPath[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.path]);
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort(compareStrings)) {
    lines.push(`conflicts with ${describeManager(manager)}`);
    for (const path of byManager.get(manager)!) lines.push(`- ${describePath(path)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** 409 Conflict with one FieldManagerConflict cause per field, as kube's NewApplyConflict. */
export function applyConflictError(conflicts: Conflict[]): StatusError {
  return new StatusError(409, 'Conflict', conflictMessage(conflicts), {
    causes: conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with ${describeManager(c.manager)}`,
      field: describePath(c.path),
    })),
  });
}
