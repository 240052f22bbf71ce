import * as YAML from 'yaml';
import { errors } from '../../apimachinery/errors';
import { isPlainObject } from '../../apimachinery/types';
import type { ResourceType } from '../schema/resource-type';
import { parseMediaType } from './media-type';
import { acceptedMediaTypes, JSON_MEDIA, PROTOBUF_MEDIA } from './negotiation';
import { renderCapabilitiesOf } from './kind-rendering';
import { decodeProtobufObject } from './protobuf/protobuf-body';

/**
 * Decodes a create/update body (JSON, YAML, or protobuf when the kind has messages) into an
 * object; any other media type is 415 listing what the kind accepts.
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
  const value = mt.type === JSON_MEDIA ? parseJson(text) : parseYaml(text);
  if (!isPlainObject(value)) throw errors.badRequest('the request body must be a single object');
  return value;
}

export function parseJson(text: string): unknown {
  if (!text.trim()) throw errors.badRequest('the request body is empty');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw errors.badRequest(`json parse error: ${(err as Error).message}`);
  }
}

export function parseYaml(text: string): unknown {
  if (!text.trim()) throw errors.badRequest('the request body is empty');
  try {
    return YAML.parse(text);
  } catch (err) {
    throw errors.badRequest(`yaml parse error: ${(err as Error).message}`);
  }
}
