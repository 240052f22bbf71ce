import * as YAML from 'yaml';
import { errors } from '../errors';
import { isPlainObject } from '../types';
import { MediaType, parseAccept, parseMediaType } from './media-type';

export const JSON_MEDIA = 'application/json';
export const YAML_MEDIA = 'application/yaml';

/** How a response body is written. */
export interface ResponseCodec {
  contentType: string;
  encode(value: unknown, pretty: boolean): Buffer;
}

const jsonCodec: ResponseCodec = {
  contentType: JSON_MEDIA,
  encode: (value, pretty) => Buffer.from(JSON.stringify(value, null, pretty ? 2 : undefined) + '\n'),
};

const yamlCodec: ResponseCodec = {
  contentType: YAML_MEDIA,
  encode: (value) => Buffer.from(YAML.stringify(value)),
};

/** Media types a response can be rendered in, in the order they are offered on a 406. */
export const RESPONSE_MEDIA_TYPES = [JSON_MEDIA, YAML_MEDIA];

function codecFor(mt: MediaType): ResponseCodec | undefined {
  // A transformed rendering (as=Table, as=PartialObjectMetadata) is not plain JSON: skip it
  // so the client's fallback entry is used.
  if (mt.params.as) return undefined;
  switch (mt.type) {
    case JSON_MEDIA:
    case 'application/*':
    case '*/*':
      return jsonCodec;
    case YAML_MEDIA:
      return yamlCodec;
    default:
      return undefined;
  }
}

/** Picks the response codec before any work is done, so a 406 costs nothing. */
export function negotiateResponse(accept: string | undefined): ResponseCodec {
  const entries = parseAccept(accept);
  if (entries.length === 0) return jsonCodec;
  for (const mt of entries) {
    const codec = codecFor(mt);
    if (codec) return codec;
  }
  throw errors.notAcceptable(RESPONSE_MEDIA_TYPES);
}

/** Body media types accepted for create and update. */
export const OBJECT_BODY_MEDIA_TYPES = [JSON_MEDIA, YAML_MEDIA];

/** Decodes a create/update body (JSON or YAML) into an object. */
export function decodeObjectBody(contentType: string | undefined, body: Buffer | undefined): Record<string, unknown> {
  const mt = parseMediaType(contentType ?? '');
  if (mt.type !== JSON_MEDIA && mt.type !== YAML_MEDIA) throw errors.unsupportedMediaType(OBJECT_BODY_MEDIA_TYPES);
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
