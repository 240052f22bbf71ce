import type { Request } from 'express';
import type { UserInfo } from '../../apimachinery/user-info';
import type { RequestInfo } from './request-info';
import type { Negotiation } from '../codec/response';
import type { RequestWriteOptions } from './request-options';
import type { GetOptions, ListOptions, WatchOptions } from './read-options';

/** The express request as the pipeline enriches it: request info first, then the caller. */
export interface ApiRequest extends Request {
  requestInfo: RequestInfo;
  /** Set by authentication; impersonation replaces it. */
  userInfo?: UserInfo;
  /** The raw request body, kept for codecs that need the exact bytes. */
  rawBody?: Buffer;
  /** The response format, chosen before any work by the request-options pipe. */
  negotiation?: Negotiation;
  /** The options of a write (dryRun, fieldValidation, ...), parsed by the request-options pipe. */
  writeOptions?: RequestWriteOptions;
  /** A get's options (resourceVersion), parsed by the request-options pipe. */
  getOptions?: GetOptions;
  /** A list's or deletecollection's options (limit, continue, resourceVersion(Match), selectors). */
  listOptions?: ListOptions;
  /** A watch's options (start, selectors, timeoutSeconds, bookmarks). */
  watchOptions?: WatchOptions;
}
