import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { anonymousUser, UserInfo } from '../../apimachinery/user-info';
import { renderCapabilitiesOf } from '../../runtime/serializer/kind-rendering';
import { negotiateResponse, prettyRequested, ResponseFormat } from '../../runtime/serializer/negotiation';
import { WatchEventEncoder, watchEventEncoder } from '../watch/watch-encoder';
import { errors } from '../../apimachinery/errors';
import { ApiRequest } from '../request/request-context';
import { recordRequestObject, recordRequestPatch, recordResponseObject } from '../../audit/audit-context';
import { ResourceType } from '../../runtime/schema/resource-type';
import { FieldValidationDirective } from '../../runtime/schema/field-validation';
import { decodeObjectRequestOffLoop, renderResponseOffLoop, sendRenderedOffLoop } from '../../runtime/offload/offload';
import { addWarning, warningSink } from './warnings';
import { ResourceApiRequest } from './resource-request-options';
import { deleteOptionsFor, Reader, writeOptionsFor, WriteScope } from '../../registry/rest/storage';
import { WatchOptions } from '../../registry/options/read-options';
import { ResolvedRequest, TargetResolver } from './target-resolver';
import { HttpWatchStream } from '../watch/watch-stream';
import { watchTimeoutSeconds } from '../watch/watch-timeout';
import { requestDeadlineOf } from '../../registry/rest/request-deadline';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';

/**
 * The verb handlers every kind shares (kube's endpoints/handlers). The resource request options
 * has negotiated the output, resolved the target and parsed the options once; a handler
 * calls the kind's storage with them and writes the answer.
 */
@Injectable()
export class ResourceHandler {
  private readonly minRequestTimeoutSeconds: number;

  constructor(
    private readonly resolver: TargetResolver,
    @Inject(SERVER_OPTIONS) options: ServerOptions,
  ) {
    this.minRequestTimeoutSeconds = options.minRequestTimeoutSeconds;
  }

  async read(req: ResourceApiRequest, res: Response): Promise<void> {
    const codec = this.format(req);
    const resolved = req.resolved;
    const user = this.user(req);
    if (req.requestInfo.verb === 'watch') {
      const encoder = watchEventEncoder(codec, { type: resolved.target.type, query: req.query as Record<string, unknown> });
      const timeoutSeconds = watchTimeoutSeconds(req.watchOptions!.timeoutSeconds, this.minRequestTimeoutSeconds);
      return this.watch(resolved, { ...req.watchOptions!, timeoutSeconds, user }, res, encoder);
    }
    const body = resolved.single
      ? await this.resolver.method(resolved, 'get', 'get')(resolved.target, { ...req.getOptions, user })
      : await this.resolver.method(resolved, 'list', 'list')(resolved.target, { ...req.listOptions!, user });
    await this.write(req, res, codec, 200, body);
  }

  async create(req: ResourceApiRequest, res: Response): Promise<void> {
    const codec = this.format(req);
    const resolved = req.resolved;
    // A subresource (TokenRequest) is created at its object's path.
    if (resolved.single && !resolved.subresource) return this.notAllowed();
    const create = this.resolver.method(resolved, 'create', 'create');
    const options = req.writeOptions!;
    const body = await this.decodeBody(req, res, resolved.target.type, options.fieldValidation);
    const result = await create(resolved.target, body, writeOptionsFor(options, this.writeScope(req, res)));
    await this.write(req, res, codec, 201, result.object);
  }

  async update(req: ResourceApiRequest, res: Response): Promise<void> {
    const codec = this.format(req);
    const resolved = req.resolved;
    if (!resolved.single) return this.notAllowed();
    const update = this.resolver.method(resolved, 'update', 'update');
    const options = req.writeOptions!;
    const body = await this.decodeBody(req, res, resolved.target.type, options.fieldValidation);
    const result = await update(resolved.target, body, writeOptionsFor(options, this.writeScope(req, res)));
    await this.write(req, res, codec, result.created ? 201 : 200, result.object);
  }

