import { ListSchema, Schema } from '../schema/schema';
import { FieldSet } from './field-set';
import { describePath, field, FieldPath, keyItem, PathElement, serializePathElement, valueItem } from './path-element';
import { jsonEqual } from '../../apimachinery/system-metadata';
import { isJsonObject, JsonValue } from './value';
import { ownValue, setOwn } from '../../apimachinery/types';
import { unstructuredIntegerError } from '../schema/schema-decoder';

/**
 * The schema-driven operations of server-side apply, as structured-merge-diff's `typed`
 * package defines them, over plain JSON values: the field set of a value, the comparison
 * of two values, the merge of an applied configuration into a live object, and the
 * removal of a set of fields. `undefined` is an absent field; `null` is a present null.
 *
 * A schema node is a leaf (scalar, untyped, or marked atomic: owned and replaced whole),
 * a granular struct or map (each field or key on its own), or an associative list (a set
 * of scalars, or a map-list keyed by its map keys).
 */

const UNTYPED: Schema = { kind: 'any' };

/** A value that does not fit its schema, or a list item without a usable key. */
export class TypedValueError extends Error {
  constructor(
    readonly path: FieldPath,
    readonly detail: string,
  ) {
    super(path.length ? `${describePath(path)}: ${detail}` : detail);
  }
}

type Shape = 'leaf' | 'fields' | 'list';

function shapeOf(schema: Schema): Shape {
  switch (schema.kind) {
    case 'scalar':
    case 'any':
      return 'leaf';
    case 'list':
      return schema.listType === 'atomic' ? 'leaf' : 'list';
    default:
      return schema.mapType === 'atomic' ? 'leaf' : 'fields';
  }
}

/** The schema of a struct field or map value; a field the schema does not know is untyped. */
function fieldSchema(schema: Schema, name: string): { schema: Schema; declared: boolean } {
  if (schema.kind === 'struct') {
    const s = Object.hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
    return s ? { schema: s, declared: true } : { schema: UNTYPED, declared: false };
  }
  if (schema.kind === 'map') return { schema: schema.values, declared: false };
  return { schema: UNTYPED, declared: false };
}

function itemSchema(schema: Schema): Schema {
  return schema.kind === 'list' ? schema.items : UNTYPED;
}

/** The path element naming a list item: its key fields (map-list) or its value (set). */
export function listItemPathElement(list: ListSchema, item: unknown): PathElement | string {
  if (list.listType === 'map' && list.mapKeys?.length) {
    if (item === null) return 'associative list with keys may not have a null element';
    if (!isJsonObject(item)) return 'associative list with keys may not have non-map elements';
    const fields: Record<string, JsonValue> = {};
    for (const key of list.mapKeys) {
      if (item[key] === undefined || !Object.hasOwn(item, key)) {
        return `associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`;
      }
      fields[key] = item[key];
    }
    return keyItem(fields);
  }
  if (isJsonObject(item)) return "associative list without keys has an element that's a map type";
  if (Array.isArray(item)) return 'not supported: associative list with lists as elements';
  if (item === null) return "associative list without keys has an element that's an explicit null";
  return valueItem(item as JsonValue);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'object') return 'map';
  return typeof v === 'number' ? 'number' : typeof v;
}

function checkScalar(schema: Schema, v: unknown, path: FieldPath): void {
  if (schema.kind !== 'scalar' || v === null) return;
  const intOrString = schema.format === 'int-or-string';
  const ok =
    schema.type === 'string'
      ? typeof v === 'string' || (intOrString && typeof v === 'number')
      : schema.type === 'boolean'
        ? typeof v === 'boolean'
        : typeof v === 'number';
  if (!ok) {
    const expected = schema.type === 'string' ? 'string' : schema.type === 'boolean' ? 'boolean' : 'numeric (int or float)';
    throw new TypedValueError(path, `expected ${expected}, got ${typeName(v)}`);
  }
  // Numeric to structured-merge-diff, but kube's conversion to the kind's Go type then needs an integer that fits.
  const integerError = schema.type === 'integer' ? unstructuredIntegerError(v as number, schema) : undefined;
  if (integerError) throw new TypedValueError(path, integerError);
}

