import type { Response } from 'express';
import { decodeApplyConfiguration } from '../apply/apply-request';
import { contentEncodeAsync, GZIP_THRESHOLD_BYTES } from '../serializer/compression';
import { protobufMessageFor } from '../serializer/kind-rendering';
import { ResponseFormat } from '../serializer/negotiation';
import { DecodedObject, decodeObjectRequest, textMediaTypeOf } from '../serializer/object-decoder';
import { hasLongArrays, jsonPieces } from '../serializer/json-pieces';
import { bodyFor, RenderedBody } from '../serializer/response';
import { serializeForResponse } from '../serializer/serializers';
import { RenderTarget, transformBody } from '../serializer/transform';
import { applyPatch, ParsedPatch, parsePatch, PatchOutcome } from '../patch/patcher';
import { ResourceType, schemaKindOf } from '../schema/resource-type';
import { FieldValidationDirective } from '../schema/field-validation';
import { ownBytes, runOnCodecThread } from './codec-threads';
import { SLICE_MS, yieldToEventLoop } from './loop-turn';
import { fromJsonChunksInSlices, JsonChunks } from './json-chunks';
import { FieldManager } from '../apply/field-manager';
import { KubeObject } from '../../apimachinery/types';
import { deepClone } from '../../apimachinery/system-metadata';

/**
 * The request work that grows with the payload, kept off the event loop when the payload is
 * large: bodies from OFF_LOOP_BYTES on are decoded (and patches applied) on a codec thread,
 * the object coming back in JSON pieces the event loop builds a slice at a time; the managed
 * fields and applies of such writes, and of any write to a large stored object (looksLarge),
 * are computed on a codec thread too. Answers are written as JSON a slice of items at a time,
 * rendered in other formats on a codec thread when large, compressed in libuv's pool and
 * sent in slices. Below the threshold everything runs where it did (a thread round trip
 * costs more than the work).
 */
export const OFF_LOOP_BYTES = 16 * 1024;
/** Bodies larger than this go to the socket a slice at a time (TLS encrypts as it is written). */
const SEND_SLICE_BYTES = 256 * 1024;

const isLarge = (body: Buffer | undefined) => (body?.length ?? 0) >= OFF_LOOP_BYTES;

export { yieldToEventLoop };

/**
 * The pieces each object built from a codec thread's answer was built from (json-chunks.ts):
 * a later stage of the same request sends them to a thread again instead of stringifying the
 * object on the event loop. Only objects this request made are kept, and only while it holds them.
 */
const sourceChunks = new WeakMap<object, JsonChunks>();

/** The JSON pieces `obj` was built from when it came from a codec thread (a large body); else undefined. */
export function keptJsonChunks(obj: object): JsonChunks | undefined {
  return sourceChunks.get(obj);
}

/** Whether `obj` was built from a large body on a codec thread: its later stages go to a thread too. */
export const isLargeObject = (obj: object) => sourceChunks.has(obj);

/** Members and items from which an object counts as large (about 16 KiB of JSON and more). */
const LARGE_NODES = 1000;

/**
 * Whether a stored object is large enough that its writes go to codec threads (a small patch
 * or apply to it too): it has LARGE_NODES members and items or more. Counting stops there.
 */
export function looksLarge(value: unknown): boolean {
  const pending = [value];
  let count = 0;
  while (pending.length) {
    const at = pending.pop();
    if (at === null || typeof at !== 'object') continue;
    const children = Array.isArray(at) ? at : Object.values(at as Record<string, unknown>);
    count += children.length;
    if (count >= LARGE_NODES) return true;
    for (const child of children) if (child !== null && typeof child === 'object') pending.push(child);
  }
  return false;
}

/**
 * A new copy of the storage's copy of a large body (`source`, built from a codec thread's
 * answer): the body again from its pieces, with the TypeMeta and metadata the storage set,
 * in the storage's key order. A write that is retried starts from this instead of a deep copy
 * made on the event loop in one go.
 */
