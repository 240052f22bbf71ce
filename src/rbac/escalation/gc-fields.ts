import { deepClone, jsonEqual } from '../../apimachinery/system-metadata';
import { KubeObject } from '../../apimachinery/types';

/** The metadata the garbage collector and finalizing controllers write (kube's IsOnlyMutatingGCFields). */
const GC_FIELDS = ['ownerReferences', 'finalizers', 'selfLink', 'managedFields'] as const;

/**
 * Whether an update changes nothing but owner references, finalizers (and the bookkeeping
 * fields selfLink and managedFields). Such an update grants nothing, so kube lets it pass
 * the escalation checks: whoever cleans up a role need not hold its permissions.
 */
export function isOnlyMutatingGcFields(obj: KubeObject, old: KubeObject): boolean {
  const copy = deepClone(obj);
  const meta = copy.metadata as Record<string, unknown>;
  const oldMeta = (old.metadata ?? {}) as Record<string, unknown>;
  for (const field of GC_FIELDS) {
    if (oldMeta[field] === undefined) delete meta[field];
    else meta[field] = oldMeta[field];
  }
  return jsonEqual(copy, old);
}
