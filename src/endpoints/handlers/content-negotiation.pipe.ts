import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { errors } from '../../apimachinery/errors';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { gzipAccepted } from '../../runtime/serializer/compression';
import { renderCapabilitiesOf } from '../../runtime/serializer/kind-rendering';
import { negotiateResponse, ResponseFormat } from '../../runtime/serializer/negotiation';
import { advanceScope, ApiRequest, IncomingScope, TargetScope } from '../request/request-scope';
import { DeprecatedApiNotice } from './deprecated-api';
import { TargetResolver } from '../request/target-resolver';

/** What content negotiation learns of a resource request. */
export type Negotiated = Pick<TargetScope, 'rendering' | 'target' | 'response'>;

/**
 * The first pipe of a resource request's scope: its kind, resolved once from the path (404 for
 * a path that names none), a deprecated version's notice, then content negotiation, decided
 * before any work so a 406 costs nothing and is itself rendered for the kind: the response
 * format from Accept (against what the kind can be rendered as), and whether a large body may
 * be gzip-compressed.
 */
@Injectable()
export class ContentNegotiationPipe {
  private readonly compression: boolean;

  constructor(
    private readonly resolver: TargetResolver,
    private readonly deprecation: DeprecatedApiNotice,
    @Inject(SERVER_OPTIONS) options: ServerOptions,
  ) {
    this.compression = options.featureGates.enabled('APIResponseCompression');
  }

  /** What the pipe adds to the request's scope (a 406 has the kind's rendering in the scope already). */
  negotiate(req: ApiRequest): Negotiated {
    const { info } = req.scope;
    if (!info.isResourceRequest) throw errors.pathNotFound();
    const target = this.resolver.resolve(info);
    this.deprecation.note(req.scope, req.res as Response, target.target.type.kind);
    const watch = info.verb === 'watch';
    const rendering = renderCapabilitiesOf(target.target.type);
    let format: ResponseFormat;
    try {
      format = negotiateResponse(req.headers.accept, rendering, watch);
    } catch (err) {
      // A 406 is itself rendered for this kind.
      advanceScope<IncomingScope>(req, { rendering });
      throw err;
    }
    const gzip = !watch && gzipAccepted(req.headers['accept-encoding'], this.compression);
    return { rendering, target, response: { format, gzip } };
  }
}
