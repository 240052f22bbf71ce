import * as protobuf from 'protobufjs';
import { WireFormatError } from './json-wire';

/** Every protobuf body starts with these 4 bytes ("k8s" and a zero), as Kubernetes' do. */
export const PROTOBUF_PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export interface Envelope {
  apiVersion: string;
  kind: string;
  /** The object's message bytes. */
  raw: Uint8Array;
}

const UNKNOWN = 'platform.io.apimachinery.pkg.runtime.Unknown';

/**
 * The prefix and the runtime.Unknown envelope around an encoded object. The empty
 * contentEncoding and contentType are written as Kubernetes writes them.
 */
export function wrap(root: protobuf.Root, envelope: Envelope): Buffer {
  const unknown = root.lookupType(UNKNOWN);
  const body = unknown
    .encode({
      typeMeta: { apiVersion: envelope.apiVersion, kind: envelope.kind },
      raw: envelope.raw,
      contentEncoding: '',
      contentType: '',
    })
    .finish();
  return Buffer.concat([PROTOBUF_PREFIX, body]);
}

/** Reads the prefix and envelope; errors carry kube's protobuf serializer messages. */
export function unwrap(root: protobuf.Root, data: Buffer): Envelope {
  if (data.length === 0) throw new WireFormatError('empty data');
  if (data.length < PROTOBUF_PREFIX.length || !data.subarray(0, PROTOBUF_PREFIX.length).equals(PROTOBUF_PREFIX)) {
    throw new WireFormatError(
      `provided data does not appear to be a protobuf message, expected prefix [${[...PROTOBUF_PREFIX].join(' ')}]`,
    );
  }
  if (data.length === PROTOBUF_PREFIX.length) throw new WireFormatError('empty body');
  let message: { typeMeta?: { apiVersion?: string; kind?: string }; raw?: Uint8Array };
  try {
    message = root.lookupType(UNKNOWN).decode(data.subarray(PROTOBUF_PREFIX.length)) as typeof message;
  } catch (err) {
    throw new WireFormatError((err as Error).message);
  }
  return {
    apiVersion: message.typeMeta?.apiVersion ?? '',
    kind: message.typeMeta?.kind ?? '',
    raw: message.raw ?? new Uint8Array(0),
  };
}

/** A watch stream frame: the frame's length as 4 bytes big-endian, then the frame. */
export function lengthDelimited(frame: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt32BE(frame.length, 0);
  return Buffer.concat([header, frame]);
}
