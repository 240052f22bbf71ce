import { createParamDecorator, ExecutionContext, Injectable, PipeTransform } from '@nestjs/common';
import { ResponseNegotiation } from './response-negotiation';
import { DeprecatedApiNotice } from './deprecated-api';
import { deleteOptionsBody } from '../codec/protobuf/protobuf-body';
import { ApiRequest } from '../request/request-context';
import { parseRequestWriteOptions, RequestWriteOptions } from '../request/request-options';

/** The verbs whose requests carry write options. */
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * The options of a resource request, settled after authorization and before the handler
 * does any work: first the deprecation notice of a deprecated API version, then content negotiation (so a 406 costs nothing and is itself rendered
 * for the kind), then the write options of every write (dryRun, fieldValidation,
 * fieldManager, force, If-Match, DeleteOptions), parsed and checked once; bad options are
 * refused here with kube's Status. A pipe on the handler's request parameter rather than an
 * interceptor: on this runtime every Nest interceptor binds two async resources per request,
 * which cost more than all the parsing it does.
 */
@Injectable()
export class RequestOptionsPipe implements PipeTransform<ApiRequest, ApiRequest> {
  constructor(
    private readonly negotiation: ResponseNegotiation,
    private readonly deprecation: DeprecatedApiNotice,
  ) {}

  transform(req: ApiRequest): ApiRequest {
    this.deprecation.note(req);
    this.negotiation.prepare(req);
    if (req.requestInfo?.isResourceRequest && WRITE_VERBS.has(req.requestInfo.verb)) writeOptionsOf(req);
    return req;
  }
}

/** The request of a resource handler, with its options settled by `RequestOptionsPipe`. */
export const ResourceRequest = createParamDecorator((_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<ApiRequest>());

/** The request's parsed write options (parsed now if the pipe did not run). */
export function writeOptionsOf(req: ApiRequest): RequestWriteOptions {
  if (!req.writeOptions) {
    req.writeOptions = parseRequestWriteOptions({
      method: req.method,
      query: req.query as Record<string, unknown>,
      headers: req.headers,
      // Protobuf clients send DeleteOptions as a protobuf message; the codecs turn it into JSON.
      body: req.method.toUpperCase() === 'DELETE' ? deleteOptionsBody(req.headers['content-type'], req.rawBody) : undefined,
    });
  }
  return req.writeOptions!;
}
