import { applyOperation, Operation } from 'fast-json-patch';
import { isPlainObject } from '../types';
import { jsonEqual } from '../resources/system-metadata';

/**
 * RFC 6902 JSON patch with kube's semantics (gopkg.in/evanphx/json-patch.v4, which kube
 * applies patches with): each operation is checked against the document the way that
 * library resolves paths (negative array indexes count from the end, `replace` of a
 * missing object key sets it, a null on the path is missing), failing with its words;
 * the change itself is made by fast-json-patch. The first failing operation rejects the
 * whole patch.
 */
export class JsonPatchApplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPatchApplyError';
  }
}

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';
const TEST_FAILED = 'test failed';

type Container = { kind: 'object'; value: Record<string, unknown> } | { kind: 'array'; value: unknown[] };

function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Go's strconv.Atoi, with its error text. */
function atoi(key: string): number {
  if (!/^[+-]?\d+$/.test(key)) throw new JsonPatchApplyError(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  return Number(key);
}

/** evanphx's findObject: the container of the path's last token, or null when any step is missing. */
function findContainer(doc: unknown, path: string): { container: Container; key: string; parentPointer: string } | null {
  const parts = path.split('/');
  if (parts.length < 2) return null;
  let node: unknown = doc;
  let pointer = '';
  for (const raw of parts.slice(1, -1)) {
    const token = unescapeToken(raw);
    let next: unknown;
    if (Array.isArray(node)) {
      const idx = /^[+-]?\d+$/.test(token) ? resolveIndex(Number(token), node.length) : -1;
      if (idx < 0 || idx >= node.length) return null;
      next = node[idx];
      pointer += `/${idx}`;
    } else if (isPlainObject(node)) {
      next = node[token];
      pointer += `/${escapeToken(token)}`;
    } else return null;
    if (next === null || next === undefined || (typeof next !== 'object')) return null;
    node = next;
  }
  const container: Container = Array.isArray(node) ? { kind: 'array', value: node } : { kind: 'object', value: node as Record<string, unknown> };
  return { container, key: unescapeToken(parts[parts.length - 1]), parentPointer: pointer };
}

/** Negative indexes count from the end (evanphx's SupportNegativeIndices). */
function resolveIndex(idx: number, length: number): number {
  return idx < 0 ? idx + length : idx;
}

function invalidIndex(idx: number): JsonPatchApplyError {
  return new JsonPatchApplyError(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
}

/** The element pointer of an existing array item or object key; throws evanphx's get error. */
function getPointer(c: Container, key: string, parent: string): { pointer: string; value: unknown } {
  if (c.kind === 'object') return { pointer: `${parent}/${escapeToken(key)}`, value: c.value[key] ?? null };
  const idx = atoi(key);
  const at = resolveIndex(idx, c.value.length);
  if (idx < -c.value.length || at >= c.value.length) throw invalidIndex(idx);
  return { pointer: `${parent}/${at}`, value: c.value[at] };
}

/** Where an add inserts: `-` appends; an index may equal the length. */
function addPointer(c: Container, key: string, parent: string): string {
  if (c.kind === 'object') return `${parent}/${escapeToken(key)}`;
  if (key === '-') return `${parent}/-`;
  let idx: number;
  try {
    idx = atoi(key);
  } catch (err) {
    throw new JsonPatchApplyError(`value was not a proper array index: '${key}': ${(err as Error).message}`);
  }
  const size = c.value.length + 1;
  if (idx >= size || idx < -size) throw invalidIndex(idx);
  return `${parent}/${resolveIndex(idx, size)}`;
}

function removePointer(c: Container, key: string, parent: string): string {
  if (c.kind === 'object') {
    if (!(key in c.value)) throw new JsonPatchApplyError(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    return `${parent}/${escapeToken(key)}`;
  }
  return getPointer(c, key, parent).pointer;
}

function wrap(prefix: string, err: unknown): JsonPatchApplyError {
  return new JsonPatchApplyError(`${prefix}: ${(err as Error).message}`);
}

type RawOperation = Record<string, unknown>;

/** A string member of the operation, or the text evanphx fails with when it is absent. */
function member(op: RawOperation, name: 'path' | 'from'): string | undefined {
  const v = op[name];
  return typeof v === 'string' ? v : undefined;
}

function apply(doc: Record<string, unknown>, change: Operation): Record<string, unknown> {
  return applyOperation(doc, change, false, true).newDocument as Record<string, unknown>;
}

function applyOne(doc: Record<string, unknown>, op: RawOperation): Record<string, unknown> {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  const path = member(op, 'path');
  const value = 'value' in op ? op.value : null;
  const missingPath = `operation missing path field: ${MISSING}`;
  switch (kind) {
    case 'add': {
      if (path === undefined) throw new JsonPatchApplyError(`add operation failed to decode path: ${MISSING}`);
      const found = findContainer(doc, path);
      if (!found) throw new JsonPatchApplyError(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
      let pointer: string;
      try {
        pointer = addPointer(found.container, found.key, found.parentPointer);
      } catch (err) {
        throw wrap(`error in add for path: '${path}'`, err);
      }
      return apply(doc, { op: 'add', path: pointer, value });
    }
    case 'remove': {
      if (path === undefined) throw new JsonPatchApplyError(`remove operation failed to decode path: ${MISSING}`);
      const found = findContainer(doc, path);
      if (!found) throw new JsonPatchApplyError(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
      let pointer: string;
      try {
        pointer = removePointer(found.container, found.key, found.parentPointer);
      } catch (err) {
        throw wrap(`error in remove for path: '${path}'`, err);
      }
      return apply(doc, { op: 'remove', path: pointer });
    }
    case 'replace': {
      if (path === undefined) throw new JsonPatchApplyError(`replace operation failed to decode path: ${missingPath}`);
      if (path === '') {
        if (!isPlainObject(value) && !Array.isArray(value)) throw new JsonPatchApplyError('replace operation value must be object or array: %!w(<nil>)');
        return value as Record<string, unknown>;
      }
      const found = findContainer(doc, path);
      if (!found) throw new JsonPatchApplyError(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
      let pointer: string;
      try {
        pointer = found.container.kind === 'object' ? `${found.parentPointer}/${escapeToken(found.key)}` : getPointer(found.container, found.key, found.parentPointer).pointer;
      } catch {
        throw new JsonPatchApplyError(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
      }
      // Replacing a missing object key sets it, as evanphx does.
      return apply(doc, { op: found.container.kind === 'object' ? 'add' : 'replace', path: pointer, value });
    }
    case 'move': {
      const from = member(op, 'from');
      if (from === undefined) throw new JsonPatchApplyError(`move operation failed to decode from: operation, missing from field: ${MISSING}`);
      const source = findContainer(doc, from);
      if (!source) throw new JsonPatchApplyError(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
      let fromPointer: string;
      try {
        fromPointer = removePointer(source.container, source.key, source.parentPointer);
      } catch (err) {
        throw wrap(`error in move for path: '${source.key}'`, err);
      }
      const moved = getValue(doc, fromPointer);
      let next = apply(doc, { op: 'remove', path: fromPointer });
      if (path === undefined) throw new JsonPatchApplyError(`move operation failed to decode path: ${missingPath}`);
      const target = findContainer(next, path);
      if (!target) throw new JsonPatchApplyError(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
      let toPointer: string;
      try {
        toPointer = addPointer(target.container, target.key, target.parentPointer);
      } catch (err) {
        throw wrap(`error in move for path: '${path}'`, err);
      }
      next = apply(next, { op: 'add', path: toPointer, value: moved });
      return next;
    }
    case 'copy': {
      const from = member(op, 'from');
      if (from === undefined) throw new JsonPatchApplyError(`copy operation failed to decode from: operation, missing from field: ${MISSING}`);
      const source = findContainer(doc, from);
      if (!source) throw new JsonPatchApplyError(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
      let copied: unknown;
      try {
        copied = getPointer(source.container, source.key, source.parentPointer).value;
      } catch (err) {
        throw wrap(`error in copy for from: '${from}'`, err);
      }
      if (path === undefined) throw new JsonPatchApplyError(`copy operation failed to decode path: ${MISSING}`);
      const target = findContainer(doc, path);
      if (!target) throw new JsonPatchApplyError(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
      let toPointer: string;
      try {
        toPointer = addPointer(target.container, target.key, target.parentPointer);
      } catch (err) {
        throw wrap('error while adding value during copy', err);
      }
      return apply(doc, { op: 'add', path: toPointer, value: structuredClone(copied) });
    }
    case 'test': {
      if (path === undefined) throw new JsonPatchApplyError(`test operation failed to decode path: ${missingPath}`);
      const failed = new JsonPatchApplyError(`testing value ${path} failed: ${TEST_FAILED}`);
      if (path === '') {
        if (!jsonEqual(doc, value)) throw failed;
        return doc;
      }
      const found = findContainer(doc, path);
      if (!found) throw new JsonPatchApplyError(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
      let current: unknown;
      try {
        current = getPointer(found.container, found.key, found.parentPointer).value;
      } catch (err) {
        throw wrap(`error in test for path: '${path}'`, err);
      }
      // A missing or null value passes a test for null.
      if (current === null || current === undefined) {
        if (value === null) return doc;
        throw failed;
      }
      if (!jsonEqual(current, value)) throw failed;
      return doc;
    }
    default:
      throw new JsonPatchApplyError(`Unexpected kind: ${kind}`);
  }
}

function getValue(doc: unknown, pointer: string): unknown {
  let node: unknown = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const token = unescapeToken(raw);
    node = Array.isArray(node) ? node[Number(token)] : (node as Record<string, unknown>)[token];
  }
  return structuredClone(node);
}

/** Applies RFC 6902 operations to a copy of the document. */
export function applyJsonPatch(document: Record<string, unknown>, operations: RawOperation[]): unknown {
  let doc: Record<string, unknown> = structuredClone(document);
  for (const op of operations) doc = applyOne(doc, op);
  return doc;
}
