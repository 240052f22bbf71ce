import { isPlainObject, ownValue, setOwn } from '../../apimachinery/types';
import { deepClone, jsonEqual } from '../../apimachinery/system-metadata';
import { Bracket, MAX_NESTING_DEPTH, valueTooDeep } from '../document/nesting';

/**
 * RFC 6902 JSON patch with kube's semantics (gopkg.in/evanphx/json-patch.v4, which kube
 * applies patches with): each operation is checked against the document the way that
 * library resolves paths (negative array indexes count from the end, `replace` of a
 * missing object key sets it, a null on the path is missing), failing with its words. The
 * first failing operation rejects the whole patch. Object keys are map keys whatever
 * their name (`__proto__` included), as in Go.
 *
 * Two bounds keep a patch of a few kilobytes from building a huge document: copies may
 * add at most MAX_COPY_BYTES (kube's JSONPatchMaxCopyBytes), and no operation may nest
 * the document deeper than MAX_NESTING_DEPTH (the decoders' limit, which kube's decoding
 * of the patched object enforces).
 */
export class JsonPatchApplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPatchApplyError';
  }
}

/** An operation made the document deeper than the decoders accept; `document` is the result. */
export class JsonPatchDepthError extends Error {
  constructor(
    readonly bracket: Bracket,
    readonly document: unknown,
  ) {
    super(`the patched object nests deeper than ${MAX_NESTING_DEPTH} levels`);
    this.name = 'JsonPatchDepthError';
  }
}

/** kube-apiserver's default JSONPatchMaxCopyBytes. */
export const MAX_COPY_BYTES = 3 * 1024 * 1024;

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';
const TEST_FAILED = 'test failed';

type Container = { kind: 'object'; value: Record<string, unknown> } | { kind: 'array'; value: unknown[] };

/** A resolved path: the container of its last token, that token, and how many tokens deep it is. */
interface Location {
  container: Container;
  key: string;
  depth: number;
}