  async patch(req: ResourceApiRequest, res: Response): Promise<void> {
    const codec = this.format(req);
    const resolved = req.resolved;
    if (!resolved.single) return this.notAllowed();
    const patch = this.resolver.method(resolved, 'patch', 'patch');
    recordRequestPatch(req, req.rawBody ?? Buffer.alloc(0));
    const result = await patch(
      resolved.target,
      { contentType: req.headers['content-type'] ?? '', body: req.rawBody ?? Buffer.alloc(0) },
      writeOptionsFor(req.writeOptions!, this.writeScope(req, res)),
    );
    await this.write(req, res, codec, result.created ? 201 : 200, result.object);
  }

  async delete(req: ResourceApiRequest, res: Response): Promise<void> {
    const codec = this.format(req);
    const resolved = req.resolved;
    const opts = deleteOptionsFor(req.writeOptions!, this.writeScope(req, res));
    if (resolved.single) {
      const result = await this.resolver.method(resolved, 'delete', 'delete')(resolved.target, opts);
      return await this.write(req, res, codec, result.code, result.body);
    }
    const deleteCollection = this.resolver.method(resolved, 'deleteCollection', 'deletecollection');
    const deleted = await deleteCollection(resolved.target, opts, req.listOptions);
    await this.write(req, res, codec, 200, deleted);
  }

  /** A watch on a collection, or on one object (the pipe selected it by metadata.name). */
  private async watch(resolved: ResolvedRequest, opts: WatchOptions & Reader, res: Response, encoder: WatchEventEncoder): Promise<void> {
    const watch = this.resolver.method(resolved, 'watch', 'watch');
    const target = resolved.single ? { ...resolved.target, name: '' } : resolved.target;
    // Options were checked before the stream starts so bad ones are a plain 400.
    const { group, version, kind } = target.type;
    await watch(target, opts, () => new HttpWatchStream(res, encoder, { group, version, kind }));
  }

  /** kube's installer registers no route for such a method/path pair. */
  private notAllowed(): never {
    throw errors.methodNotAllowed();
  }

  private user(req: ApiRequest): UserInfo {
    return req.userInfo ?? anonymousUser();
  }

  /** What a write's storage needs of its request: the caller, warnings, deadline and arrival. */
  private writeScope(req: ApiRequest, res: Response): WriteScope {
    return { user: this.user(req), warn: warningSink(res), userAgent: req.headers['user-agent'], deadline: requestDeadlineOf(req), receivedAt: req.receivedAt };
  }

  /** A create/update body decoded into the kind (a large one off the event loop); fieldValidation=Warn findings become warnings. */
  private async decodeBody(req: ApiRequest, res: Response, type: ResourceType, fieldValidation: FieldValidationDirective): Promise<Record<string, unknown>> {
    const decoded = await decodeObjectRequestOffLoop(req.headers['content-type'], req.rawBody, type, fieldValidation);
    this.warn(res, decoded.warnings);
    recordRequestObject(req, decoded.object);
    return decoded.object;
  }

  private warn(res: Response, warnings: string[]): void {
    for (const warning of warnings) addWarning(res, warning);
  }

  /** The format the resource request options chose. */
  private format(req: ResourceApiRequest): ResponseFormat {
    if (req.negotiation?.format) return req.negotiation.format;
    return negotiateResponse(req.headers.accept, renderCapabilitiesOf(req.resolved.target.type), req.requestInfo.verb === 'watch');
  }

  /** Renders the body in the negotiated format (Table, protobuf, ...), gzip-compressed when large; a large one off the event loop. */
  private async write(req: ResourceApiRequest, res: Response, format: ResponseFormat, code: number, body: unknown): Promise<void> {
    recordResponseObject(req, body);
    const target = { type: req.resolved.target.type, query: req.query as Record<string, unknown> };
    const rendered = await renderResponseOffLoop(format, body, target, prettyRequested(target.query, req.headers['user-agent']));
    await sendRenderedOffLoop(res, code, rendered, req.negotiation?.gzip ?? false);
  }
}
