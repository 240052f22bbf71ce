import { apiVersionOf } from '../../runtime/schema/resource-type';
import type { WatchEvent } from '../../registry/rest/watch';
import { lengthDelimited } from '../../runtime/serializer/protobuf/envelope';
import { protobufCodec } from '../../runtime/serializer/protobuf/protobuf-codec';
import { ResponseFormat } from '../../runtime/serializer/negotiation';
import { serialize } from '../../runtime/serializer/serializers';
import { checkTransformOptions, RenderTarget, transformBody } from '../../runtime/serializer/transform';

/** Turns watch events into the bytes of one stream; one encoder per stream (it may keep state). */
export interface WatchEventEncoder {
  contentType: string;
  encode(event: WatchEvent): Buffer;
  /**
   * Set when the bytes depend on the event alone (no per-stream state): streams whose
   * encoders have the same key may share the bytes of the same event.
   */
  sharedKey?: string;
}

/** Newline-delimited JSON documents: what every watch speaks unless protobuf was negotiated. */
export const JSON_WATCH_ENCODER: WatchEventEncoder = {
  contentType: 'application/json',
  encode: (event) => Buffer.from(JSON.stringify(event) + '\n'),
  sharedKey: 'json',
};

/**
 * The encoder for a negotiated watch. Objects are transformed as on reads (a Table with
 * one row per event, columns on the first event only, as kube does for `kubectl get -w`);
 * ERROR events keep their Status; an object that cannot be transformed goes as it is. Protobuf frames each event as kube does: a 4-byte
 * big-endian length, then an Unknown-wrapped WatchEvent whose object holds the object's
 * own protobuf bytes. Options are checked here, before the stream opens.
 */
export function watchEventEncoder(format: ResponseFormat, target: RenderTarget): WatchEventEncoder {
  checkTransformOptions(format.transform, target.query);
  // A Table depends on the stream (column headers on its first event only, ages): not shared.
  const sharedKey = format.transform?.kind === 'Table' ? undefined : `${format.serializer} ${format.transform?.kind ?? ''} ${format.transform?.version ?? ''}`;
  let first = true;
  const object = (event: WatchEvent): unknown => {
    const headers = first;
    first = false;
    try {
      return transformBody(format.transform, event.object, target, headers);
    } catch {
      // kube sends the object untransformed when it cannot be (a list rendering of one object).
      return event.object;
    }
  };
  if (format.serializer === 'protobuf') {
    const apiVersion = apiVersionOf(target.type);
    return {
      contentType: format.mediaType,
      encode: (event) => {
        const bytes = serialize('protobuf', object(event), { type: target.type });
        return lengthDelimited(protobufCodec().encodeWatchEvent(apiVersion, event.type, bytes));
      },
      sharedKey,
    };
  }
  return {
    contentType: format.mediaType,
    encode: (event) => Buffer.from(JSON.stringify({ type: event.type, object: object(event) }) + '\n'),
    sharedKey,
  };
}
