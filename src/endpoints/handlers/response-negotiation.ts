import { Inject, Injectable } from '@nestjs/common';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { ApiRequest } from '../request/request-context';
import { ResourceType } from '../../runtime/schema/resource-type';
import { gzipAccepted } from '../../runtime/serializer/compression';
import { renderCapabilitiesOf } from '../../runtime/serializer/kind-rendering';
import { negotiateResponse } from '../../runtime/serializer/negotiation';

/**
 * Content negotiation for resource requests, decided before any work so a 406 costs
 * nothing: the response format from Accept (against what the kind can be rendered as),
 * and whether a large body may be gzip-compressed. The result rides on the request; a
 * path that names no kind is not negotiated (the resource request options answers it 404).
 */
@Injectable()
export class ResponseNegotiation {
  constructor(@Inject(SERVER_OPTIONS) private readonly options: ServerOptions) {}

  /** Negotiates the response of a request for a kind the resource request options resolved. */
  prepare(req: ApiRequest, type: ResourceType): void {
    const watch = req.requestInfo.verb === 'watch';
    // Set before negotiating, so a 406 is itself rendered for this kind.
    req.negotiation = {
      capabilities: renderCapabilitiesOf(type),
      gzip: !watch && gzipAccepted(req.headers['accept-encoding'], this.options.featureGates.enabled('APIResponseCompression')),
    };
    req.negotiation.format = negotiateResponse(req.headers.accept, req.negotiation.capabilities, watch);
  }
}
