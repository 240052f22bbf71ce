import * as YAML from 'yaml';
import { StatusError } from '../../apimachinery/errors';
import { ApplyConfiguration, decodeApplyConfiguration } from '../apply/apply-request';
import { DecodedObject, decodeTextObject, TextMediaType } from '../serializer/object-decoder';
import { protobufCodec } from '../serializer/protobuf/protobuf-codec';
import { SerializerName } from '../serializer/negotiation';
import { applyPatch, ParsedPatch, parsePatch, PatchOutcome } from '../patch/patcher';
import { SchemaKind } from '../schema/resource-type';
import { FieldValidationDirective } from '../schema/field-validation';
import { ApplyConflicts } from '../apply/conflicts';
import { FieldManager } from '../apply/field-manager';
import { KubeObject } from '../../apimachinery/types';
import { fromJsonChunks, JsonChunks, toJsonChunks } from './json-chunks';

/**
 * The work a codec thread does for a request with a large body or answer: the same functions
 * the event loop runs for small ones, on plain data that crosses between threads (a kind is its
 * SchemaKind, an object its JSON text, a body its bytes). A large object comes back as
 * JsonChunks, which the event loop builds a piece at a time.
 */
export type CodecTask =
  | { op: 'decodeObject'; mediaType: TextMediaType; body: Uint8Array; kind: SchemaKind; directive: FieldValidationDirective }
  | { op: 'decodeApply'; body: Uint8Array; kind: SchemaKind; target: { namespace: string; name: string }; directive: FieldValidationDirective }
  /** Reads a patch body (400 when it is not JSON) and forgets it: the patch is applied later, by `applyPatch`. */
  | { op: 'checkPatch'; patchType: ParsedPatch['type']; body: Uint8Array }
  | { op: 'applyPatch'; patchType: ParsedPatch['type']; body: Uint8Array; kind: SchemaKind; current: string; directive: FieldValidationDirective }
  /**
   * FieldManager.update of a write (generic-storage.ts): `next` is the body as decoded with
   * the TypeMeta and metadata the storage gave it; `live` the stored object (null to create).
   * Answers the managedFields `next` gets (null: none).
   */
  | { op: 'manageUpdate'; kind: SchemaKind; live: string | null; next: WriteBody; manager: string }
  /** FieldManager.apply: the applied object, or a 409 when other managers own fields it changes. */
  | { op: 'manageApply'; kind: SchemaKind; live: string | null; config: JsonChunks; manager: string; force: boolean }
  /** A value, given as its JSON text, in a serializer; `protobufMessage` names the message for protobuf. */
  | { op: 'serialize'; serializer: SerializerName; json: string; pretty: boolean; protobufMessage?: string };

/** A decoded body (its JSON in pieces) with the TypeMeta and metadata the storage set on its copy. */
export interface WriteBody {
  body: JsonChunks;
  apiVersion: string;
  kind: string;
  /** JSON text. */
  metadata: string;
}

/** The answers whose objects come back in pieces. */
export type ChunkedDecodedObject = Omit<DecodedObject, 'object'> & { object: JsonChunks };
export type ChunkedApplyConfiguration = Omit<ApplyConfiguration, 'config'> & { config: JsonChunks };
export type ChunkedPatchOutcome = Omit<PatchOutcome, 'object'> & { object: JsonChunks };

export interface CodecResults {
  decodeObject: ChunkedDecodedObject;
  decodeApply: ChunkedApplyConfiguration;
  checkPatch: null;
  applyPatch: ChunkedPatchOutcome;
  manageUpdate: JsonChunks | null;
  manageApply: JsonChunks;
  serialize: Uint8Array | string;
}

export type CodecOp = CodecTask['op'];
export type CodecTaskOf<K extends CodecOp> = Extract<CodecTask, { op: K }>;

const bytes = (body: Uint8Array) => Buffer.from(body.buffer, body.byteOffset, body.byteLength);

