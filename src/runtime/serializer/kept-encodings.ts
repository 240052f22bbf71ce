/**
 * JSON kept with values that are never changed once made (cached objects' list items,
 * who-can grants shared by answers): an answer that holds them again writes the kept bytes
 * instead of encoding them again. Keyed weakly, so the encoding lives as long as its value.
 *
 * Values are encoded a run at a time, the run's text kept as one UTF-8 buffer outside the
 * JavaScript heap. Kept as a string per value (55 MiB for 110,000 bindings), the text was
 * copied by every young-generation collection it survived and then grew the old generation:
 * the first full list spent more time collecting garbage than encoding. A later answer that
 * holds the same values in the same order (the next full list, the same who-can question)
 * writes each run as one slice of its buffer.
 */

/** The text of a run of values: ',A,B,...' in UTF-8; starts[k] is the comma before value k, starts[n] the end. */
interface Run {
  bytes: Buffer;
  starts: Uint32Array;
}

/** Where a value's kept text is. */
interface Place {
  run: Run;
  index: number;
}

/** null: marked by keepEncoding, not yet encoded. */
const kept = new WeakMap<object, Place | null>();

/**
 * At most this many values, or about this much text, per run. A run's buffer lives while
 * any of its values does, so a value that outlives the others of its run keeps at most this
 * much text alive.
 */
const RUN_VALUES = 1024;
const RUN_CHARS = 256 * 1024;
/** At most this many values that are not objects are encoded at a time. */
const PLAIN_VALUES = 1024;

/** Marks `value` as never changed again: its JSON is made once, the first time it is written. */
export function keepEncoding<T extends object>(value: T): T {
  if (!kept.has(value)) kept.set(value, null);
  return value;
}

const placeOf = (value: unknown): Place | null | undefined => (typeof value === 'object' && value !== null ? kept.get(value) : undefined);

/** JSON.stringify(value) as an element of an array ('null' for what it leaves out). */
const elementJson = (value: unknown): string => JSON.stringify(value) ?? 'null';

/** JSON.stringify(value), from the kept text when `value` was marked by keepEncoding. */
export function jsonOf(value: unknown): string {
  let place = placeOf(value);
  if (place === undefined) return elementJson(value);
  if (place === null) place = encodeRun([value], 0);
  return place.run.bytes.toString('utf8', place.run.starts[place.index] + 1, place.run.starts[place.index + 1]);
}

/**
 * Each stored object's list item, made once: a cached object is never changed (a change is a
 * new object), so every list of it hands out the same item, and the item's encoding is kept
 * with it (made once per version of the object).
 */
const listItems = new WeakMap<object, object>();

/** The object as a list's item (kube's list items carry no TypeMeta of their own), its encoding kept. */
export function listItemOf<T extends { apiVersion?: unknown; kind?: unknown }>(obj: T): T {
  let item = listItems.get(obj);
  if (!item) {
    const { apiVersion: _a, kind: _k, ...rest } = obj;
    item = keepEncoding(rest);
    listItems.set(obj, item);
  }
  return item as T;
}

/** Whether the object's list item has its encoding made (by a list, or ahead of one). */
export function listEncodingMade(obj: object): boolean {
  const item = listItems.get(obj);
  return item !== undefined && !!kept.get(item);
}

/**
 * Makes the list items of cached objects and their encodings now, in this order (a list in
 * the same order writes them as whole runs): a cache does it ahead of the first list.
 */
export function keepListEncodings(objects: readonly object[]): void {
  const items = objects.map((obj) => listItemOf(obj));
  for (let i = 0; i < items.length; ) {
    const place = placeOf(items[i]);
    if (place !== null) i++;
    else i += runLength(encodeRun(items, i));
  }
}

const runLength = (place: Place) => place.run.starts.length - 1 - place.index;

/**
 * Encodes the marked, not yet encoded values from items[from] on (up to RUN_VALUES of them,
 * or RUN_CHARS of text) into one run; answers the place of items[from].
 */
function encodeRun(items: readonly unknown[], from: number): Place {
  const texts: string[] = [];
  let chars = 0;
  for (let i = from; i < items.length && texts.length < RUN_VALUES && chars < RUN_CHARS; i++) {
    if (placeOf(items[i]) !== null) break;
    const text = elementJson(items[i]);
    texts.push(text);
    chars += text.length;
  }
  let size = texts.length;
  for (const text of texts) size += Buffer.byteLength(text, 'utf8');
  const bytes = Buffer.allocUnsafeSlow(size);
  const starts = new Uint32Array(texts.length + 1);
  let at = 0;
  for (let k = 0; k < texts.length; k++) {
    starts[k] = at;
    bytes[at++] = 0x2c; // ','
    at += bytes.write(texts[k], at, 'utf8');
  }
  starts[texts.length] = at;
  const run: Run = { bytes, starts };
  for (let k = 0; k < texts.length; k++) kept.set(items[from + k] as object, { run, index: k });
  return kept.get(items[from] as object)!;
}

/**
 * The elements of an array as JSON.stringify writes them, each but the first with the comma
 * before it: kept values from their runs' buffers (consecutive values of one run as one
 * slice), marked ones encoded now a run at a time, others encoded as strings.
 */
export function* elementParts(items: readonly unknown[]): Generator<string | Buffer, void, undefined> {
  const n = items.length;
  let i = 0;
  while (i < n) {
    const value = items[i];
    if (value === null || typeof value !== 'object') {
      // Values that are not objects (a who-can answer's names) are encoded many at a time.
      let j = i + 1;
      while (j < n && j - i < PLAIN_VALUES && (items[j] === null || typeof items[j] !== 'object')) j++;
      const text = JSON.stringify(items.slice(i, j)).slice(1, -1);
      yield i ? `,${text}` : text;
      i = j;
      continue;
    }
    let place = placeOf(value);
    if (place === undefined) {
      const text = elementJson(value);
      yield i ? `,${text}` : text;
      i++;
      continue;
    }
    if (place === null) place = encodeRun(items, i);
    const { run, index } = place;
    let j = i + 1;
    while (j < n && index + (j - i) < run.starts.length - 1) {
      const next = placeOf(items[j]);
      if (!next || next.run !== run || next.index !== index + (j - i)) break;
      j++;
    }
    yield run.bytes.subarray(run.starts[index] + (i ? 0 : 1), run.starts[index + (j - i)]);
    i = j;
  }
}
