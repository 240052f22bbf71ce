import type { Request } from 'express';
import type { UserInfo } from '../../apimachinery/user-info';
import type { AuditRecord } from '../../audit/audit-context';
import type { RequestDeadline } from '../../registry/rest/request-deadline';
import type { RequestWriteOptions } from '../../registry/options/request-options';
import type { GetOptions, ListOptions, WatchOptions } from '../../registry/options/read-options';
import type { RenderCapabilities, ResponseFormat } from '../../runtime/serializer/negotiation';
import type { RequestInfo } from './request-info';
import type { ResolvedRequest } from './target-resolver';

/**
 * What the server knows about a request, as the stages of the request chain learn it (kube's
 * request context). A scope is frozen: a stage that learns something gives the request a new
 * scope with it (`advanceScope`), so what a later stage reads was settled by an earlier one
 * and never changes under it. Each type below is the scope after a stage; a stage declares
 * the type it needs, so nothing is read before it is known.
 */

/** After the first stage: when the request arrived, its audit ID and what it is about. */
export interface IncomingScope {
  /** performance.now() at arrival: decisions reflect every write committed before then. */
  readonly receivedAt: number;
  /** The request's audit ID (the client's `Audit-ID` when usable), sent back on the response. */
  readonly auditId: string;
  readonly info: RequestInfo;
  /** The request's deadline (set by the timeout stage); none for long-running requests. */
  readonly deadline: RequestDeadline | undefined;
  /** What an error Status may be rendered as: the server's formats, a resource kind's once it is resolved. */
  readonly rendering: RenderCapabilities;
}

/** After authentication (and impersonation): who the request acts as, and its audit record. */
export interface RequestScope extends IncomingScope {
  /** The identity the request acts as: the authenticated caller, or whom it impersonates. */
  readonly user: UserInfo;
  /** Who authenticated; differs from `user` when the request impersonates. */
  readonly authenticatedUser: UserInfo;
  /** The audit event's record, which later layers add to; none when the request is not audited. */
  readonly audit: AuditRecord | undefined;
}

/** The response a resource request's client accepts, negotiated before any work. */
export interface ResponseChoice {
  readonly format: ResponseFormat;
  /** Bodies above the threshold are gzip-compressed (Accept-Encoding and feature gate). */
  readonly gzip: boolean;
}

/** A resource request once content negotiation resolved its kind and chose the response. */
export interface TargetScope extends RequestScope {
  readonly target: ResolvedRequest;
  readonly response: ResponseChoice;
}

/** A resource request once its write options (dryRun, fieldValidation, ...) are parsed: none for a read. */
export interface WriteOptionsScope extends TargetScope {
  readonly write: RequestWriteOptions | undefined;
}

/** The typed options of a resource request, by what it does (one per verb the handlers serve). */
export type ResourceOptions =
  | { readonly verb: 'get'; readonly get: GetOptions }
  | { readonly verb: 'list'; readonly list: ListOptions }
  | { readonly verb: 'watch'; readonly watch: WatchOptions }
  | { readonly verb: 'create' | 'update' | 'patch' | 'delete'; readonly write: RequestWriteOptions }
  | { readonly verb: 'deletecollection'; readonly write: RequestWriteOptions; readonly list: ListOptions };

/** A resource request as its handler receives it: kind, response and options all settled. */
export interface ResourceScope extends TargetScope {
  readonly options: ResourceOptions;
}

/**
 * The express request of a request that passed authentication. `body` is its raw body (empty
 * for a request without one), read by the body stage; express's own field, narrowed.
 */
export interface ApiRequest extends Request {
  scope: RequestScope;
  body: Buffer;
}

/** A request before authentication: only the incoming scope is known. */
export interface IncomingRequest extends Request {
  scope: IncomingScope;
}

/** Gives a request the scope its stage learned: the old scope with `learned`, frozen. */
export function advanceScope<S extends IncomingScope>(req: { scope: IncomingScope }, learned: Partial<S>): S {
  const scope = Object.freeze({ ...req.scope, ...learned }) as unknown as S;
  req.scope = scope;
  return scope;
}
