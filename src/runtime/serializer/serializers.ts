import * as YAML from 'yaml';
import type { ResourceType } from '../schema/resource-type';
import { protobufMessageFor } from './kind-rendering';
import { JSON_MEDIA, PROTOBUF_MEDIA, SerializerName, YAML_MEDIA } from './negotiation';
import { protobufCodec } from './protobuf/protobuf-codec';

export const MEDIA_TYPES: Record<SerializerName, string> = { json: JSON_MEDIA, yaml: YAML_MEDIA, protobuf: PROTOBUF_MEDIA };

/**
 * A response value in one serializer. JSON ends with a newline (and indents when pretty);
 * YAML sorts keys as kube's JSON-to-YAML conversion does; protobuf needs the kind (or a
 * meta kind) to name the message.
 */
export function serialize(serializer: SerializerName, value: unknown, opts: { pretty?: boolean; type?: ResourceType } = {}): Buffer {
  const out = serializeForResponse(serializer, value, opts);
  return typeof out === 'string' ? Buffer.from(out) : out;
}

/**
 * The same, with text formats left as strings: a response written as one string goes out
 * with its headers in a single write, without copying the body into a buffer first.
 */
export function serializeForResponse(serializer: SerializerName, value: unknown, opts: { pretty?: boolean; type?: ResourceType } = {}): Buffer | string {
  switch (serializer) {
    case 'json':
      return JSON.stringify(value, null, opts.pretty ? 2 : undefined) + '\n';
    case 'yaml':
      return YAML.stringify(value, { sortMapEntries: true, lineWidth: 0 });
    case 'protobuf': {
      const object = value as { apiVersion?: string; kind?: string };
      const kind = object.kind ?? '';
      return protobufCodec().encode(protobufMessageFor(opts.type, kind), object.apiVersion ?? '', kind, value);
    }
  }
}
