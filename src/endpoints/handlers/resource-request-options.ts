import { Injectable } from '@nestjs/common';
import { errors } from '../../apimachinery/errors';
import { ResponseNegotiation } from './response-negotiation';
import { DeprecatedApiNotice } from './deprecated-api';
import { deleteOptionsBody } from '../../runtime/serializer/protobuf/protobuf-body';
import { ApiRequest } from '../request/request-context';
import { parseRequestWriteOptions, RequestWriteOptions } from '../../registry/options/request-options';
import { parseGetOptions, parseListOptions, parseWatchOptions, Query } from '../../registry/options/read-options';
import { ResolvedRequest, TargetResolver } from './target-resolver';

/** The verbs whose requests carry write options. */
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** A resource request once its options are settled: its target resolved, its options parsed. */
export interface ResourceApiRequest extends ApiRequest {
  resolved: ResolvedRequest;
}

/**
 * The options of a resource request, settled after authorization and before the handler
 * does any work, each parsed and checked exactly once, in kube's order:
 * 1. the target is resolved (the kind, namespace and name; remembered, refused only below);
 *    a deprecated API version's notice (Warning header, gauge, audit annotations) follows;
 * 2. content negotiation, so a 406 costs nothing and is itself rendered for the kind;
 * 3. the write options of every write (CreateOptions, UpdateOptions, PatchOptions,
 *    DeleteOptions: dryRun, fieldValidation, fieldManager, force, If-Match, preconditions,
 *    propagationPolicy, gracePeriodSeconds);
 * 4. an unknown path is 404, a verb the kind does not serve there 405;
 * 5. the read options (GetOptions, ListOptions, WatchOptions: resourceVersion(Match),
 *    limit, continue, selectors, timeoutSeconds, allowWatchBookmarks, sendInitialEvents);
 *    a deletecollection has ListOptions too.
 * Bad options are refused here with kube's Status; the storage receives typed options and
 * never sees the query.
 */
@Injectable()
export class ResourceRequestOptions {
  constructor(
    private readonly negotiation: ResponseNegotiation,
    private readonly resolver: TargetResolver,
    private readonly deprecation: DeprecatedApiNotice,
  ) {}

  settle(req: ApiRequest): ResourceApiRequest {
    const info = req.requestInfo;
    let resolved: ResolvedRequest | undefined;
    let unresolved: unknown;
    try {
      resolved = this.resolver.resolve(info);
    } catch (err) {
      unresolved = err;
    }
    if (info?.isResourceRequest && resolved) {
      this.deprecation.note(req, resolved.target.type.kind);
      this.negotiation.prepare(req, resolved.target.type);
    }
    if (info?.isResourceRequest && WRITE_VERBS.has(info.verb)) req.writeOptions = parseWriteOptions(req);
    if (!resolved) throw unresolved;
    this.parseReadOptions(req, resolved);
    const settled = req as ResourceApiRequest;
    settled.resolved = resolved;
    return settled;
  }

  /** The verb's storage method must exist (405 first), then its read options are parsed. */
  private parseReadOptions(req: ApiRequest, resolved: ResolvedRequest): void {
    const query = req.query as Query;
    const { type } = resolved.target;
    switch (req.requestInfo.verb) {
      case 'watch':
        // `?watch=true` reaches kube's list handler, which names the verb when the storage cannot watch.
        if (type.verbs.includes('list') && !type.verbs.includes('watch')) throw errors.methodNotSupported(resolved.target.groupResource, 'watch');
        this.resolver.method(resolved, 'watch', 'watch');
        req.watchOptions = parseWatchOptions(query, type);
        return;
      case 'get':
      case 'list':
        if (resolved.single) {
          this.resolver.method(resolved, 'get', 'get');
          req.getOptions = parseGetOptions(query);
        } else {
          this.resolver.method(resolved, 'list', 'list');
          req.listOptions = parseListOptions(query, type);
        }
        return;
      case 'deletecollection':
        if (resolved.single) return;
        this.resolver.method(resolved, 'deleteCollection', 'deletecollection');
        req.listOptions = parseListOptions(query, type);
        return;
      default:
        return;
    }
  }
}

function parseWriteOptions(req: ApiRequest): RequestWriteOptions | undefined {
  return parseRequestWriteOptions({
    method: req.method,
    query: req.query as Query,
    headers: req.headers,
    // Protobuf clients send DeleteOptions as a protobuf message; the codecs turn it into JSON.
    body: req.method.toUpperCase() === 'DELETE' ? deleteOptionsBody(req.headers['content-type'], req.rawBody) : undefined,
  });
}