export async function copyOfLargeObject(source: object, meta: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<KubeObject> {
  const obj = { ...((await fromJsonChunksInSlices(sourceChunks.get(source)!)) as Record<string, unknown>) } as KubeObject;
  obj.apiVersion = meta.apiVersion;
  obj.kind = meta.kind;
  obj.metadata = deepClone(meta.metadata);
  return obj;
}

/** The object of `chunks`, built on the event loop a slice at a time and remembered with them. */
async function buildObject<T extends object>(chunks: JsonChunks): Promise<T> {
  const value = (await fromJsonChunksInSlices(chunks)) as T;
  if (value !== null && typeof value === 'object') sourceChunks.set(value, chunks);
  return value;
}

/** decodeObjectRequest, on a codec thread for a large JSON or YAML body. */
export async function decodeObjectRequestOffLoop(
  contentType: string | undefined,
  rawBody: Buffer | undefined,
  type: ResourceType,
  directive: FieldValidationDirective,
): Promise<DecodedObject> {
  const mediaType = textMediaTypeOf(contentType);
  if (!mediaType || !isLarge(rawBody)) return decodeObjectRequest(contentType, rawBody, type, directive);
  const { bytes, transfer } = ownBytes(rawBody!);
  const { object, warnings } = await runOnCodecThread({ op: 'decodeObject', mediaType, body: bytes, kind: schemaKindOf(type), directive }, transfer);
  return { object: await buildObject(object), warnings };
}

/**
 * An apply configuration as decodeApplyConfiguration reads it: the object itself from a small
 * body; from a large one its JSON pieces, which the apply sends to a codec thread as they are.
 */
export type OffLoopApplyConfiguration = { warnings: string[] } & ({ config: Record<string, unknown> } | { chunks: JsonChunks });

/** decodeApplyConfiguration, on a codec thread for a large body. */
export async function decodeApplyConfigurationOffLoop(
  body: Buffer,
  type: ResourceType,
  target: { namespace: string; name: string },
  directive: FieldValidationDirective = 'Warn',
): Promise<OffLoopApplyConfiguration> {
  if (!isLarge(body)) return decodeApplyConfiguration(body, type, target, directive);
  const { bytes, transfer } = ownBytes(body);
  const decoded = await runOnCodecThread(
    { op: 'decodeApply', body: bytes, kind: schemaKindOf(type), target: { namespace: target.namespace, name: target.name }, directive },
    transfer,
  );
  return { chunks: decoded.config, warnings: decoded.warnings };
}

/**
 * FieldManager.update (`fields`, of `type`) on `next`, on a codec thread when `next` is the
 * storage's copy of an object built from a large body (`source`) or `live` is large; `liveJson`
 * is `live`'s JSON when the caller has it. Only next.metadata.managedFields changes, as on
 * the event loop.
 */
export async function updateManagedFieldsOffLoop(
  fields: FieldManager,
  type: ResourceType,
  write: { live: KubeObject | null; liveJson?: string; next: KubeObject; source: object; manager: string },
): Promise<void> {
  const { live, next, manager } = write;
  const kept = sourceChunks.get(write.source);
  const liveIsLarge = live !== null && (write.liveJson !== undefined || looksLarge(live));
  if (!kept && !liveIsLarge) return fields.update(live, next, manager);
  // A small body over a large object: the body as it is now (the thread sets the same TypeMeta and metadata).
  const body = kept ?? { root: JSON.stringify(next), parts: [] };
  const liveJson = live === null ? null : (write.liveJson ?? (await stringifyInSlices(live)));
  const metadata = JSON.stringify(next.metadata);
  const entries = await runOnCodecThread({
    op: 'manageUpdate',
    kind: schemaKindOf(type),
    live: liveJson,
    next: { body, apiVersion: next.apiVersion!, kind: next.kind!, metadata },
    manager,
  });
  if (entries === null) delete next.metadata.managedFields;
  else next.metadata.managedFields = (await fromJsonChunksInSlices(entries)) as KubeObject['metadata']['managedFields'];
}

/**
 * FieldManager.apply of a configuration decodeApplyConfigurationOffLoop read: on the event
 * loop for a small one (a copy of it: `apply` may change what it is given), on a codec thread
 * for a large one. ApplyConflicts from the loop are the caller's to turn into a 409; a
 * thread's come as that 409 already.
 */
export async function applyOffLoop(
  fields: FieldManager,
  type: ResourceType,
  write: { live: KubeObject | null; config: OffLoopApplyConfiguration; manager: string; force: boolean },
): Promise<KubeObject> {
  const { live, config, manager, force } = write;
  const small = 'config' in config;
  if (small && (live === null || !looksLarge(live))) return fields.apply(live, deepClone(config.config), manager, force);
  // A large configuration, or any over a large object (applying a label to a big one took 500 ms).
  const chunks = small ? { root: JSON.stringify(config.config), parts: [] } : config.chunks;
  const liveJson = live === null ? null : await stringifyInSlices(live);
  const applied = await runOnCodecThread({ op: 'manageApply', kind: schemaKindOf(type), live: liveJson, config: chunks, manager, force });
  return buildObject<KubeObject>(applied);
}

/**
 * A JSON, merge or strategic merge patch, read before the object is (400 first) and applied to
 * it later. A large one is read and applied on a codec thread; the object goes there as JSON.
 */
export class OffLoopPatch {
  private constructor(
    private readonly type: ParsedPatch['type'],
    private readonly body: Buffer,
    private readonly parsed: ParsedPatch | undefined,
  ) {}

  static async read(type: ParsedPatch['type'], body: Buffer): Promise<OffLoopPatch> {
    if (!isLarge(body)) return new OffLoopPatch(type, body, parsePatch(type, body));
    const { bytes, transfer } = ownBytes(body);
    await runOnCodecThread({ op: 'checkPatch', patchType: type, body: bytes }, transfer);
    return new OffLoopPatch(type, body, undefined);
  }

  /** Whether the patch is large: it is applied on a codec thread, whatever the object's size. */
  get large(): boolean {
    return this.parsed === undefined;
  }

  /**
   * The patched object. `currentJson`, the object's JSON, is given for a large object: the
   * patch is then applied on a codec thread too (a label merged into a Role of 30,000 rules
   * took 400 ms and more on the event loop).
   */
  async applyTo(kind: ResourceType, current: Record<string, unknown>, directive: FieldValidationDirective, currentJson?: string): Promise<PatchOutcome> {
    if (this.parsed && currentJson === undefined) return applyPatch(kind, current, this.parsed, directive);
    const { bytes, transfer } = ownBytes(this.body);
    const json = currentJson ?? (await stringifyInSlices(current));
    const { object, warnings } = await runOnCodecThread({ op: 'applyPatch', patchType: this.type, body: bytes, kind: schemaKindOf(kind), current: json, directive }, transfer);
    return { object: await buildObject(object), warnings };
  }
}

/**
 * JSON.stringify of a value whose `items` (a list), `rows` (a Table) or another array one or
 * two levels down may be long: their elements are encoded SLICE_MS at a time, letting other
 * work in between, each from its kept encoding when it has one. The text is the same.
 */
export async function stringifyInSlices(value: unknown): Promise<string> {
  if (!hasLongArrays(value)) return JSON.stringify(value);
  const parts: string[] = [];
  let sliceStart = performance.now();
  for (const piece of jsonPieces(value)) {
    parts.push(piece);
    if ((parts.length & 63) === 0 && performance.now() - sliceStart > SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
  }
  return parts.join('');
}

/**
 * jsonEqual (deep equality of JSON values, key order and undefined members ignored) of two
 * large objects, compared SLICE_MS at a time: an update that changes nothing in a Role of
 * 30,000 rules compares every rule (60 to 400 ms in one go). Neither value may change meanwhile.
 */
export async function jsonEqualInSlices(a: unknown, b: unknown): Promise<boolean> {
  const pending: Array<[unknown, unknown]> = [[a, b]];
  let sliceStart = performance.now();
  for (let steps = 1; pending.length; steps++) {
    const [x, y] = pending.pop()!;
    if (x === y) continue;
    if (typeof x !== typeof y || x === null || y === null || typeof x !== 'object') return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x)) {
      const ys = y as unknown[];
      if (x.length !== ys.length) return false;
      for (let i = x.length - 1; i >= 0; i--) pending.push([x[i], ys[i]]);
    } else {
      const xo = x as Record<string, unknown>;
      const yo = y as Record<string, unknown>;
      const xk = Object.keys(xo).filter((k) => xo[k] !== undefined);
      const yk = Object.keys(yo).filter((k) => yo[k] !== undefined);
      if (xk.length !== yk.length) return false;
      // Own keys only: a key named like an inherited member (`__proto__`) is data.
      for (const k of xk) {
        if (!Object.hasOwn(yo, k)) return false;
        pending.push([xo[k], yo[k]]);
      }
    }
    if ((steps & 1023) === 0 && performance.now() - sliceStart > SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
  }
  return true;
}

/**
 * renderResponse for any size: JSON is written in slices; other formats of a large body are
 * rendered on a codec thread from its JSON text.
 */
export async function renderResponseOffLoop(format: ResponseFormat, body: unknown, target: RenderTarget, pretty: boolean): Promise<RenderedBody> {
  const value = transformBody(format.transform, body, target);
  const serializer = format.serializer;
  const indent = pretty || format.pretty;
  const contentType = format.mediaType;
  const json = await stringifyInSlices(value);
  if (serializer === 'json' && !indent) return { contentType, body: json + '\n' };
  if (json.length < OFF_LOOP_BYTES) return { contentType, body: serializeForResponse(serializer, value, { pretty: indent, type: target.type }) };
  const protobufMessage = serializer === 'protobuf' ? protobufMessageFor(target.type, String((value as { kind?: unknown }).kind ?? '')) : undefined;
  const out = await runOnCodecThread({ op: 'serialize', serializer, json, pretty: indent, protobufMessage });
  return { contentType, body: typeof out === 'string' ? out : Buffer.from(out.buffer, out.byteOffset, out.byteLength) };
}

/**
 * Whether sendRendered sends a text as sendRenderedOffLoop would: well below the gzip threshold
 * and one slice (a UTF-8 character is at most 3 bytes per UTF-16 unit).
 */
export function sentAtOnce(text: string): boolean {
  return text.length * 3 <= Math.min(GZIP_THRESHOLD_BYTES, SEND_SLICE_BYTES);
}

/** sendRendered for any size: compressed in libuv's pool, a large body sent a slice at a time. */
export async function sendRenderedOffLoop(res: Response, code: number, rendered: RenderedBody, gzip: boolean): Promise<void> {
  const encoded = await contentEncodeAsync(rendered.body, gzip);
  res.statusCode = code;
  res.setHeader('Content-Type', rendered.contentType);
  for (const name in encoded.headers) res.setHeader(name, encoded.headers[name]);
  const body = bodyFor(res, encoded.body);
  if (body.length <= SEND_SLICE_BYTES) {
    res.end(body);
    return;
  }
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.setHeader('Content-Length', bytes.length);
  let at = 0;
  // A client that went away gets no more; the response still ends (metrics and logs see it).
  for (; at + SEND_SLICE_BYTES < bytes.length && !res.destroyed; at += SEND_SLICE_BYTES) {
    res.write(bytes.subarray(at, at + SEND_SLICE_BYTES));
    await yieldToEventLoop();
  }
  res.end(bytes.subarray(at));
}
