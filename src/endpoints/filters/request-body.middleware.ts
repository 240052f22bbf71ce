import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { errors } from '../../apimachinery/errors';
import { ApiRequest } from '../request/request-scope';

/** The body of a request without one. */
const NO_BODY = Buffer.alloc(0);
import { parseMediaType } from '../../runtime/serializer/media-type';
import { PROTOBUF_MEDIA } from '../../runtime/serializer/negotiation';

/**
 * kubectl's typed clients send core-group objects (namespaces, secrets, configmaps, ...) as
 * Kubernetes' own protobuf media type. Its bytes are our protobuf format (same prefix,
 * envelope and field numbers; core objects say `apiVersion: v1` either way), so a body in
 * it is read as ours.
 */
export const KUBERNETES_PROTOBUF_MEDIA = 'application/vnd.kubernetes.protobuf';

const PROTOBUF_WORD = /protobuf/i;

/** The body media type the codecs see: kube's protobuf name is an alias of ours. */
export function canonicalBodyType(contentType: string | undefined): string | undefined {
  // Nearly every body is JSON: only a type that can be kube's protobuf is parsed.
  if (contentType === undefined || !PROTOBUF_WORD.test(contentType) || parseMediaType(contentType).type !== KUBERNETES_PROTOBUF_MEDIA) return contentType;
  return PROTOBUF_MEDIA;
}

/**
 * Reads the request body as raw bytes, up to the size limit (413 beyond it). Decoding is
 * the codecs' job, which need the exact bytes (patch types, YAML, duplicate-key checks).
 * Errors are thrown (not passed to next) so the Status filter renders them.
 */
@Injectable()
export class RequestBodyMiddleware implements NestMiddleware {
  constructor(@Inject(SERVER_OPTIONS) private readonly options: ServerOptions) {}

  async use(req: ApiRequest, _res: Response, next: NextFunction): Promise<void> {
    if (req.method === 'GET' || req.method === 'HEAD') req.body = NO_BODY;
    else {
      req.body = await readBody(req, this.options.maxRequestBodyBytes);
      const contentType = canonicalBodyType(req.headers['content-type']);
      if (contentType !== undefined) req.headers['content-type'] = contentType;
    }
    next();
  }
}

function readBody(req: ApiRequest, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      req.resume();
      return reject(errors.requestEntityTooLarge(limit));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      if (err) reject(err);
      // A small body arrives in one chunk: it is the body as it is, without a copy.
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        req.resume();
        return finish(errors.requestEntityTooLarge(limit));
      }
      chunks.push(chunk);
    });
    req.on('end', () => finish());
    req.on('error', (err) => finish(errors.badRequest(`error reading the request body: ${err.message}`)));
  });
}
