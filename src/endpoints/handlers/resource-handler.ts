import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { WatchEventEncoder, watchEventEncoder } from '../watch/watch-encoder';
import { errors } from '../../apimachinery/errors';
import { addAuditAnnotation, recordRequestObject, recordRequestPatch, recordResponseObject } from '../../audit/audit-context';
import { ResourceType } from '../../runtime/schema/resource-type';
import { FieldValidationDirective } from '../../runtime/schema/field-validation';
import { prettyRequested } from '../../runtime/serializer/negotiation';
import { decodeObjectRequestOffLoop, renderResponseOffLoop, sendRenderedOffLoop, sentAtOnce } from '../../runtime/offload/offload';
import { sendJsonOffLoop } from '../../runtime/offload/list-stream';
import { hasLongArrays } from '../../runtime/serializer/json-pieces';
import { sendRendered } from '../../runtime/serializer/response';
import { addWarning, warningSink } from './warnings';
import { deleteOptionsFor, Reader, writeOptionsFor, WriteScope } from '../../registry/rest/storage';
import { RequestWriteOptions } from '../../registry/options/request-options';
import { WatchOptions } from '../../registry/options/read-options';
import { ResolvedRequest, TargetResolver } from '../request/target-resolver';
import { HttpWatchStream } from '../watch/watch-stream';
import { watchTimeoutSeconds } from '../watch/watch-timeout';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { ApiRequest, ResourceScope } from '../request/request-scope';

