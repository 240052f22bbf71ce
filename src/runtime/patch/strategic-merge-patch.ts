import { childSchema, ListSchema, Schema } from '../schema/schema';
import { isPlainObject, ownValue, setOwn } from '../../apimachinery/types';
import { goKind, goValue } from '../../apimachinery/go-text';

/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), applied server-side as
 * kube's strategicpatch.StrategicMergeMapPatch applies it, with the kind's schema in place
 * of Go struct tags:
 *
 * - objects merge key by key; `null` deletes a key; a key the original lacks is taken from
 *   the patch (its nulls dropped); a value of another JSON type replaces the original;
 * - lists are replaced, unless the schema gives them `patchStrategy: merge`: then lists of
 *   objects merge item by item on `patchMergeKey` and lists of scalars are unioned;
 * - directives: `$patch: replace | delete` on an object, `$patch: replace | delete` items in
 *   a merging list, `$retainKeys`, `$deleteFromPrimitiveList/<list>` and
 *   `$setElementOrder/<list>`; the resulting order follows kube's normalizeElementOrder.
 *
 * Both arguments are consumed (mutated), as in kube; callers pass copies.
 */

type JsonMap = Record<string, unknown>;

/** How kube's interpretStrategicMergePatchError classifies a failure. */
export type SmpErrorCategory = 'BadRequest' | 'Invalid' | 'Other';

export class StrategicMergePatchError extends Error {
  constructor(
    message: string,
    readonly category: SmpErrorCategory,
  ) {
    super(message);
    this.name = 'StrategicMergePatchError';
  }
}

const DIRECTIVE_MARKER = '$patch';
const DELETE_DIRECTIVE = 'delete';
const REPLACE_DIRECTIVE = 'replace';
const MERGE_DIRECTIVE = 'merge';
const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

// kube's mergepatch error values: 400 and 422 ones, the rest are plain errors.
const errNoListOfLists = () => new StrategicMergePatchError('lists of lists are not supported', 'Invalid');
const errBadPatchFormatForPrimitiveList = () => new StrategicMergePatchError('invalid patch format of primitive list', 'BadRequest');
const errBadPatchFormatForRetainKeys = () => new StrategicMergePatchError('invalid patch format of retainKeys', 'BadRequest');
const errBadPatchFormatForSetElementOrderList = () =>
  new StrategicMergePatchError('invalid patch format of setElementOrder list', 'BadRequest');
const other = (message: string) => new StrategicMergePatchError(message, 'Other');

/** Go's reflect.TypeOf(x).String() for decoded JSON values. */
function goTypeOf(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return '[]interface {}';
  if (isPlainObject(value)) return 'map[string]interface {}';
  return goKind(value);
}

function errBadArgType(expected: 'map' | 'slice', actual: unknown): StrategicMergePatchError {
  const expectedType = expected === 'map' ? 'map[string]interface {}' : '[]interface {}';
  return other(`expected a ${expectedType}, but received a ${goTypeOf(actual)}`);
}

function errNoMergeKey(m: JsonMap, key: string): StrategicMergePatchError {
  return other(`map: ${goValue(m)} does not contain declared merge key: ${key}`);
}

/** Go interface equality for decoded JSON scalars (same type and value). */
function scalarEqual(a: unknown, b: unknown): boolean {
  return a === b && goTypeOf(a) === goTypeOf(b);
}

// ---- schema lookups (kube's LookupPatchMeta) ----------------------------------------------

interface ListMeta {
  items: Schema;
  strategy: string;
  mergeKey: string;
}

const ANY: Schema = { kind: 'any' };

function fieldSchema(schema: Schema, key: string): Schema {
  return childSchema(schema, key) ?? ANY;
}

function listMeta(schema: Schema, key: string): ListMeta {
  const field = fieldSchema(schema, key);
  if (field.kind !== 'list') return { items: ANY, strategy: '', mergeKey: '' };
  return { items: field.items, strategy: patchStrategyOf(field), mergeKey: field.patchMergeKey ?? '' };
}

/** kube's extractRetainKeysPatchStrategy: retainKeys only matters when building patches. */
function patchStrategyOf(list: ListSchema): string {
  const strategies = (list.patchStrategy ?? '').split(',').filter(Boolean);
  return strategies.find((s) => s !== 'retainKeys') ?? '';
}

// ---- maps -----------------------------------------------------------------------------------

