import type { Response } from 'express';
import { ApplyConfiguration, decodeApplyConfiguration } from '../apply/apply-request';
import { contentEncodeAsync } from '../serializer/compression';
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
import { yieldToEventLoop } from './loop-turn';

/**
 * The request work that grows with the payload, kept off the event loop when the payload is
 * large: bodies from OFF_LOOP_BYTES on are decoded (and patches applied) on a codec thread;
 * answers are written as JSON a slice of items at a time, rendered in other formats on a
 * codec thread when large, compressed in libuv's pool and sent in slices. Below the
 * threshold everything runs where it did (a thread round trip costs more than the work).
 */
export const OFF_LOOP_BYTES = 16 * 1024;
/** How long the event loop encodes list items before it lets other work in. */
const SLICE_MS = 8;
/** Bodies larger than this go to the socket a slice at a time (TLS encrypts as it is written). */
const SEND_SLICE_BYTES = 256 * 1024;

const isLarge = (body: Buffer | undefined) => (body?.length ?? 0) >= OFF_LOOP_BYTES;

export { yieldToEventLoop };

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
  return runOnCodecThread({ op: 'decodeObject', mediaType, body: bytes, kind: schemaKindOf(type), directive }, transfer);
}

/** decodeApplyConfiguration, on a codec thread for a large body. */
export async function decodeApplyConfigurationOffLoop(
  body: Buffer,
  type: ResourceType,
  target: { namespace: string; name: string },
  directive: FieldValidationDirective = 'Warn',
): Promise<ApplyConfiguration> {
  if (!isLarge(body)) return decodeApplyConfiguration(body, type, target, directive);
  const { bytes, transfer } = ownBytes(body);
  return runOnCodecThread({ op: 'decodeApply', body: bytes, kind: schemaKindOf(type), target: { namespace: target.namespace, name: target.name }, directive }, transfer);
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

  async applyTo(kind: ResourceType, current: Record<string, unknown>, directive: FieldValidationDirective): Promise<PatchOutcome> {
    if (this.parsed) return applyPatch(kind, current, this.parsed, directive);
    const { bytes, transfer } = ownBytes(this.body);
    const json = JSON.stringify(current);
    return runOnCodecThread({ op: 'applyPatch', patchType: this.type, body: bytes, kind: schemaKindOf(kind), current: json, directive }, transfer);
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
