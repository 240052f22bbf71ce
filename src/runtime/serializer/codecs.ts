import { errors } from '../../apimachinery/errors';
import { isPlainObject } from '../../apimachinery/types';
import { docToValue } from '../document/document';
import { JsonSyntaxError, parseJsonDocument } from '../document/json-document';
import { parseYamlDocument, YamlSyntaxError } from '../document/yaml-document';
import type { ResourceType } from '../schema/resource-type';
import { parseMediaType } from './media-type';
import { acceptedMediaTypes, JSON_MEDIA, PROTOBUF_MEDIA } from './negotiation';
import { renderCapabilitiesOf } from './kind-rendering';
import { decodeProtobufObject } from './protobuf/protobuf-body';

/**
 * Decodes a create/update body (JSON, YAML, or protobuf when the kind has messages) into an
 * object, without a schema; any other media type is 415 listing what the kind accepts. JSON
 * and YAML are read by the document decoders, as the request path reads them (object-decoder.ts).
 */
export function decodeObjectBody(
  contentType: string | undefined,
  body: Buffer | undefined,
  type?: Pick<ResourceType, 'kind' | 'protobuf' | 'table'>,
): Record<string, unknown> {
  const mt = parseMediaType(contentType ?? '');
  // Without a kind there is no message to decode protobuf with.
  const accepted = acceptedMediaTypes(type ? renderCapabilitiesOf(type) : { protobuf: false, table: false });
  if (!accepted.includes(mt.type)) throw errors.unsupportedMediaType(accepted);
  if (mt.type === PROTOBUF_MEDIA && type?.protobuf) return decodeProtobufObject(body ?? Buffer.alloc(0), { kind: type.kind, protobuf: type.protobuf });
  const text = (body ?? Buffer.alloc(0)).toString('utf8');
  let value: unknown;
  try {
    value = docToValue(mt.type === JSON_MEDIA ? parseJsonDocument(text) : parseYamlDocument(text).node);
  } catch (err) {
    if (err instanceof JsonSyntaxError || err instanceof YamlSyntaxError) throw errors.badRequest(err.message);
    throw err;
  }
  if (!isPlainObject(value)) throw errors.badRequest('the request body must be a single object');
  return value;
}
