import { Inject, Injectable } from '@nestjs/common';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { ApiRequest } from '../request/request-context';
import { TargetResolver } from './target-resolver';
import { gzipAccepted } from '../codec/compression';
import { renderCapabilitiesOf } from '../codec/kind-rendering';
import { negotiateResponse } from '../codec/negotiation';

/**
 * Content negotiation for resource requests, decided before any work so a 406 costs
 * nothing: the response format from Accept (against what the kind can be rendered as),
 * and whether a large body may be gzip-compressed. The result rides on the request; a
 * path that names no kind is left to the handler's 404.
 */
@Injectable()
export class ResponseNegotiation {
  constructor(
    private readonly resolver: TargetResolver,
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
  ) {}

  prepare(req: ApiRequest): void {
    const info = req.requestInfo;
    if (info?.isResourceRequest) {
      const type = this.kindOf(req);
      if (type) {
        const watch = info.verb === 'watch';
        // Set before negotiating, so a 406 is itself rendered for this kind.
        req.negotiation = {
          capabilities: renderCapabilitiesOf(type),
          gzip: !watch && gzipAccepted(req.headers['accept-encoding'], this.options.featureGates.enabled('APIResponseCompression')),
        };
        req.negotiation.format = negotiateResponse(req.headers.accept, req.negotiation.capabilities, watch);
      }
    }
  }

  private kindOf(req: ApiRequest) {
    try {
      return this.resolver.resolve(req.requestInfo).target.type;
    } catch {
      return undefined;
    }
  }
}
