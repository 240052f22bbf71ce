import type { Request } from 'express';
import type { UserInfo } from '../../apimachinery/user-info';
import type { RequestInfo } from './request-info';
import type { Negotiation } from '../../runtime/serializer/response';
import type { RequestWriteOptions } from '../../registry/options/request-options';
import type { GetOptions, ListOptions, WatchOptions } from '../../registry/options/read-options';

/** The express request as the pipeline enriches it: request info first, then the caller. */
export interface ApiRequest extends Request {
  /** When the pipeline received it (performance.now()): decisions reflect every write committed before then. */
  receivedAt: number;
  requestInfo: RequestInfo;
  /** Set by authentication; impersonation replaces it. */
  userInfo?: UserInfo;
  /** The raw request body, kept for codecs that need the exact bytes. */
  rawBody?: Buffer;
  /** The response format, chosen before any work by the resource request options. */
  negotiation?: Negotiation;
  /** The options of a write (dryRun, fieldValidation, ...), parsed by the resource request options. */
  writeOptions?: RequestWriteOptions;
  /** A get's options (resourceVersion), parsed by the resource request options. */
  getOptions?: GetOptions;
  /** A list's or deletecollection's options (limit, continue, resourceVersion(Match), selectors). */
  listOptions?: ListOptions;
  /** A watch's options (start, selectors, timeoutSeconds, bookmarks). */
  watchOptions?: WatchOptions;
  /**
   * Set when the request was served by a deprecated API version (after authorization, before
   * the handler). The audit event annotates it with `deprecatedApiAuditAnnotations`.
   */
  apiDeprecation?: ApiDeprecation;
}

/** A request to a deprecated API version. */
export interface ApiDeprecation {
  /** `1.Y`, the release that no longer serves the version; '' when no removal is planned. */
  removedRelease: string;
}

/** kube's audit annotations for a deprecated API (`k8s.io/deprecated`, `k8s.io/removed-release`), none otherwise. */
export function deprecatedApiAuditAnnotations(req: Pick<ApiRequest, 'apiDeprecation'>): Record<string, string> {
  if (!req.apiDeprecation) return {};
  const annotations: Record<string, string> = { 'platform.io/deprecated': 'true' };
  if (req.apiDeprecation.removedRelease) annotations['platform.io/removed-release'] = req.apiDeprecation.removedRelease;
  return annotations;
}