// ---- validation ------------------------------------------------------------------------

/**
 * Checks that a value fits its schema the way structured-merge-diff checks an applied
 * configuration: types everywhere (atomic values included), no undeclared struct fields,
 * and associative list items with their keys and without duplicates.
 */
export function validateValue(value: unknown, schema: Schema): void {
  const walk = (path: PathElement[], v: unknown, s: Schema): void => {
    if (v === undefined || v === null) return;
    switch (s.kind) {
      case 'any':
        return;
      case 'scalar':
        return checkScalar(s, v, path);
      case 'list': {
        if (!Array.isArray(v)) throw new TypedValueError(path, `expected list, got ${typeName(v)}`);
        const seen = new Set<string>();
        v.forEach((item, i) => {
          if (s.listType === 'atomic') return walk(path, item, s.items);
          const pe = listItemPathElement(s, item);
          if (typeof pe === 'string') throw new TypedValueError(path, `element ${i}: ${pe}`);
          const id = serializePathElement(pe);
          if (seen.has(id)) throw new TypedValueError(path, `duplicate entries for key ${describePath([pe])}`);
          seen.add(id);
          walk([...path, pe], item, s.items);
        });
        return;
      }
      default: {
        if (!isJsonObject(v)) throw new TypedValueError(path, `expected map, got ${typeName(v)}`);
        for (const [key, child] of Object.entries(v)) {
          const f = fieldSchema(s, key);
          if (s.kind === 'struct' && !f.declared) throw new TypedValueError([...path, field(key)], 'field not declared in schema');
          walk([...path, field(key)], child, f.schema);
        }
      }
    }
  };
  walk([], value, schema);
}

// ---- field sets ------------------------------------------------------------------------

/**
 * The fields a value sets (ToFieldSet): scalars and atomic values as leaves, every item of
 * an associative list, every key of a map. A value that does not fit its schema, or a
 * field the schema does not know, counts as an opaque leaf.
 */
export function toFieldSet(value: unknown, schema: Schema): FieldSet {
  const set = new FieldSet();
  const walk = (path: PathElement[], v: unknown, s: Schema): void => {
    if (v === undefined) return;
    const shape = shapeOf(s);
    if (shape === 'leaf') return set.insert(path);
    if (v === null) return;
    if (shape === 'list') {
      if (!Array.isArray(v)) return set.insert(path);
      for (const item of v) {
        const pe = listItemPathElement(s as ListSchema, item);
        if (typeof pe === 'string') continue;
        const itemPath = [...path, pe];
        walk(itemPath, item, itemSchema(s));
        set.insert(itemPath);
      }
      return;
    }
    if (!isJsonObject(v)) return set.insert(path);
    for (const [key, child] of Object.entries(v)) {
      const f = fieldSchema(s, key);
      const childPath = [...path, field(key)];
      walk(childPath, child, f.schema);
      if (!f.declared) set.insert(childPath);
    }
  };
  walk([], value, schema);
  return set;
}

// ---- comparison ------------------------------------------------------------------------

/** What changed from one value to another, by path: no path is in two of the sets. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

interface Occurrences {
  pe: PathElement;
  items: unknown[];
}

/** List items grouped by path element, in first-seen order; items without a key are left out. */
function indexItems(list: ListSchema, items: unknown[] | null): Map<string, Occurrences> {
  const index = new Map<string, Occurrences>();
  for (const item of items ?? []) {
    const pe = listItemPathElement(list, item);
    if (typeof pe === 'string') continue;
    const id = serializePathElement(pe);
    const entry = index.get(id);
    if (entry) entry.items.push(item);
    else index.set(id, { pe, items: [item] });
  }
  return index;
}

const asList = (v: unknown): unknown[] | null => (Array.isArray(v) ? v : null);
const asFields = (v: unknown): Record<string, unknown> | null => (isJsonObject(v) ? v : null);