export function runCodecTask(task: CodecTask): CodecResults[CodecOp] {
  switch (task.op) {
    case 'decodeObject': {
      const { object, warnings } = decodeTextObject(task.mediaType, bytes(task.body), task.kind, task.directive);
      return { object: toJsonChunks(object), warnings };
    }
    case 'decodeApply': {
      const { config, warnings } = decodeApplyConfiguration(bytes(task.body), task.kind, task.target, task.directive);
      return { config: toJsonChunks(config), warnings };
    }
    case 'checkPatch':
      parsePatch(task.patchType, bytes(task.body));
      return null;
    case 'applyPatch': {
      const current = JSON.parse(task.current) as Record<string, unknown>;
      const { object, warnings } = applyPatch(task.kind, current, parsePatch(task.patchType, bytes(task.body)), task.directive);
      return { object: toJsonChunks(object), warnings };
    }
    case 'manageUpdate':
      return manageUpdate(task);
    case 'manageApply':
      return manageApply(task);
    case 'serialize':
      return serializeJsonText(task);
  }
}

/** The field manager of each kind this thread has served (FieldManager is stateless between writes). */
const fieldManagers = new Map<string, FieldManager>();

function fieldManagerOf(kind: SchemaKind, apiVersion: string): FieldManager {
  const key = `${apiVersion}/${kind.kind}`;
  let manager = fieldManagers.get(key);
  if (!manager) fieldManagers.set(key, (manager = new FieldManager({ apiVersion, schema: kind.schema })));
  return manager;
}

const apiVersionOfKind = (kind: SchemaKind) => (kind.group ? `${kind.group}/${kind.version}` : kind.version);

/** The object the storage holds for a write body: the body's copy with its TypeMeta and metadata set, as the storage sets them. */
export function writeObjectOf(next: WriteBody): KubeObject {
  const obj = { ...(fromJsonChunks(next.body) as Record<string, unknown>) } as KubeObject;
  obj.apiVersion = next.apiVersion;
  obj.kind = next.kind;
  obj.metadata = JSON.parse(next.metadata) as KubeObject['metadata'];
  return obj;
}

function manageUpdate(task: CodecTaskOf<'manageUpdate'>): JsonChunks | null {
  const next = writeObjectOf(task.next);
  const live = task.live === null ? null : (JSON.parse(task.live) as KubeObject);
  fieldManagerOf(task.kind, apiVersionOfKind(task.kind)).update(live, next, task.manager);
  const entries = next.metadata.managedFields;
  return entries === undefined ? null : toJsonChunks(entries);
}

function manageApply(task: CodecTaskOf<'manageApply'>): JsonChunks {
  const live = task.live === null ? null : (JSON.parse(task.live) as KubeObject);
  const config = fromJsonChunks(task.config) as Record<string, unknown>;
  try {
    return toJsonChunks(fieldManagerOf(task.kind, apiVersionOfKind(task.kind)).apply(live, config, task.manager, task.force));
  } catch (err) {
    // The 409 crosses as the Status the event loop would have made of it.
    throw err instanceof ApplyConflicts ? err.toStatusError() : err;
  }
}

function serializeJsonText(task: CodecTaskOf<'serialize'>): Uint8Array | string {
  const value = JSON.parse(task.json) as { apiVersion?: string; kind?: string };
  switch (task.serializer) {
    case 'json':
      return JSON.stringify(value, null, task.pretty ? 2 : undefined) + '\n';
    case 'yaml':
      return YAML.stringify(value, { sortMapEntries: true, lineWidth: 0 });
    case 'protobuf':
      return protobufCodec().encode(task.protobufMessage ?? '', value.apiVersion ?? '', value.kind ?? '', value);
  }
}

/** An error as it crosses back from a thread: a StatusError keeps its Status, anything else its message. */
export type CodecError = { status: { code: number; reason: string; message: string; details?: StatusError['details']; headers: Record<string, string> } } | { message: string };

export function codecErrorOf(err: unknown): CodecError {
  if (err instanceof StatusError) return { status: { code: err.code, reason: err.reason, message: err.message, details: err.details, headers: err.headers } };
  return { message: err instanceof Error ? err.message : String(err) };
}

export function errorFromCodec(error: CodecError): Error {
  if ('status' in error) return new StatusError(error.status.code, error.status.reason, error.status.message, error.status.details, error.status.headers);
  return new Error(error.message);
}
