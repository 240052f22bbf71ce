import { errors } from '../../../apimachinery/errors';
import type { ProtobufMessages, ResourceType } from '../../schema/resource-type';
import { WireFormatError } from './json-wire';
import { META_MESSAGES, protobufCodec } from './protobuf-codec';
import { parseMediaType } from '../media-type';
import { PROTOBUF_MEDIA } from '../negotiation';

/** kube's summarizeData: the body's first bytes, as text when it looks like JSON, else hex. */
function summarize(body: Buffer, maxLength = 30): string {
  if (body.length === 0) return '<empty>';
  const more = body.length > maxLength ? ' ...' : '';
  const head = body.subarray(0, maxLength);
  return (body[0] === 0x7b ? head.toString('utf8') : head.toString('hex')) + more;
}

/**
 * A protobuf create/update body as a JSON object, with kube's 400 messages: a body that
 * is not protobuf is "unrecognized"; one whose message does not decode "cannot be
 * handled" as the kind.
 */
export function decodeProtobufObject(body: Buffer, type: Pick<ResourceType, 'kind'> & { protobuf: ProtobufMessages }): Record<string, unknown> {
  const codec = protobufCodec();
  let envelope;
  try {
    envelope = codec.unwrap(body);
  } catch (err) {
    if (!(err instanceof WireFormatError)) throw err;
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${type.kind}): ${err.message} (${summarize(body)})`);
  }
  try {
    return codec.decodeEnvelope(type.protobuf.message, envelope);
  } catch (err) {
    if (!(err instanceof WireFormatError)) throw err;
    const version = envelope.apiVersion.split('/').pop() ?? '';
    throw errors.badRequest(`${envelope.kind || type.kind} in version ${JSON.stringify(version)} cannot be handled as a ${type.kind}: ${err.message}`);
  }
}

/**
 * A DELETE body as the JSON DeleteOptions the option parser reads: protobuf clients send
 * a meta DeleteOptions message; other bodies pass through unchanged.
 */
export function deleteOptionsBody(contentType: string | undefined, body: Buffer | undefined): Buffer | undefined {
  if (!body || body.length === 0 || parseMediaType(contentType ?? '').type !== PROTOBUF_MEDIA) return body;
  try {
    return Buffer.from(JSON.stringify(protobufCodec().decode(META_MESSAGES.DeleteOptions, body)));
  } catch (err) {
    if (err instanceof WireFormatError) throw errors.badRequest(`the object provided is unrecognized (must be of type DeleteOptions): ${err.message} (${summarize(body)})`);
    throw err;
  }
}