/** Compare: which fields `rhs` adds to, modifies in, or removes from `lhs`. */
export function compare(lhs: unknown, rhs: unknown, schema: Schema): Comparison {
  const result: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  const leaf = (path: PathElement[], l: unknown, r: unknown) => {
    if (l === undefined) result.added.insert(path);
    else if (r === undefined) result.removed.insert(path);
    else if (!jsonEqual(l, r)) result.modified.insert(path);
  };
  const walk = (path: PathElement[], l: unknown, r: unknown, s: Schema): void => {
    if (l === undefined && r === undefined) return;
    if (l !== undefined && r !== undefined && jsonEqual(l, r)) return;
    const shape = shapeOf(s);
    if (shape === 'list') {
      const ll = asList(l);
      const rl = asList(r);
      const mismatch = (l !== undefined && l !== null && !ll) || (r !== undefined && r !== null && !rl);
      if (mismatch || (!ll?.length && !rl?.length)) return leaf(path, l, r);
      compareItems(path, s as ListSchema, ll, rl);
    } else if (shape === 'fields') {
      const lm = asFields(l);
      const rm = asFields(r);
      const mismatch = (l !== undefined && l !== null && !lm) || (r !== undefined && r !== null && !rm);
      const lKeys = lm ? Object.keys(lm) : [];
      const rKeys = rm ? Object.keys(rm) : [];
      if (mismatch || (!lKeys.length && !rKeys.length)) return leaf(path, l, r);
      // The keys of both sides, each once (a Set of a 60,000-key map's keys cost as much as the walk).
      const keys = lm && rKeys.length ? lKeys.concat(rKeys.filter((key) => !Object.hasOwn(lm, key))) : lKeys.length ? lKeys : rKeys;
      for (const key of keys) walk([...path, field(key)], lm ? ownValue(lm, key) : undefined, rm ? ownValue(rm, key) : undefined, fieldSchema(s, key).schema);
    } else {
      return leaf(path, l, r);
    }
    // A granular value that appears or disappears as a whole is itself added or removed.
    if (l === undefined) result.added.insert(path);
    else if (r === undefined) result.removed.insert(path);
  };
  const compareItems = (path: PathElement[], list: ListSchema, l: unknown[] | null, r: unknown[] | null) => {
    const left = indexItems(list, l);
    const right = indexItems(list, r);
    const ids = [...left.keys(), ...[...right.keys()].filter((id) => !left.has(id))];
    for (const id of ids) {
      const lo = left.get(id);
      const ro = right.get(id);
      const pe = (lo ?? ro)!.pe;
      const itemPath = [...path, pe];
      const lCount = lo?.items.length ?? 0;
      const rCount = ro?.items.length ?? 0;
      if (lCount <= 1 && rCount <= 1) walk(itemPath, lo?.items[0], ro?.items[0], list.items);
      else if (lCount >= 2 && rCount >= 2) {
        // Duplicated before and after: the duplicates compare as one atomic value.
        if (!jsonEqual(lo!.items, ro!.items)) result.modified.insert(itemPath);
      } else if (lCount >= 2) {
        if (rCount) walk(itemPath, undefined, ro!.items[0], list.items);
        result.removed.insert(itemPath);
      } else {
        if (lCount) walk(itemPath, lo!.items[0], undefined, list.items);
        result.added.insert(itemPath);
      }
    }
  };
  walk([], lhs, rhs, schema);
  return result;
}

// ---- merge -----------------------------------------------------------------------------

/**
 * Merges an applied configuration (`rhs`) into a live value (`lhs`): leaves and atomic
 * values take the configuration's value; structs and maps merge key by key; associative
 * lists merge item by item, keeping the live order around the configuration's items.
 */
