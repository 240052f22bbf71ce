import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { anonymousUser, UserInfo } from '../../apimachinery/user-info';
import { renderCapabilitiesOf } from '../codec/kind-rendering';
import { negotiateResponse, prettyRequested, ResponseFormat } from '../codec/negotiation';
import { renderResponse, sendRendered } from '../codec/response';
import { WatchEventEncoder, watchEventEncoder } from '../watch/watch-encoder';
import { errors } from '../../apimachinery/errors';
import { ApiRequest } from '../request/request-context';
import { ResourceType } from '../schema/resource-type';
import { FieldValidationDirective } from '../validation/field-validation';
import { decodeObjectRequest } from '../codec/object-decoder';
import { addWarning, warningSink } from './warnings';
import { writeOptionsOf } from './request-options.pipe';
import { deleteOptionsFor, ReadOptions, writeOptionsFor } from './storage';
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
    const codec = this.format(req);
    const resolved = this.resolver.resolve(req.requestInfo);
    const opts = { user: this.user(req), query: req.query as Record<string, unknown> };
    if (req.requestInfo.verb === 'watch') return this.watch(resolved, opts, res, watchEventEncoder(codec, { type: resolved.target.type, query: opts.query }));
    const body = resolved.single
      ? await this.resolver.method(resolved, 'get', 'get')(resolved.target, opts)
      : await this.resolver.method(resolved, 'list', 'list')(resolved.target, opts);
    this.write(req, res, codec, 200, body);
  }

  async create(req: ApiRequest, res: Response): Promise<void> {
    const codec = this.format(req);
    const resolved = this.resolver.resolve(req.requestInfo);
    // A subresource (TokenRequest) is created at its object's path.
    if (resolved.single && !resolved.subresource) return this.notAllowed();
    const create = this.resolver.method(resolved, 'create', 'create');
    const options = writeOptionsOf(req);
    const body = this.decodeBody(req, res, resolved.target.type, options.fieldValidation);
    const result = await create(resolved.target, body, writeOptionsFor(options, this.user(req), warningSink(res), req.headers['user-agent']));
    this.write(req, res, codec, 201, result.object);
  }

  async update(req: ApiRequest, res: Response): Promise<void> {
    const codec = this.format(req);
    const resolved = this.resolver.resolve(req.requestInfo);
    if (!resolved.single) return this.notAllowed();
    const update = this.resolver.method(resolved, 'update', 'update');
    const options = writeOptionsOf(req);
    const body = this.decodeBody(req, res, resolved.target.type, options.fieldValidation);
    const result = await update(resolved.target, body, writeOptionsFor(options, this.user(req), warningSink(res), req.headers['user-agent']));
    this.write(req, res, codec, result.created ? 201 : 200, result.object);
  }

  async patch(req: ApiRequest, res: Response): Promise<void> {
    const codec = this.format(req);
    const resolved = this.resolver.resolve(req.requestInfo);
    if (!resolved.single) return this.notAllowed();
    const patch = this.resolver.method(resolved, 'patch', 'patch');
    const result = await patch(
      resolved.target,
      { contentType: req.headers['content-type'] ?? '', body: req.rawBody ?? Buffer.alloc(0) },
      writeOptionsFor(writeOptionsOf(req), this.user(req), warningSink(res), req.headers['user-agent']),
    );
    this.write(req, res, codec, result.created ? 201 : 200, result.object);
  }

  async delete(req: ApiRequest, res: Response): Promise<void> {
    const codec = this.format(req);
    const resolved = this.resolver.resolve(req.requestInfo);
    const opts = deleteOptionsFor(writeOptionsOf(req), this.user(req));
    if (resolved.single) {
      const result = await this.resolver.method(resolved, 'delete', 'delete')(resolved.target, opts);
      return this.write(req, res, codec, result.code, result.body);
    }
    const deleteCollection = this.resolver.method(resolved, 'deleteCollection', 'deletecollection');
    const status = await deleteCollection(resolved.target, { ...opts, query: req.query as Record<string, unknown> });
    this.write(req, res, codec, 200, status);
  }

  /** A watch on a collection, or on one object (its name becomes a field selector). */
  private async watch(resolved: ResolvedRequest, opts: ReadOptions, res: Response, encoder: WatchEventEncoder): Promise<void> {
    const watch = this.resolver.method(resolved, 'watch', 'watch');
    if (resolved.single) {
      opts = { ...opts, query: { ...opts.query, fieldSelector: `metadata.name=${resolved.target.name}` } };
      resolved = { ...resolved, single: false, target: { ...resolved.target, name: '' } };
    }
    // Options are checked before the stream starts so bad ones are a plain 400.
    await watch(resolved.target, opts, () => new WatchStream(res, encoder));
  }

  /** kube's installer registers no route for such a method/path pair. */
  private notAllowed(): never {
    throw errors.methodNotAllowed();
  }

  private user(req: ApiRequest): UserInfo {
    return req.userInfo ?? anonymousUser();
  }

  /** A create/update body decoded into the kind; fieldValidation=Warn findings become warnings. */
  private decodeBody(req: ApiRequest, res: Response, type: ResourceType, fieldValidation: FieldValidationDirective): Record<string, unknown> {
    const decoded = decodeObjectRequest(req.headers['content-type'], req.rawBody, type, fieldValidation);
    this.warn(res, decoded.warnings);
    return decoded.object;
  }

  private warn(res: Response, warnings: string[]): void {
    for (const warning of warnings) addWarning(res, warning);
  }

  /** The format the request-options pipe chose (negotiated here when it did not run). */
  private format(req: ApiRequest): ResponseFormat {
    if (req.negotiation?.format) return req.negotiation.format;
    const type = this.resolver.resolve(req.requestInfo).target.type;
    return negotiateResponse(req.headers.accept, renderCapabilitiesOf(type), req.requestInfo.verb === 'watch');
  }

  /** Renders the body in the negotiated format (Table, protobuf, ...), gzip-compressed when large. */
  private write(req: ApiRequest, res: Response, format: ResponseFormat, code: number, body: unknown): void {
    const target = { type: this.resolver.resolve(req.requestInfo).target.type, query: req.query as Record<string, unknown> };
    const rendered = renderResponse(format, body, target, prettyRequested(target.query, req.headers['user-agent']));
    sendRendered(res, code, rendered, req.negotiation?.gzip ?? false);
  }
}