/**
 * The verb handlers every kind shares (kube's endpoints/handlers). The pipes have
 * resolved the kind, negotiated the response and parsed the options once, into the request's
 * scope; a handler calls the kind's storage with them and writes the answer.
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

  /** GET and HEAD: a get, list or watch, as the options say. */
  async read(scope: ResourceScope, req: ApiRequest, res: Response): Promise<void> {
    const resolved = scope.target;
    const { options, user } = scope;
    switch (options.verb) {
      case 'watch': {
        const encoder = watchEventEncoder(scope.response.format, { type: resolved.target.type, query: req.query as Record<string, unknown> });
        const timeoutSeconds = watchTimeoutSeconds(options.watch.timeoutSeconds, this.minRequestTimeoutSeconds);
        return this.watch(resolved, { ...options.watch, timeoutSeconds, user }, res, encoder);
      }
      case 'get':
        return this.write(scope, req, res, 200, await this.resolver.method(resolved, 'get', 'get')(resolved.target, { ...options.get, user, warn: warningSink(res) }));
      case 'list':
        return this.write(scope, req, res, 200, await this.resolver.method(resolved, 'list', 'list')(resolved.target, { ...options.list, user, warn: warningSink(res) }));
      default:
        return this.notAllowed();
    }
  }

  async create(scope: ResourceScope, req: ApiRequest, res: Response): Promise<void> {
    const resolved = scope.target;
    // A subresource (TokenRequest) is created at its object's path.
    if (resolved.single && !resolved.subresource) return this.notAllowed();
    const create = this.resolver.method(resolved, 'create', 'create');
    const options = this.writeOptions(scope);
    const body = await this.decodeBody(scope, req, res, resolved.target.type, options.fieldValidation);
    const result = await create(resolved.target, body, writeOptionsFor(options, this.writeScope(scope, req, res)));
    await this.write(scope, req, res, 201, result.object);
  }

  async update(scope: ResourceScope, req: ApiRequest, res: Response): Promise<void> {
    const resolved = scope.target;
    if (!resolved.single) return this.notAllowed();
    const update = this.resolver.method(resolved, 'update', 'update');
    const options = this.writeOptions(scope);
    const body = await this.decodeBody(scope, req, res, resolved.target.type, options.fieldValidation);
    const result = await update(resolved.target, body, writeOptionsFor(options, this.writeScope(scope, req, res)));
    await this.write(scope, req, res, result.created ? 201 : 200, result.object);
  }

  async patch(scope: ResourceScope, req: ApiRequest, res: Response): Promise<void> {
    const resolved = scope.target;
    if (!resolved.single) return this.notAllowed();
    const patch = this.resolver.method(resolved, 'patch', 'patch');
    recordRequestPatch(scope.audit, req.body);
    const result = await patch(
      resolved.target,
      { contentType: req.headers['content-type'] ?? '', body: req.body },
      writeOptionsFor(this.writeOptions(scope), this.writeScope(scope, req, res)),
    );
    await this.write(scope, req, res, result.created ? 201 : 200, result.object);
  }

  async delete(scope: ResourceScope, req: ApiRequest, res: Response): Promise<void> {
    const resolved = scope.target;
    const opts = deleteOptionsFor(this.writeOptions(scope), this.writeScope(scope, req, res));
    if (resolved.single) {
      const result = await this.resolver.method(resolved, 'delete', 'delete')(resolved.target, opts);
      return await this.write(scope, req, res, result.code, result.body);
    }
    const deleteCollection = this.resolver.method(resolved, 'deleteCollection', 'deletecollection');
    const deleted = await deleteCollection(resolved.target, opts, scope.options.verb === 'deletecollection' ? scope.options.list : undefined);
    await this.write(scope, req, res, 200, deleted);
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

  /** A write's options, which the pipes parsed for every write verb. */
  private writeOptions(scope: ResourceScope): RequestWriteOptions {
    if (!('write' in scope.options)) return this.notAllowed();
    return scope.options.write;
  }

  /** What a write's storage needs of its request: the caller, warnings, deadline and arrival. */
  private writeScope(scope: ResourceScope, req: ApiRequest, res: Response): WriteScope {
    return {
      user: scope.user,
      warn: warningSink(res),
      annotateAudit: (key, value) => addAuditAnnotation(scope.audit, key, value),
      userAgent: req.headers['user-agent'],
      deadline: scope.deadline,
      receivedAt: scope.receivedAt,
    };
  }

  /** A create/update body decoded into the kind (a large one off the event loop); fieldValidation=Warn findings become warnings. */
  private async decodeBody(scope: ResourceScope, req: ApiRequest, res: Response, type: ResourceType, fieldValidation: FieldValidationDirective): Promise<Record<string, unknown>> {
    const decoded = await decodeObjectRequestOffLoop(req.headers['content-type'], req.body, type, fieldValidation);
    for (const warning of decoded.warnings) addWarning(res, warning);
    recordRequestObject(scope.audit, decoded.object);
    return decoded.object;
  }

  /** Renders the body in the negotiated format (Table, protobuf, ...), gzip-compressed when large; a large one off the event loop. */
  private async write(scope: ResourceScope, req: ApiRequest, res: Response, code: number, body: unknown): Promise<void> {
    recordResponseObject(scope.audit, body);
    const target = { type: scope.target.target.type, query: req.query as Record<string, unknown> };
    const format = scope.response.format;
    const pretty = prettyRequested(target.query, req.headers['user-agent']);
    if (format.serializer === 'json' && !format.transform && !pretty && !format.pretty) {
      const long = hasLongArrays(body);
      // A large JSON answer (a list, who-can) goes out as its items are encoded, never as one string.
      if (long && (body as { kind?: unknown }).kind !== 'Status') return sendJsonOffLoop(res, code, format.mediaType, body as Record<string, unknown>, scope.response.gzip);
      // A small one (an access review's) is one JSON text, sent at once: no slices to await.
      if (!long) {
        const rendered = { contentType: format.mediaType, body: JSON.stringify(body) + '\n' };
        if (sentAtOnce(rendered.body)) return sendRendered(res, code, rendered, scope.response.gzip);
        return sendRenderedOffLoop(res, code, rendered, scope.response.gzip);
      }
    }
    const rendered = await renderResponseOffLoop(format, body, target, pretty);
    await sendRenderedOffLoop(res, code, rendered, scope.response.gzip);
  }
}
