import * as protobuf from 'protobufjs';

/**
 * Reading protobuf bytes without any .proto, to check field numbers against Kubernetes'
 * generated.proto independently of the definitions under test.
 */

/** The field numbers at the top level of a message, in wire order. */
export function fieldNumbers(bytes: Uint8Array): number[] {
  const reader = protobuf.Reader.create(bytes);
  const out: number[] = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    out.push(tag >>> 3);
    reader.skipType(tag & 7);
  }
  return out;
}

/** The bytes of every length-delimited occurrence of `field` at the top level of a message. */
export function allFieldBytes(bytes: Uint8Array, field: number): Uint8Array[] {
  const reader = protobuf.Reader.create(bytes);
  const out: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === field && (tag & 7) === 2) out.push(reader.bytes());
    else reader.skipType(tag & 7);
  }
  return out;
}

/** The bytes of the first length-delimited `field`; follow a path of numbers with several. */
export function fieldBytes(bytes: Uint8Array, ...path: number[]): Uint8Array {
  return path.reduce((at, field) => {
    const [first] = allFieldBytes(at, field);
    if (!first) throw new Error(`no length-delimited field ${field}`);
    return first;
  }, bytes);
}
