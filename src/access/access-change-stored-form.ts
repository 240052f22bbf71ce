import { KubeObject } from '../apimachinery/types';
import { AccessChange, HistoryPermission } from './access-change-kind';
import { PermissionCause } from './policy-change-types';

/**
 * How an AccessChange is stored. Each permission's `via` (the binding and role that grant
 * it) is nearly always the same list for every permission of an entry, and was most of the
 * entry's bytes: the stored form holds each distinct list once, in `vias`, and a permission
 * holds its list's index there. A role's rules name many resources with the same verbs:
 * permissions next to each other that differ only in their resource are one, with
 * `resources` in order. Every read (get, list, watch) gives the API's form back: `vias` is
 * what tells the two apart, so objects stored before it are read as they are.
 */

/** A permission as stored: its `via` an index in the object's `vias`; `resources` stands for as many permissions, in order. */
export type StoredPermission = Omit<HistoryPermission, 'via' | 'resource'> & { via: number; resource?: string; resources?: string[] };

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
  const pack = (list: HistoryPermission[]): StoredPermission[] => mergeResources(list.map((p) => ({ ...p, via: indexOf(p.via) })));
  // Spread first, then the lists: they keep their places among the keys.
  const out = { ...change } as unknown as StoredAccessChange;
  if (change.gained) out.gained = pack(change.gained);
  if (change.lost) out.lost = pack(change.lost);
  out.vias = vias;
  return out;
}

/** What a permission is besides its resource, as a key; undefined: it has no resource to merge on. */
function restKey(p: StoredPermission): string | undefined {
  if (typeof p.resource !== 'string') return undefined;
  const { resource: _resource, ...rest } = p;
  return JSON.stringify(Object.entries(rest));
}

/** Runs of permissions next to each other that differ only in their resource, as one with `resources` (in `resource`'s place). */
export function mergeResources(list: StoredPermission[]): StoredPermission[] {
  const out: StoredPermission[] = [];
  let runKey: string | undefined;
  for (const p of list) {
    const key = restKey(p);
    const last = out[out.length - 1];
    if (key !== undefined && key === runKey) {
      if (last.resources) last.resources.push(p.resource!);
      else out[out.length - 1] = renameKey(last, 'resource', 'resources', [last.resource!, p.resource!]);
    } else out.push(p);
    runKey = key;
  }
  return out;
}

/** A copy of `object` with `from` renamed `to` (holding `value`), in the same place among its keys. */
function renameKey<T extends object>(object: T, from: string, to: string, value: unknown): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(object)) out[k === from ? to : k] = k === from ? value : v;
  return out as T;
}

/** The permissions a stored one stands for, in the API's form. */
function expand(p: StoredPermission, vias: PermissionCause[][], into: unknown[]): void {
  const unpacked = typeof p?.via === 'number' ? { ...p, via: vias[p.via] ?? [] } : p;
  if (!Array.isArray(p?.resources)) {
    into.push(unpacked);
    return;
  }
  for (const resource of p.resources) into.push(renameKey(unpacked, 'resources', 'resource', resource));
}

function isStored(object: KubeObject): object is StoredAccessChange & KubeObject {
  return Array.isArray((object as { vias?: unknown }).vias);
}

/** The API's form of a stored entry (one stored before `vias` is already in it). */
export function unpackAccessChange(object: KubeObject): KubeObject {
  if (!isStored(object)) return object;
  const { vias, ...rest } = object;
  const unpack = (list: unknown) => {
    if (!Array.isArray(list)) return list;
    const out: unknown[] = [];
    for (const p of list as StoredPermission[]) expand(p, vias, out);
    return out;
  };
  // Spread first, then the lists: they keep their places among the keys.
  const out: Record<string, unknown> = { ...rest };
  if (rest.gained !== undefined) out.gained = unpack(rest.gained);
  if (rest.lost !== undefined) out.lost = unpack(rest.lost);
  return out as KubeObject;
}
