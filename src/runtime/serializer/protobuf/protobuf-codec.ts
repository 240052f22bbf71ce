import * as protobuf from 'protobufjs';
import { Envelope, unwrap, wrap } from './envelope';
import { decodeMessage, encodeMessage, WireFormatError } from './json-wire';
import { protoRoot } from './proto-root';

/** Messages of meta.platform.io/v1 the codecs use whatever the kind. */
const META = 'platform.io.apimachinery.pkg.apis.meta.v1';
export const META_MESSAGES = {
  Status: `${META}.Status`,
  PartialObjectMetadata: `${META}.PartialObjectMetadata`,
  PartialObjectMetadataList: `${META}.PartialObjectMetadataList`,
  WatchEvent: `${META}.WatchEvent`,
  DeleteOptions: `${META}.DeleteOptions`,
} as const;

/**
 * Encodes JSON-shaped objects as Kubernetes-compatible protobuf (prefix, Unknown envelope,
 * message) and back, with message types looked up by full name in the loaded .proto files.
 */
export class ProtobufCodec {
  private readonly types = new Map<string, protobuf.Type>();

  constructor(private readonly root: protobuf.Root = protoRoot()) {}

  has(messageName: string): boolean {
    try {
      this.type(messageName);
      return true;
    } catch {
      return false;
    }
  }

  /** The message type; an unknown name is a programming error. */
  type(messageName: string): protobuf.Type {
    let type = this.types.get(messageName);
    if (!type) {
      type = this.root.lookupType(messageName);
      this.types.set(messageName, type);
    }
    return type;
  }

  /** The message bytes of a JSON object, without prefix or envelope. */
  encodeRaw(messageName: string, json: unknown): Uint8Array {
    return encodeMessage(this.type(messageName), json);
  }

  /** prefix + Unknown{typeMeta, raw} for an object whose TypeMeta is `apiVersion`/`kind`. */
  encode(messageName: string, apiVersion: string, kind: string, json: unknown): Buffer {
    return wrap(this.root, { apiVersion, kind, raw: this.encodeRaw(messageName, json) });
  }

  /** Reads prefix and envelope (a bad prefix is a WireFormatError). */
  unwrap(data: Buffer): Envelope {
    return unwrap(this.root, data);
  }

  /** Decodes a body into kube's JSON shape, with the envelope's TypeMeta as apiVersion and kind. */
  decode(messageName: string, data: Buffer): Record<string, unknown> {
    return this.decodeEnvelope(messageName, this.unwrap(data));
  }

  /** Decodes an unwrapped envelope's object (see decode). */
  decodeEnvelope(messageName: string, envelope: Envelope): Record<string, unknown> {
    const object = decodeMessage(this.type(messageName), envelope.raw);
    if (typeof object !== 'object' || object === null) throw new WireFormatError('the body is not an object');
    const typeMeta: Record<string, unknown> = {};
    if (envelope.apiVersion) typeMeta.apiVersion = envelope.apiVersion;
    if (envelope.kind) typeMeta.kind = envelope.kind;
    return { ...typeMeta, ...(object as Record<string, unknown>) };
  }

  /**
   * One watch event as Kubernetes frames it: Unknown{typeMeta: <kind's version>/WatchEvent,
   * raw: WatchEvent{type, object: {raw: <the object's own prefix+envelope bytes>}}}.
   */
  encodeWatchEvent(apiVersion: string, type: string, object: Buffer): Buffer {
    const raw = this.type(META_MESSAGES.WatchEvent).encode({ type, object: { raw: object } }).finish();
    return wrap(this.root, { apiVersion, kind: 'WatchEvent', raw });
  }
}

let shared: ProtobufCodec | undefined;

/** The server's codec over the project's .proto files, created on first use. */
export function protobufCodec(): ProtobufCodec {
  shared ??= new ProtobufCodec();
  return shared;
}
