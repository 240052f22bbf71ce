import { parseJsonWithinDepth } from '../document/nesting';
import { jsonEqual } from '../../apimachinery/system-metadata';
import { compareStrings, compareValues, describeValue, goJson, goJsonString, isJsonObject, JsonValue } from './value';

/**
 * One step of a field path, as structured-merge-diff names them: a field of a struct or
 * map, the item of a map-list with the given key fields, the item of a set with the given
 * value, or an item by index. Key fields are kept sorted by name.
 */
export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly fields: readonly KeyField[] }
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'index'; readonly index: number };

export interface KeyField {
  readonly name: string;
  readonly value: JsonValue;
}

/** A path from the object's root. */
export type FieldPath = readonly PathElement[];

export const field = (name: string): PathElement => ({ kind: 'field', name });
export const valueItem = (value: JsonValue): PathElement => ({ kind: 'value', value });
export const indexItem = (index: number): PathElement => ({ kind: 'index', index });

export function keyItem(fields: Record<string, JsonValue> | KeyField[]): PathElement {
  const list = Array.isArray(fields) ? [...fields] : Object.entries(fields).map(([name, value]) => ({ name, value }));
  list.sort((a, b) => compareStrings(a.name, b.name));
  return { kind: 'key', fields: list };
}

const KIND_RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

function compareKeys(a: readonly KeyField[], b: readonly KeyField[]): number {
  for (let i = 0; ; i++) {
    if (i >= a.length) return i >= b.length ? 0 : -1;
    if (i >= b.length) return 1;
    const c = compareStrings(a[i].name, b[i].name) || compareValues(a[i].value, b[i].value);
    if (c !== 0) return c;
  }
}

/** structured-merge-diff's order: fields, then keys, then values, then indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_RANK[a.kind] < KIND_RANK[b.kind] ? -1 : 1;
  switch (a.kind) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'key':
      return compareKeys(a.fields, (b as typeof a).fields);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index': {
      const other = (b as typeof a).index;
      return a.index === other ? 0 : a.index < other ? -1 : 1;
    }
  }
}

export function pathElementsEqual(a: PathElement, b: PathElement): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'field':
      return a.name === (b as typeof a).name;
    case 'index':
      return a.index === (b as typeof a).index;
    case 'value':
      return jsonEqual(a.value, (b as typeof a).value);
    case 'key': {
      const other = (b as typeof a).fields;
      return a.fields.length === other.length && a.fields.every((f, i) => f.name === other[i].name && jsonEqual(f.value, other[i].value));
    }
  }
}

/** The FieldsV1 key of a path element: `f:name`, `k:{"name":"x"}`, `v:"x"`, `i:0`. */
export function serializePathElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map((f) => `${goJsonString(f.name)}:${goJson(f.value)}`).join(',')}}`;
    case 'value':
      return `v:${goJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** A FieldsV1 key that is not a path element structured-merge-diff can read. */
export class PathElementSyntaxError extends Error {}

/**
 * Parses a FieldsV1 key. Returns null for a key of an unknown type, which readers skip
 * (a newer writer may know it), as structured-merge-diff does.
 */
export function parsePathElement(text: string): PathElement | null {
  if (text.length < 2) throw new PathElementSyntaxError('key must be 2 characters long:');
  if (text[1] !== ':') throw new PathElementSyntaxError(`missing colon: ${text}`);
  const body = text.slice(2);
  switch (text[0]) {
    case 'f':
      return field(body);
    case 'v':
      return valueItem(parseJsonText(body) as JsonValue);
    case 'k': {
      const parsed = parseJsonText(body);
      if (!isJsonObject(parsed)) throw new PathElementSyntaxError(`expected an object of key fields: ${text}`);
      return keyItem(parsed);
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(body)) throw new PathElementSyntaxError(`strconv.Atoi: parsing ${JSON.stringify(body)}: invalid syntax`);
      return indexItem(Number(body));
    }
    default:
      return null;
  }
}

function parseJsonText(text: string): unknown {
  try {
    return parseJsonWithinDepth(text);
  } catch (err) {
    throw new PathElementSyntaxError((err as Error).message);
  }
}

/** A path element as conflict messages print it: `.name`, `[name="x"]`, `[="x"]`, `[0]`. */
export function describePathElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map((f) => `${f.name}=${describeValue(f.value)}`).join(',')}]`;
    case 'value':
      return `[=${describeValue(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

export function describePath(path: FieldPath): string {
  return path.map(describePathElement).join('');
}