export function merge(lhs: unknown, rhs: unknown, schema: Schema): unknown {
  const shape = shapeOf(schema);
  const keepRhs = () => (rhs !== undefined ? rhs : lhs);
  if (shape === 'leaf') return keepRhs();
  if (shape === 'list') {
    const ll = asList(lhs);
    const rl = asList(rhs);
    const mismatch = (lhs !== undefined && lhs !== null && !ll) || (rhs !== undefined && rhs !== null && !rl);
    if (mismatch || (!ll?.length && !rl?.length)) return keepRhs();
    const out = mergeItems(schema as ListSchema, ll ?? [], rl ?? []);
    return out.length ? out : undefined;
  }
  const lm = asFields(lhs);
  const rm = asFields(rhs);
  const mismatch = (lhs !== undefined && lhs !== null && !lm) || (rhs !== undefined && rhs !== null && !rm);
  if (mismatch || ((!lm || !Object.keys(lm).length) && (!rm || !Object.keys(rm).length))) return keepRhs();
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(lm ?? {})) {
    const merged = merge(value, rm ? ownValue(rm, key) : undefined, fieldSchema(schema, key).schema);
    if (merged !== undefined) setOwn(out, key, merged);
  }
  for (const [key, value] of Object.entries(rm ?? {})) {
    if (lm && Object.hasOwn(lm, key)) continue;
    const merged = merge(undefined, value, fieldSchema(schema, key).schema);
    if (merged !== undefined) setOwn(out, key, merged);
  }
  return Object.keys(out).length ? out : undefined;
}

interface Indexed {
  order: { id: string; pe: PathElement }[];
  byId: Map<string, unknown>;
  unkeyed: unknown[];
}

function indexFirst(list: ListSchema, items: unknown[]): Indexed {
  const order: { id: string; pe: PathElement }[] = [];
  const byId = new Map<string, unknown>();
  const unkeyed: unknown[] = [];
  for (const item of items) {
    const pe = listItemPathElement(list, item);
    if (typeof pe === 'string') {
      unkeyed.push(item);
      continue;
    }
    const id = serializePathElement(pe);
    if (byId.has(id)) continue;
    byId.set(id, item);
    order.push({ id, pe });
  }
  return { order, byId, unkeyed };
}

/**
 * The merged items of an associative list, ordered as structured-merge-diff orders them:
 * items only in the live list stay where they are; the configuration's items come in its
 * order, and an item in both moves to the configuration's position among the shared ones.
 */
function mergeItems(list: ListSchema, lhs: unknown[], rhs: unknown[]): unknown[] {
  const l = indexFirst(list, lhs);
  const r = indexFirst(list, rhs);
  const shared = r.order.filter((e) => l.byId.has(e.id)).map((e) => e.id);
  let nextShared = 0;
  const out: unknown[] = [];
  const emit = (lv: unknown, rv: unknown) => {
    const merged = merge(lv, rv, list.items);
    if (merged !== undefined) out.push(merged);
  };
  let li = 0;
  let ri = 0;
  while (li < l.order.length || ri < r.order.length) {
    if (li < l.order.length && ri < r.order.length) {
      const lid = l.order[li].id;
      if (lid === r.order[ri].id) {
        emit(l.byId.get(lid), r.byId.get(lid));
        li++;
        ri++;
        nextShared++;
        continue;
      }
      // A shared item that is not the next one in the configuration's order waits for it.
      if (r.byId.has(lid) && nextShared < shared.length && shared[nextShared] !== lid) {
        li++;
        continue;
      }
    }
    if (li < l.order.length && !r.byId.has(l.order[li].id)) {
      const lid = l.order[li].id;
      emit(l.byId.get(lid), undefined);
      li++;
      continue;
    }
    if (ri < r.order.length) {
      const rid = r.order[ri].id;
      emit(l.byId.get(rid), r.byId.get(rid));
      ri++;
      if (nextShared < shared.length && shared[nextShared] === rid) nextShared++;
      continue;
    }
    // Only shared live items already merged remain.
    li++;
  }
  // Live items without a usable key cannot be matched; they are kept as they were.
  return [...out, ...l.unkeyed];
}

// ---- removal ---------------------------------------------------------------------------

/**
 * The value without the fields in `set` (RemoveItems): a member path removes the field or
 * item; paths below it remove inside it. A struct, map or list emptied by the removal
 * disappears, as an empty optional value does once kube decodes the object.
 */
