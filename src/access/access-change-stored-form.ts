import { KubeObject } from '../apimachinery/types';
import { AccessChange, HistoryPermission } from './access-change-kind';
import { PermissionCause } from './policy-change-types';

/**
 * How an AccessChange is stored. Each permission's `via` (the binding and role that grant
 * it) is nearly always the same list for every permission of an entry, and was most of the
 * entry's bytes: the stored form holds each distinct list once, in `vias`, and a permission
 * holds its list's index there. Every read (get, list, watch) gives the API's form back:
 * `vias` is what tells the two apart, so objects stored before it are read as they are.
 */

/** A permission as stored: its `via` an index in the object's `vias`. */
export type StoredPermission = Omit<HistoryPermission, 'via'> & { via: number };

export interface StoredAccessChange extends KubeObject {
  subject: AccessChange['subject'];
  namespace?: string;
  gained?: StoredPermission[];
  lost?: StoredPermission[];
  cause: AccessChange['cause'];
  time: string;
  vias: PermissionCause[][];
}

const causeKey = (c: PermissionCause): string => `${c.binding.kind}\u0000${c.binding.namespace ?? ''}\u0000${c.binding.name}\u0000${c.role.kind}\u0000${c.role.name}`;

/** The stored form of an entry; its permissions' keys keep their order (`via` in its place). */
export function packAccessChange(change: AccessChange): StoredAccessChange {
  const vias: PermissionCause[][] = [];
  const byList = new Map<PermissionCause[], number>();
  const byKey = new Map<string, number>();
  const indexOf = (via: PermissionCause[]): number => {
    // The permissions of one diff usually share the array itself: no key to make then.
    let i = byList.get(via);
    if (i !== undefined) return i;
    const key = via.map(causeKey).join('\u0001');
    i = byKey.get(key);
    if (i === undefined) {
      i = vias.length;
      vias.push(via);
      byKey.set(key, i);
    }
    byList.set(via, i);
    return i;
  };
  const pack = (list: HistoryPermission[]): StoredPermission[] => list.map((p) => ({ ...p, via: indexOf(p.via) }));
  // Spread first, then the lists: they keep their places among the keys.
  const out = { ...change } as unknown as StoredAccessChange;
  if (change.gained) out.gained = pack(change.gained);
  if (change.lost) out.lost = pack(change.lost);
  out.vias = vias;
  return out;
}

function isStored(object: KubeObject): object is StoredAccessChange & KubeObject {
  return Array.isArray((object as { vias?: unknown }).vias);
}

/** The API's form of a stored entry (one stored before `vias` is already in it). */
export function unpackAccessChange(object: KubeObject): KubeObject {
  if (!isStored(object)) return object;
  const { vias, ...rest } = object;
  const unpack = (list: unknown) =>
    Array.isArray(list) ? (list as StoredPermission[]).map((p) => (typeof p?.via === 'number' ? { ...p, via: vias[p.via] ?? [] } : p)) : list;
  // Spread first, then the lists: they keep their places among the keys.
  const out: Record<string, unknown> = { ...rest };
  if (rest.gained !== undefined) out.gained = unpack(rest.gained);
  if (rest.lost !== undefined) out.lost = unpack(rest.lost);
  return out as KubeObject;
}
