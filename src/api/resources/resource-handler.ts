import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { anonymousUser, UserInfo } from '../../authentication/user-info';
import { decodeObjectBody, negotiateResponse, ResponseCodec } from '../codec/codecs';
import { errors } from '../errors';
import { ApiRequest } from '../request-context';
import { parseDeleteOptions, parseWriteOptions } from './request-options';
import { ReadOptions } from './storage';
import { ResolvedRequest, TargetResolver } from './target-resolver';
import { WatchStream } from '../watch/watch-stream';

/**
 * The verb handlers every kind shares (kube's endpoints/handlers): negotiate the output
 * first, resolve the target, parse options once, call the kind's storage, write the answer.
 */
@Injectable()
export class ResourceHandler {
  constructor(private readonly resolver: TargetResolver) {}

  async read(req: ApiRequest, res: Response): Promise<void> {
    const codec = negotiateResponse(req.headers.accept);
    const resolved = this.resolver.resolve(req.requestInfo);
    const opts = { user: this.user(req), query: req.query as Record<string, unknown> };
    if (req.requestInfo.verb === 'watch') return this.watch(resolved, opts, res);
    const body = resolved.single
      ? await this.resolver.method(resolved, 'get', 'get')(resolved.target, opts)
      : await this.resolver.method(resolved, 'list', 'list')(resolved.target, opts);
    this.write(req, res, codec, 200, body);
  }

  async create(req: ApiRequest, res: Response): Promise<void> {
    const codec = negotiateResponse(req.headers.accept);
    const resolved = this.resolver.resolve(req.requestInfo);
    if (resolved.single) return this.notAllowed();
    const create = this.resolver.method(resolved, 'create', 'create');
    const body = decodeObjectBody(req.headers['content-type'], req.rawBody);
    const result = await create(resolved.target, body, parseWriteOptions(req.query, this.user(req)));
    this.write(req, res, codec, 201, result.object);
  }

  async update(req: ApiRequest, res: Response): Promise<void> {
    const codec = negotiateResponse(req.headers.accept);
    const resolved = this.resolver.resolve(req.requestInfo);
    if (!resolved.single) return this.notAllowed();
    const update = this.resolver.method(resolved, 'update', 'update');
    const body = decodeObjectBody(req.headers['content-type'], req.rawBody);
    const result = await update(resolved.target, body, parseWriteOptions(req.query, this.user(req), req.headers['if-match']));
    this.write(req, res, codec, result.created ? 201 : 200, result.object);
  }

  async patch(req: ApiRequest, res: Response): Promise<void> {
    const codec = negotiateResponse(req.headers.accept);
    const resolved = this.resolver.resolve(req.requestInfo);
    if (!resolved.single) return this.notAllowed();
    const patch = this.resolver.method(resolved, 'patch', 'patch');
    const result = await patch(
      resolved.target,
      { contentType: req.headers['content-type'] ?? '', body: req.rawBody ?? Buffer.alloc(0) },
      parseWriteOptions(req.query, this.user(req), req.headers['if-match']),
    );
    this.write(req, res, codec, result.created ? 201 : 200, result.object);
  }

  async delete(req: ApiRequest, res: Response): Promise<void> {
    const codec = negotiateResponse(req.headers.accept);
    const resolved = this.resolver.resolve(req.requestInfo);
    const opts = parseDeleteOptions(req.query, req.rawBody, this.user(req));
    if (resolved.single) {
      const result = await this.resolver.method(resolved, 'delete', 'delete')(resolved.target, opts);
      return this.write(req, res, codec, result.code, result.body);
    }
    const deleteCollection = this.resolver.method(resolved, 'deleteCollection', 'deletecollection');
    const status = await deleteCollection(resolved.target, { ...opts, query: req.query as Record<string, unknown> });
    this.write(req, res, codec, 200, status);
  }

  /** A watch on a collection, or on one object (its name becomes a field selector). */
  private async watch(resolved: ResolvedRequest, opts: ReadOptions, res: Response): Promise<void> {
    const watch = this.resolver.method(resolved, 'watch', 'watch');
    if (resolved.single) {
      opts = { ...opts, query: { ...opts.query, fieldSelector: `metadata.name=${resolved.target.name}` } };
      resolved = { ...resolved, single: false, target: { ...resolved.target, name: '' } };
    }
    // Options are checked before the stream starts so bad ones are a plain 400.
    await watch(resolved.target, opts, () => new WatchStream(res));
  }

  /** kube's installer registers no route for such a method/path pair. */
  private notAllowed(): never {
    throw errors.methodNotAllowed();
  }

  private user(req: ApiRequest): UserInfo {
    return req.userInfo ?? anonymousUser();
  }

  private write(req: ApiRequest, res: Response, codec: ResponseCodec, code: number, body: unknown): void {
    const pretty = req.query.pretty === 'true' || req.query.pretty === '1';
    res.status(code).setHeader('Content-Type', codec.contentType);
    res.end(codec.encode(body, pretty));
  }
}
