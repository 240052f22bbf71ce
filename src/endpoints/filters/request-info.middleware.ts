import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { parse as parseQueryString } from 'node:querystring';
import { performance } from 'node:perf_hooks';
import { ResourceRegistry } from '../../registry/resources/registry';
import { IncomingRequest, IncomingScope } from '../request/request-scope';
import { assignAuditId } from '../request/audit-id';
import { SERVER_CAPABILITIES } from '../../runtime/serializer/negotiation';
import { RequestInfo, resolveRequestInfo } from '../request/request-info';
import { apiVersionOf } from '../../runtime/schema/resource-type';

/** How many URLs' request info is kept, and the longest URL kept. */
const MAX_KNOWN_URLS = 512;
const MAX_KNOWN_URL_LENGTH = 512;

/**
 * First stage of the chain: the request's scope, with when it arrived, its audit ID (echoed
 * in the `Audit-ID` header) and what it is about, for authorization and handlers. A path
 * through an alias group/version is resolved to the served one here, so everything after
 * (authorization included) sees the served group.
 */
@Injectable()
export class RequestInfoMiddleware implements NestMiddleware {
  /**
   * What each method and URL is about, made once: clients ask about few distinct URLs (a
   * webhook's or proxy's reviews, a controller's lists and watches). Frozen, as requests
   * share them; bounded in number and in URL length, as URLs come from clients.
   */
  private readonly known = new Map<string, Readonly<RequestInfo>>();

  constructor(private readonly registry: ResourceRegistry) {}

  use(req: IncomingRequest, res: Response, next: NextFunction): void {
    const receivedAt = performance.now();
    // Express 5's req.query parses the query string again on every read: it is parsed once
    // here, as express's default ("simple") query parser does, and kept as a plain property.
    const url = req.originalUrl ?? req.url;
    const queryAt = url.indexOf('?');
    const query = parseQueryString(queryAt < 0 ? '' : url.slice(queryAt + 1));
    if (Object.hasOwn(req, 'query')) req.query = query;
    else Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true, enumerable: true });
    const scope: IncomingScope = {
      receivedAt,
      auditId: assignAuditId(req, res),
      info: this.unalias(this.infoOf(req.method, url, query)),
      deadline: undefined,
      rendering: SERVER_CAPABILITIES,
    };
    req.scope = Object.freeze(scope);
    next();
  }

  private infoOf(method: string, url: string, query: Record<string, unknown>): RequestInfo {
    if (url.length > MAX_KNOWN_URL_LENGTH) return resolveRequestInfo(method, url, query);
    const key = `${method} ${url}`;
    let info = this.known.get(key);
    if (info === undefined) {
      info = resolveRequestInfo(method, url, query);
      Object.freeze(info.parts);
      Object.freeze(info);
      if (this.known.size >= MAX_KNOWN_URLS) this.known.clear();
      this.known.set(key, info);
    }
    return info;
  }

  private unalias(info: RequestInfo): RequestInfo {
    if (!info.isResourceRequest || info.apiPrefix !== 'apis') return info;
    const served = this.registry.aliasOf(info.apiGroup, info.apiVersion, info.resource);
    if (!served) return info;
    return { ...info, aliasApiVersion: apiVersionOf({ group: info.apiGroup, version: info.apiVersion }), apiGroup: served.group, apiVersion: served.version };
  }
}
