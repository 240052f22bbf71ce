import { isPlainObject, ownValue, setOwn } from '../../apimachinery/types';
import { deepClone } from '../../apimachinery/system-metadata';

/**
 * RFC 7386 JSON merge patch as kube applies it (gopkg.in/evanphx/json-patch.v4's
 * MergePatch): objects merge recursively, `null` deletes, everything else replaces. A
 * value set where the target has nothing (or no object) loses the nulls of its objects;
 * a patch that is a list replaces the whole document the same way (kube's merge then
 * fails to decode it). Keys are plain map keys, whatever their name. The patch is no
 * deeper than the decoders allow, so the recursion is bounded.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return pruneNulls(deepClone(patch));
  const doc = deepClone(target);
  return mergeInto(isPlainObject(doc) ? doc : {}, deepClone(patch));
}

function mergeInto(doc: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete doc[key];
      continue;
    }
    const current = ownValue(doc, key);
    setOwn(doc, key, current === undefined || current === null ? pruneNulls(value) : mergeValue(current, value));
  }
  return doc;
}

function mergeValue(current: unknown, patch: unknown): unknown {
  if (!isPlainObject(current)) return pruneNulls(patch);
  if (!isPlainObject(patch)) return patch;
  return mergeInto(current, patch);
}

/** Drops null members of objects at any depth (list items stay, null or not). */
function pruneNulls(value: unknown): unknown {
  if (Array.isArray(value)) {
    value.forEach(pruneNulls);
    return value;
  }
  if (isPlainObject(value)) {
    for (const [key, member] of Object.entries(value)) {
      if (member === null) delete value[key];
      else pruneNulls(member);
    }
  }
  return value;
}
