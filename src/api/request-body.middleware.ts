import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { errors } from './errors';
import { ApiRequest } from './request-context';

/**
 * Reads the request body as raw bytes, up to the size limit (413 beyond it). Decoding is
 * the codecs' job, which need the exact bytes (patch types, YAML, duplicate-key checks).
 * Errors are thrown (not passed to next) so the Status filter renders them.
 */
@Injectable()
export class RequestBodyMiddleware implements NestMiddleware {
  constructor(@Inject(SERVER_OPTIONS) private readonly options: ServerOptions) {}

  async use(req: ApiRequest, _res: Response, next: NextFunction): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') req.rawBody = await readBody(req, this.options.maxRequestBodyBytes);
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
      else resolve(Buffer.concat(chunks));
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
