import * as YAML from 'yaml';
import type { ResourceType } from '../resource-type';
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
  switch (serializer) {
    case 'json':
      return Buffer.from(JSON.stringify(value, null, opts.pretty ? 2 : undefined) + '\n');
    case 'yaml':
      return Buffer.from(YAML.stringify(value, { sortMapEntries: true, lineWidth: 0 }));
    case 'protobuf': {
      const object = value as { apiVersion?: string; kind?: string };
      const kind = object.kind ?? '';
      return protobufCodec().encode(protobufMessageFor(opts.type, kind), object.apiVersion ?? '', kind, value);
    }
  }
}