/** Applies a patch to an object (kube's StrategicMergeMapPatch). */
export function strategicMergePatch(original: JsonMap, patch: JsonMap, schema: Schema): JsonMap {
  return mergeMap(original, patch, schema);
}

function handleDirectiveInMergeMap(directive: unknown, patch: JsonMap): JsonMap {
  if (directive === REPLACE_DIRECTIVE) {
    delete patch[DIRECTIVE_MARKER];
    return patch;
  }
  if (directive === DELETE_DIRECTIVE) return {};
  throw other(`unknown patch type: ${goValue(directive)} in map: ${goValue(patch)}`);
}

/** Nulls in a value taken from the patch mean nothing there: drop them (kube's IgnoreUnmatchedNulls). */
function discardNullValues(value: unknown): void {
  if (Array.isArray(value)) value.forEach(discardNullValues);
  else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (v === null) delete value[k];
      else discardNullValues(v);
    }
  }
}

function mergeMap(originalIn: JsonMap | null, patch: JsonMap, schema: Schema): JsonMap {
  if (DIRECTIVE_MARKER in patch) return handleDirectiveInMergeMap(patch[DIRECTIVE_MARKER], patch);
  const original: JsonMap = originalIn ?? {};
  applyRetainKeysDirective(original, patch);
  mergePatchIntoOriginal(original, patch, schema);

  for (const [patchKey, patchV] of Object.entries(patch)) {
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      key = extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete original[key];
      continue;
    }
    if (!Object.hasOwn(original, key)) {
      if (!isDeleteList) {
        discardNullValues(patchV);
        setOwn(original, key, patchV);
      }
      continue;
    }
    const current = original[key];
    if (goTypeOf(current) !== goTypeOf(patchV)) {
      if (!isDeleteList) {
        discardNullValues(patchV);
        setOwn(original, key, patchV);
      }
      continue;
    }
    if (isPlainObject(current)) {
      setOwn(original, key, mergeMap(current, patchV as JsonMap, fieldSchema(schema, key)));
    } else if (Array.isArray(current)) {
      const meta = listMeta(schema, key);
      setOwn(original, key, mergeSliceHandler(current, patchV, meta, isDeleteList));
    } else {
      setOwn(original, key, patchV);
    }
  }
  return original;
}

/** `$deleteFromPrimitiveList/finalizers` names the list `finalizers`. */
function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX ? errBadPatchFormatForPrimitiveList() : errBadPatchFormatForSetElementOrderList();
  }
  return key.slice(slash + 1);
}

/** `$retainKeys: [a, b]`: keys of the original not listed are cleared; the patch may only set listed keys. */
function applyRetainKeysDirective(original: JsonMap, patch: JsonMap): void {
  if (!(RETAIN_KEYS_DIRECTIVE in patch)) return;
  const retain = patch[RETAIN_KEYS_DIRECTIVE];
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (!Array.isArray(retain)) throw errBadPatchFormatForRetainKeys();
  const keep = new Set(retain);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || k.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!keep.has(k)) throw errBadPatchFormatForRetainKeys();
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** `$setElementOrder/<list>`: merges that list now and orders it as the directive says. */
function mergePatchIntoOriginal(original: JsonMap, patch: JsonMap, schema: Schema): void {
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    delete patch[key];
    if (!Array.isArray(order)) throw errBadArgType('slice', order);
    const listKey = extractKey(key, SET_ELEMENT_ORDER_PREFIX);
    const foundOriginal = Object.hasOwn(original, listKey);
    const foundPatch = Object.hasOwn(patch, listKey);
    const originalList = ownValue(original, listKey);
    const patchList = ownValue(patch, listKey);
    if (foundOriginal && !Array.isArray(originalList) && originalList !== null) throw errBadArgType('slice', originalList);
    if (foundPatch && !Array.isArray(patchList) && patchList !== null) throw errBadArgType('slice', patchList);
    const originalItems = (originalList as unknown[] | null) ?? [];
    const patchItemsIn = (patchList as unknown[] | null) ?? [];
    const meta = listMeta(schema, listKey);
    validatePatchWithSetOrderList(patchItemsIn, order, meta.mergeKey);

    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = originalItems;
    else if (!foundOriginal && foundPatch) merged = patchItemsIn;
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalItems, patchList, meta, false);
    else return;

    const [patchItems, serverOnly] = meta.mergeKey ? partitionMapsByPresentInList(merged, order, meta.mergeKey) : partitionPrimitives(merged, order);
    const kind = sliceElementKind([originalItems, patchItemsIn]);
    setOwn(original, listKey, normalizeElementOrder(patchItems, serverOnly, order, originalItems, meta.mergeKey, kind));
    delete patch[listKey];
  }
}

