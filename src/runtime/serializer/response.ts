import type { Response } from 'express';
import type { Status } from '../../apimachinery/types';
import { contentEncode } from './compression';
import { negotiateErrorSerializer, RenderCapabilities, ResponseFormat } from './negotiation';
import { MEDIA_TYPES, serializeForResponse } from './serializers';
import { RenderTarget, transformBody } from './transform';

/** What negotiation decided for a request, kept on it for the handler and the error filter. */
export interface Negotiation {
  /** What the request's kind can be rendered as (errors are negotiated against it too). */
  capabilities: RenderCapabilities;
  /** Unset when negotiation failed (the 406 is being rendered). */
  format?: ResponseFormat;
  /** Bodies above the threshold are gzip-compressed (Accept-Encoding and feature gate). */
  gzip: boolean;
}

export interface RenderedBody {
  contentType: string;
  /** Bytes, or UTF-8 text for JSON and YAML. */
  body: Buffer | string;
}

/** A handler's result in the negotiated format: transformed, then serialized. */
export function renderResponse(format: ResponseFormat, body: unknown, target: RenderTarget, pretty: boolean): RenderedBody {
  const value = transformBody(format.transform, body, target);
  return {
    contentType: format.mediaType,
    body: serializeForResponse(format.serializer, value, { pretty: pretty || format.pretty, type: target.type }),
  };
}

/** An error Status in the format the Accept header allows for it, JSON otherwise. */
export function renderStatus(status: Status, accept: string | undefined, capabilities: RenderCapabilities, pretty: boolean): RenderedBody {
  const serializer = negotiateErrorSerializer(accept, capabilities);
  return { contentType: MEDIA_TYPES[serializer], body: serializeForResponse(serializer, status, { pretty }) };
}

/** The response's `Warning` header values (the only headers that carry text of a request's own). */
export function warningValues(res: Response): string[] {
  const values = res.getHeader('Warning');
  return values === undefined ? [] : Array.isArray(values) ? values : [String(values)];
}

/**
 * The body to end a response with. Node writes the headers in the encoding of a string
 * body sent with them (UTF-8), which would encode header bytes (a warning's UTF-8 text, one
 * Latin-1 character per byte) a second time; with a Buffer body it writes them as they are.
 */
export function bodyFor(res: Response, body: string | Buffer): string | Buffer {
  // Most responses carry no warning: nothing to look at then.
  if (typeof body !== 'string' || res.getHeader('Warning') === undefined) return body;
  return warningValues(res).some((v) => /[^\x00-\x7f]/.test(v)) ? Buffer.from(body, 'utf8') : body;
}

/** Sends a rendered body with its status code, compressing it when negotiated. */
export function sendRendered(res: Response, code: number, rendered: RenderedBody, gzip: boolean): void {
  const encoded = contentEncode(rendered.body, gzip);
  res.statusCode = code;
  res.setHeader('Content-Type', rendered.contentType);
  for (const name in encoded.headers) res.setHeader(name, encoded.headers[name]);
  res.end(bodyFor(res, encoded.body));
}
