import * as YAML from 'yaml';
import { StatusError } from '../../apimachinery/errors';
import { ApplyConfiguration, decodeApplyConfiguration } from '../apply/apply-request';
import { DecodedObject, decodeTextObject, TextMediaType } from '../serializer/object-decoder';
import { protobufCodec } from '../serializer/protobuf/protobuf-codec';
import { SerializerName } from '../serializer/negotiation';
import { applyPatch, ParsedPatch, parsePatch, PatchOutcome } from '../patch/patcher';
import { SchemaKind } from '../schema/resource-type';
import { FieldValidationDirective } from '../schema/field-validation';

/**
 * The work a codec thread does for a request with a large body or answer: the same functions
 * the event loop runs for small ones, on plain data that crosses between threads (a kind is its
 * SchemaKind, an object its JSON text, a body its bytes).
 */
export type CodecTask =
  | { op: 'decodeObject'; mediaType: TextMediaType; body: Uint8Array; kind: SchemaKind; directive: FieldValidationDirective }
  | { op: 'decodeApply'; body: Uint8Array; kind: SchemaKind; target: { namespace: string; name: string }; directive: FieldValidationDirective }
  /** Reads a patch body (400 when it is not JSON) and forgets it: the patch is applied later, by `applyPatch`. */
  | { op: 'checkPatch'; patchType: ParsedPatch['type']; body: Uint8Array }
  | { op: 'applyPatch'; patchType: ParsedPatch['type']; body: Uint8Array; kind: SchemaKind; current: string; directive: FieldValidationDirective }
  /** A value, given as its JSON text, in a serializer; `protobufMessage` names the message for protobuf. */
  | { op: 'serialize'; serializer: SerializerName; json: string; pretty: boolean; protobufMessage?: string };

export interface CodecResults {
  decodeObject: DecodedObject;
  decodeApply: ApplyConfiguration;
  checkPatch: null;
  applyPatch: PatchOutcome;
  serialize: Uint8Array | string;
}

export type CodecOp = CodecTask['op'];
export type CodecTaskOf<K extends CodecOp> = Extract<CodecTask, { op: K }>;

const bytes = (body: Uint8Array) => Buffer.from(body.buffer, body.byteOffset, body.byteLength);

export function runCodecTask(task: CodecTask): CodecResults[CodecOp] {
  switch (task.op) {
    case 'decodeObject':
      return decodeTextObject(task.mediaType, bytes(task.body), task.kind, task.directive);
    case 'decodeApply':
      return decodeApplyConfiguration(bytes(task.body), task.kind, task.target, task.directive);
    case 'checkPatch':
      parsePatch(task.patchType, bytes(task.body));
      return null;
    case 'applyPatch': {
      const current = JSON.parse(task.current) as Record<string, unknown>;
      return applyPatch(task.kind, current, parsePatch(task.patchType, bytes(task.body)), task.directive);
    }
    case 'serialize':
      return serializeJsonText(task);
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