/** The patch list must be in the directive's relative order (deletions aside). */
function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (!order.length || !patchList.length) return;
  const items = mergeKey ? extractToDeleteItems(patchList)[0] : patchList;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (isPlainObject(items[p]) && DIRECTIVE_MARKER in (items[p] as JsonMap)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(items[p], order[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw other(`The order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goValue(order)}\n`);
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return scalarEqual(left, right);
  if (!isPlainObject(left)) throw errBadArgType('map', left);
  if (!isPlainObject(right)) throw errBadArgType('map', right);
  if (!(mergeKey in left)) throw errNoMergeKey(left, mergeKey);
  if (!(mergeKey in right)) throw errNoMergeKey(right, mergeKey);
  return scalarEqual(left[mergeKey], right[mergeKey]);
}

// ---- lists ----------------------------------------------------------------------------------

function mergeSliceHandler(original: unknown, patch: unknown, meta: ListMeta, isDeleteList: boolean): unknown[] {
  if (original !== null && !Array.isArray(original)) throw errBadArgType('slice', original);
  if (patch !== null && !Array.isArray(patch)) throw errBadArgType('slice', patch);
  const originalItems = (original as unknown[] | null) ?? [];
  const patchItems = (patch as unknown[] | null) ?? [];
  // A deletion list works the same whatever the list's strategy.
  if (meta.strategy === MERGE_DIRECTIVE || isDeleteList) return mergeSlice(originalItems, patchItems, meta, isDeleteList);
  return patchItems;
}

type ElementKind = 'map' | 'scalar';

/** All items of the lists share one Go type; lists of lists are refused. */
function sliceElementKind(lists: unknown[][]): ElementKind {
  let first: string | undefined;
  for (const list of lists) {
    for (const item of list) {
      const type = goTypeOf(item);
      if (first === undefined) {
        first = type;
        if (type === '[]interface {}') throw errNoListOfLists();
      } else if (type !== first) {
        throw other(`list element types are not identical: ${goValue(lists)}`);
      }
    }
  }
  if (first === undefined) throw other('no elements in any of the given slices');
  return first === 'map[string]interface {}' ? 'map' : 'scalar';
}

function mergeSlice(originalIn: unknown[], patchIn: unknown[], meta: ListMeta, isDeleteList: boolean): unknown[] {
  let original = originalIn;
  let patch = patchIn;
  if (!original.length && !patch.length) return original;
  const kind = sliceElementKind([original, patch]);
  let merged: unknown[];
  if (kind !== 'map') {
    if (isDeleteList) return deleteFromSlice(original, patch);
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (!meta.mergeKey) throw other(`cannot merge lists without merge key for ${schemaName(meta.items)}`);
    [original, patch] = mergeSliceWithSpecialElements(original, patch, meta.mergeKey);
    merged = mergeSliceWithoutSpecialElements(original, patch, meta);
  }
  const [patchItems, serverOnly] = meta.mergeKey ? partitionMapsByPresentInList(merged, patch, meta.mergeKey) : partitionPrimitives(merged, patch);
  return normalizeElementOrder(patchItems, serverOnly, patch, original, meta.mergeKey, kind);
}

function schemaName(schema: Schema): string {
  return schema.kind === 'struct' && schema.typeName ? schema.typeName.split('.').pop()! : schema.kind;
}

/** Items carrying `$patch`: delete removes the matching items, replace drops the original list. */
function mergeSliceWithSpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const withoutSpecial: unknown[] = [];
  let replace = false;
  let remaining = original;
  for (const item of patch) {
    const typed = item as JsonMap;
    if (!(DIRECTIVE_MARKER in typed)) {
      withoutSpecial.push(item);
      continue;
    }
    const directive = typed[DIRECTIVE_MARKER];
    if (directive === DELETE_DIRECTIVE) {
      if (!(mergeKey in typed)) throw errNoMergeKey(typed, mergeKey);
      remaining = deleteMatchingEntries(remaining, mergeKey, typed[mergeKey]);
    } else if (directive === REPLACE_DIRECTIVE) {
      replace = true;
    } else if (directive === MERGE_DIRECTIVE) {
      throw other('merging lists cannot yet be specified in the patch');
    } else {
      throw other(`unknown patch type: ${goValue(directive)} in map: ${goValue(typed)}`);
    }
  }
  return replace ? [withoutSpecial, []] : [remaining, withoutSpecial];
}

function findByMergeKey(list: unknown[], key: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isPlainObject(item)) throw other(`value for key ${i} is not a map.`);
    if (key in item && scalarEqual(item[key], value)) return i;
  }
  return -1;
}

