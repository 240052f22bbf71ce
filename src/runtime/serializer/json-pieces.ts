import { randomUUID } from 'node:crypto';
import { isPlainObject } from '../../apimachinery/types';
import { arrayParts } from './kept-arrays';

/** Arrays at least this long, one or two levels down (a who-can answer's grants), are written element by element. */
const LONG_ARRAY = 256;

interface LongArray {
  /** `field` of the value, or `field`.`inner`. */
  field: string;
  inner?: string;
  items: unknown[];
}

/** Whether an array of an answer's top is long: any array of LONG_ARRAY elements, `items` or `rows` of more than one. */
const isLongArray = (field: string, child: unknown[]) => child.length >= LONG_ARRAY || ((field === 'items' || field === 'rows') && child.length > 1);

/** The long arrays of an answer: `items` or `rows` at its top, and any long array one or two levels down. */
function longArrays(value: Record<string, unknown>): LongArray[] {
  const found: LongArray[] = [];
  for (const field of Object.keys(value)) {
    const child = value[field];
    if (Array.isArray(child)) {
      if (isLongArray(field, child)) found.push({ field, items: child });
    } else if (isPlainObject(child)) {
      for (const inner of Object.keys(child)) {
        const grandchild = child[inner];
        if (Array.isArray(grandchild) && grandchild.length >= LONG_ARRAY) found.push({ field, inner, items: grandchild });
      }
    }
  }
  return found;
}

/**
 * Whether jsonPieces cuts `value` into pieces (a list, a Table, a large answer): else it is one
 * piece. Asked of every answer, most of which have none: nothing is allocated to tell.
 */
export function hasLongArrays(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  for (const field in value) {
    if (!Object.hasOwn(value, field)) continue;
    const child = value[field];
    if (Array.isArray(child)) {
      if (isLongArray(field, child)) return true;
    } else if (isPlainObject(child)) {
      for (const inner in child) {
        if (!Object.hasOwn(child, inner)) continue;
        const grandchild = child[inner];
        if (Array.isArray(grandchild) && grandchild.length >= LONG_ARRAY) return true;
      }
    }
  }
  return false;
}

/**
 * The text of JSON.stringify(value), in order, as pieces: the elements of its long arrays a
 * few at a time (kept encodings as slices of their UTF-8 bytes, with the comma before each
 * element), the rest in a few pieces. Lets a writer encode a large answer a slice at a time and
 * send it as it goes, never holding the whole text; joined (Buffers read as UTF-8), the pieces
 * are exactly JSON.stringify's text.
 */
export function* jsonParts(value: unknown): Generator<string | Buffer, void, undefined> {
  const arrays = isPlainObject(value) ? longArrays(value) : [];
  if (!arrays.length) {
    yield JSON.stringify(value);
    return;
  }
  const marker = randomUUID();
  // Each array keeps its place among the other fields: an existing key is overwritten in place.
  const envelope: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  arrays.forEach(({ field, inner }, n) => {
    if (inner === undefined) envelope[field] = `${marker}${n}`;
    else envelope[field] = { ...(envelope[field] as Record<string, unknown>), [inner]: `${marker}${n}` };
  });
  const text = JSON.stringify(envelope);
  const places = arrays.map((array, n) => ({ array, at: text.indexOf(`"${marker}${n}"`), length: marker.length + String(n).length + 2 })).sort((x, y) => x.at - y.at);
  let from = 0;
  for (const { array, at, length } of places) {
    yield `${text.slice(from, at)}[`;
    yield* arrayParts(array.items);
    yield ']';
    from = at + length;
  }
  yield text.slice(from);
}

/** jsonParts as text only (for a writer that needs one string: Table, YAML, protobuf). */
export function* jsonPieces(value: unknown): Generator<string, void, undefined> {
  for (const part of jsonParts(value)) yield typeof part === 'string' ? part : part.toString('utf8');
}