function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Go's strconv.Atoi, with its error text. Indexes too large for an int are out of range for Go too. */
function atoi(key: string): number {
  if (!/^[+-]?\d+$/.test(key)) throw new JsonPatchApplyError(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  const n = Number(key);
  if (!Number.isSafeInteger(n)) throw new JsonPatchApplyError(`strconv.Atoi: parsing ${JSON.stringify(key)}: value out of range`);
  return n;
}

function containerOf(value: unknown): Container | null {
  if (Array.isArray(value)) return { kind: 'array', value };
  if (isPlainObject(value)) return { kind: 'object', value };
  return null;
}

/** evanphx's findObject: the container of the path's last token, or null when any step is missing. */
function findContainer(doc: unknown, path: string): Location | null {
  const parts = path.split('/');
  if (parts.length < 2) return null;
  let node: unknown = doc;
  for (const raw of parts.slice(1, -1)) {
    const token = unescapeToken(raw);
    let next: unknown;
    if (Array.isArray(node)) {
      const idx = /^[+-]?\d+$/.test(token) ? resolveIndex(Number(token), node.length) : -1;
      if (idx < 0 || idx >= node.length) return null;
      next = node[idx];
    } else if (isPlainObject(node)) {
      next = ownValue(node, token);
    } else return null;
    if (next === null || next === undefined || typeof next !== 'object') return null;
    node = next;
  }
  return { container: containerOf(node)!, key: unescapeToken(parts[parts.length - 1]), depth: parts.length - 1 };
}

/** Negative indexes count from the end (evanphx's SupportNegativeIndices). */
function resolveIndex(idx: number, length: number): number {
  return idx < 0 ? idx + length : idx;
}

function invalidIndex(idx: number): JsonPatchApplyError {
  return new JsonPatchApplyError(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
}

/** The index of an existing array item; throws evanphx's get error. */
function existingIndex(items: unknown[], key: string): number {
  const idx = atoi(key);
  const at = resolveIndex(idx, items.length);
  if (idx < -items.length || at >= items.length) throw invalidIndex(idx);
  return at;
}

/** The value at a location (null for a missing object key); throws evanphx's get error. */
function getAt(loc: Location): unknown {
  const c = loc.container;
  if (c.kind === 'object') return ownValue(c.value, loc.key) ?? null;
  return c.value[existingIndex(c.value, loc.key)];
}

/** evanphx's add: sets an object key, or inserts into a list (`-` appends; an index may equal the length). */
function addAt(loc: Location, value: unknown): void {
  const c = loc.container;
  if (c.kind === 'object') return setOwn(c.value, loc.key, value);
  if (loc.key === '-') {
    c.value.push(value);
    return;
  }
  let idx: number;
  try {
    idx = atoi(loc.key);
  } catch (err) {
    throw new JsonPatchApplyError(`value was not a proper array index: '${loc.key}': ${(err as Error).message}`);
  }
  const size = c.value.length + 1;
  if (idx >= size || idx < -size) throw invalidIndex(idx);
  c.value.splice(resolveIndex(idx, size), 0, value);
}

/** evanphx's remove: the removed value. */
function removeAt(loc: Location): unknown {
  const c = loc.container;
  if (c.kind === 'object') {
    if (!Object.hasOwn(c.value, loc.key)) throw new JsonPatchApplyError(`Unable to remove nonexistent key: ${loc.key}: ${MISSING}`);
    const removed = c.value[loc.key];
    delete c.value[loc.key];
    return removed;
  }
  return c.value.splice(existingIndex(c.value, loc.key), 1)[0];
}

function wrap(prefix: string, err: unknown): JsonPatchApplyError {
  return new JsonPatchApplyError(`${prefix}: ${(err as Error).message}`);
}

type RawOperation = Record<string, unknown>;

/** A string member of the operation, or undefined when it is absent. */
function member(op: RawOperation, name: 'path' | 'from'): string | undefined {
  const v = ownValue(op, name);
  return typeof v === 'string' ? v : undefined;
}

/** Applies operations to one document (a copy the caller owns), tracking what copies add. */
class Patching {
  private copiedBytes = 0;

  constructor(public doc: Record<string, unknown>) {}

  /** Refuses a value placed `depth` tokens down that would nest the document too deep. */
  private placed(depth: number, value: unknown): void {
    const bracket = valueTooDeep(value, MAX_NESTING_DEPTH, depth);
    if (bracket) throw new JsonPatchDepthError(bracket, this.doc);
  }

  apply(op: RawOperation): void {
    const kind = typeof op.op === 'string' && Object.hasOwn(op, 'op') ? op.op : 'unknown';
    const path = member(op, 'path');
    const value = Object.hasOwn(op, 'value') ? op.value : null;
    const missingPath = `operation missing path field: ${MISSING}`;
    switch (kind) {
      case 'add': {
        if (path === undefined) throw new JsonPatchApplyError(`add operation failed to decode path: ${MISSING}`);
        const loc = findContainer(this.doc, path);
        if (!loc) throw new JsonPatchApplyError(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
        try {
          addAt(loc, value);
        } catch (err) {
          throw wrap(`error in add for path: '${path}'`, err);
        }
        return this.placed(loc.depth, value);
      }
      case 'remove': {
        if (path === undefined) throw new JsonPatchApplyError(`remove operation failed to decode path: ${MISSING}`);
        const loc = findContainer(this.doc, path);
        if (!loc) throw new JsonPatchApplyError(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
        try {
          removeAt(loc);
        } catch (err) {
          throw wrap(`error in remove for path: '${path}'`, err);
        }
        return;
      }
      case 'replace': {
        if (path === undefined) throw new JsonPatchApplyError(`replace operation failed to decode path: ${missingPath}`);
        if (path === '') {
          if (!isPlainObject(value) && !Array.isArray(value)) throw new JsonPatchApplyError('replace operation value must be object or array: %!w(<nil>)');
          this.doc = value as Record<string, unknown>;
          return this.placed(0, value);
        }
        const loc = findContainer(this.doc, path);
        if (!loc) throw new JsonPatchApplyError(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
        const c = loc.container;
        // Replacing a missing object key sets it, as evanphx does.
        if (c.kind === 'object') setOwn(c.value, loc.key, value);
        else {
          let idx: number;
          try {
            idx = existingIndex(c.value, loc.key);
          } catch {
            throw new JsonPatchApplyError(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
          }
          c.value[idx] = value;
        }
        return this.placed(loc.depth, value);
      }
      case 'move': {
        const from = member(op, 'from');
        if (from === undefined) throw new JsonPatchApplyError(`move operation failed to decode from: operation, missing from field: ${MISSING}`);
        const source = findContainer(this.doc, from);
        if (!source) throw new JsonPatchApplyError(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
        let moved: unknown;
        try {
          moved = removeAt(source);
        } catch (err) {
          throw wrap(`error in move for path: '${source.key}'`, err);
        }
        if (path === undefined) throw new JsonPatchApplyError(`move operation failed to decode path: ${missingPath}`);
        const target = findContainer(this.doc, path);
        if (!target) throw new JsonPatchApplyError(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
        try {
          addAt(target, moved);
        } catch (err) {
          throw wrap(`error in move for path: '${path}'`, err);
        }
        return this.placed(target.depth, moved);
      }
      case 'copy': {
        const from = member(op, 'from');
        if (from === undefined) throw new JsonPatchApplyError(`copy operation failed to decode from: operation, missing from field: ${MISSING}`);
        const source = findContainer(this.doc, from);
        if (!source) throw new JsonPatchApplyError(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
        let copied: unknown;
        try {
          copied = getAt(source);
        } catch (err) {
          throw wrap(`error in copy for from: '${from}'`, err);
        }
        if (path === undefined) throw new JsonPatchApplyError(`copy operation failed to decode path: ${MISSING}`);
        const target = findContainer(this.doc, path);
        if (!target) throw new JsonPatchApplyError(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
        this.placed(target.depth, copied);
        this.copiedBytes += Buffer.byteLength(JSON.stringify(copied) ?? 'null');
        if (this.copiedBytes > MAX_COPY_BYTES) {
          throw new JsonPatchApplyError(
            `Unable to complete the copy, the accumulated size increase of copy is ${this.copiedBytes}, exceeding the limit ${MAX_COPY_BYTES}`,
          );
        }
        try {
          addAt(target, deepClone(copied));
        } catch (err) {
          throw wrap('error while adding value during copy', err);
        }
        return;
      }
      case 'test': {
        if (path === undefined) throw new JsonPatchApplyError(`test operation failed to decode path: ${missingPath}`);
        const failed = new JsonPatchApplyError(`testing value ${path} failed: ${TEST_FAILED}`);
        if (path === '') {
          if (!jsonEqual(this.doc, value)) throw failed;
          return;
        }
        const loc = findContainer(this.doc, path);
        if (!loc) throw new JsonPatchApplyError(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
        let current: unknown;
        try {
          current = getAt(loc);
        } catch (err) {
          throw wrap(`error in test for path: '${path}'`, err);
        }
        // A missing or null value passes a test for null.
        if (current === null || current === undefined) {
          if (value === null) return;
          throw failed;
        }
        if (!jsonEqual(current, value)) throw failed;
        return;
      }
      default:
        throw new JsonPatchApplyError(`Unexpected kind: ${kind}`);
    }
  }
}

/** Applies RFC 6902 operations to a copy of the document; the operations are consumed. */
export function applyJsonPatch(document: Record<string, unknown>, operations: RawOperation[]): unknown {
  const patching = new Patching(deepClone(document));
  for (const op of operations) patching.apply(op);
  return patching.doc;
}
