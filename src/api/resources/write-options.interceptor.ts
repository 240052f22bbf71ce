import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { deleteOptionsBody } from '../codec/protobuf/protobuf-body';
import { ApiRequest } from '../request-context';
import { parseRequestWriteOptions, RequestWriteOptions } from './request-options';

/** The verbs whose requests carry write options. */
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * Parses and checks the options of every write to a resource once, before the handler
 * runs (dryRun, fieldValidation, fieldManager, force, If-Match, DeleteOptions), and puts
 * them on the request; bad options are refused here with kube's Status.
 */
@Injectable()
export class WriteOptionsInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<ApiRequest>();
    if (req.requestInfo?.isResourceRequest && WRITE_VERBS.has(req.requestInfo.verb)) writeOptionsOf(req);
    return next.handle();
  }
}

/** The request's parsed write options (parsed now if the interceptor did not run). */
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
