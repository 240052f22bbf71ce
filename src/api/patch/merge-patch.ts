import { apply as applyMergePatch } from 'json-merge-patch';
import { isPlainObject } from '../types';

/**
 * RFC 7386 JSON merge patch (by json-merge-patch): objects merge recursively, `null`
 * deletes, everything else replaces. A patch that is a list replaces the whole document
 * (kube's merge then fails to decode it); nulls inside objects of a replacing value mean
 * nothing and are dropped, as evanphx/json-patch does.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return pruneNulls(structuredClone(patch));
  return applyMergePatch(structuredClone(target), structuredClone(patch));
}

function pruneNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pruneNulls);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, pruneNulls(v)]),
  );
}