function deleteMatchingEntries(original: unknown[], key: string, value: unknown): unknown[] {
  const out = [...original];
  for (let i = findByMergeKey(out, key, value); i >= 0; i = findByMergeKey(out, key, value)) out.splice(i, 1);
  return out;
}

/** Patch items merge into the original item with the same merge key value, or are added. */
function mergeSliceWithoutSpecialElements(original: unknown[], patch: unknown[], meta: ListMeta): unknown[] {
  const out = [...original];
  for (const item of patch) {
    const typed = item as JsonMap;
    if (!(meta.mergeKey in typed)) throw errNoMergeKey(typed, meta.mergeKey);
    const at = findByMergeKey(out, meta.mergeKey, typed[meta.mergeKey]);
    if (at >= 0) out[at] = mergeMap(out[at] as JsonMap, typed, meta.items);
    else out.push(item);
  }
  // The original's items are updated in place, as Go's shared backing array is.
  for (let i = 0; i < original.length; i++) original[i] = out[i];
  return out;
}

function deleteFromSlice(current: unknown[], toDelete: unknown[]): unknown[] {
  return current.filter((v) => !toDelete.some((d) => scalarEqual(d, v)));
}

/** kube's deduplicateScalars, including the order it leaves behind. */
function deduplicateScalars(items: unknown[]): unknown[] {
  const s = [...items];
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (scalarEqual(s[i], s[j])) {
        s[j] = s[length];
        s.length = length;
        length--;
        j--;
      }
    }
  }
  return s;
}

function partitionPrimitives(items: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of items) (by.some((b) => scalarEqual(b, v)) ? inPatch : serverOnly).push(v);
  return [inPatch, serverOnly];
}

function partitionMapsByPresentInList(items: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of items) {
    if (!isPlainObject(v)) throw errBadArgType('map', v);
    if (!(mergeKey in v)) throw errNoMergeKey(v, mergeKey);
    (findByMergeKey(by, mergeKey, v[mergeKey]) >= 0 ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

// ---- order ----------------------------------------------------------------------------------

/** Position of an item in a list: by merge key value for objects, by value for scalars. */
function indexIn(list: unknown[], item: unknown, mergeKey: string, kind: ElementKind): number {
  const valueOf = (v: unknown) => (kind === 'map' ? (isPlainObject(v) ? v[mergeKey] : undefined) : v);
  const wanted = valueOf(item);
  return list.findIndex((v) => scalarEqual(valueOf(v), wanted));
}

function extractToDeleteItems(list: unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const toDelete: unknown[] = [];
  for (const v of list) {
    if (!isPlainObject(v)) throw errBadArgType('map', v);
    (v[DIRECTIVE_MARKER] === DELETE_DIRECTIVE ? toDelete : keep).push(v);
  }
  return [keep, toDelete];
}

function validateMergeKeyInLists(mergeKey: string, ...lists: unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isPlainObject(item)) throw errBadArgType('map', item);
      if (!(mergeKey in item)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

/** Sorts by position in `order` (stable; items not in it keep their place), deletions last. */
function normalizeSliceOrder(toSortIn: unknown[], order: unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  let toSort = toSortIn;
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, toSort, order);
    [toSort, toDelete] = extractToDeleteItems(toSort);
  }
  const sorted = toSort
    .map((item, i) => ({ item, i, at: indexIn(order, item, mergeKey, kind) }))
    .sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : a.i - b.i))
    .map((e) => e.item);
  return [...sorted, ...toDelete];
}

/**
 * Patch items in the patch's order, server-only items in the live order, interleaved:
 * a server-only item goes first only when the live list had it before the patch item.
 */
function normalizeElementOrder(patch: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  const sortedPatch = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const sortedServer = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < sortedServer.length || j < sortedPatch.length) {
    if (i >= sortedServer.length) out.push(sortedPatch[j++]);
    else if (j >= sortedPatch.length) out.push(sortedServer[i++]);
    else {
      const li = indexIn(serverOrder, sortedServer[i], mergeKey, kind);
      const ri = indexIn(serverOrder, sortedPatch[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(sortedServer[i++]);
      else out.push(sortedPatch[j++]);
    }
  }
  return out;
}