export function removeItems(value: unknown, set: FieldSet, schema: Schema): unknown {
  if (set.empty()) return value;
  const shape = shapeOf(schema);
  if (shape === 'leaf') return value;
  if (shape === 'list') {
    if (!Array.isArray(value) || value.length === 0) return value;
    const out: unknown[] = [];
    let matched = false;
    for (const item of value) {
      const pe = listItemPathElement(schema as ListSchema, item);
      if (typeof pe === 'string') {
        out.push(item);
        continue;
      }
      if (set.hasMember(pe)) {
        matched = true;
        continue;
      }
      const below = set.withPrefix(pe);
      if (below.empty()) {
        out.push(item);
        continue;
      }
      matched = true;
      const kept = removeItems(item, below, itemSchema(schema));
      // An item keeps its place even when everything inside it went.
      out.push(kept === undefined ? (Array.isArray(item) ? [] : {}) : kept);
    }
    return out.length || !matched ? out : undefined;
  }
  if (!isJsonObject(value) || Object.keys(value).length === 0) return value;
  const out: Record<string, unknown> = {};
  let matched = false;
  for (const [key, child] of Object.entries(value)) {
    const pe = field(key);
    if (set.hasMember(pe)) {
      matched = true;
      continue;
    }
    const below = set.withPrefix(pe);
    if (below.empty()) {
      setOwn(out, key, child);
      continue;
    }
    matched = true;
    const kept = removeItems(child, below, fieldSchema(schema, key).schema);
    if (kept !== undefined) setOwn(out, key, kept);
  }
  return Object.keys(out).length || !matched ? out : undefined;
}

// ---- schema-aware set transforms -------------------------------------------------------

/**
 * The set plus, as members, every declared struct field it has members below
 * (EnsureNamedFieldsAreMembers): so pruning removes a struct field whose contents the
 * applier owned, not just the items inside it.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, schema: Schema | undefined): FieldSet {
  const out = new FieldSet();
  for (const pe of set.memberElements) out.insertMember(pe);
  for (const node of set.childNodes) {
    let child: Schema | undefined;
    if (node.pe.kind === 'field' && schema && (schema.kind === 'struct' || schema.kind === 'map')) {
      const f = fieldSchema(schema, node.pe.name);
      if (f.declared) out.insertMember(node.pe);
      child = schema.kind === 'struct' && !f.declared ? undefined : f.schema;
    } else if (node.pe.kind === 'key' && schema?.kind === 'list') {
      child = schema.items;
    }
    out.attachChild(node.pe, ensureNamedFieldsAreMembers(node.set, child));
  }
  return out;
}

/**
 * A set written under an older schema, made to fit the current one: an owner of fields
 * inside a value that is now atomic owns the whole value (spec rule 6). A value that
 * became granular keeps its owner on the value itself, leaving the fields inside unowned.
 */
export function reconcileWithSchema(set: FieldSet, schema: Schema): FieldSet {
  const out = new FieldSet();
  for (const pe of set.memberElements) out.insertMember(pe);
  for (const node of set.childNodes) {
    const child = childSchemaOf(schema, node.pe);
    if (!child || node.set.empty()) {
      out.attachChild(node.pe, node.set);
    } else if (shapeOf(child) === 'leaf' && child.kind !== 'scalar' && child.kind !== 'any') {
      out.insertMember(node.pe);
    } else {
      out.attachChild(node.pe, reconcileWithSchema(node.set, child));
    }
  }
  return out;
}

function childSchemaOf(schema: Schema, pe: PathElement): Schema | undefined {
  if (pe.kind === 'field' && (schema.kind === 'struct' || schema.kind === 'map')) {
    const f = fieldSchema(schema, pe.name);
    return schema.kind === 'struct' && !f.declared ? undefined : f.schema;
  }
  if ((pe.kind === 'key' || pe.kind === 'value') && schema.kind === 'list') return schema.items;
  return undefined;
}
