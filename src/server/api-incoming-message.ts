import { IncomingMessage, ServerResponse } from 'node:http';
import { AUDIT_ID } from '../endpoints/request/audit-id';
import { REQUEST_DEADLINE } from '../registry/rest/request-deadline';

/**
 * The server's request object: Node's IncomingMessage with every property that express and
 * the request pipeline add to each request declared up front. Added one by one, they would
 * take each request through a chain of hidden-class transitions and out-of-object property
 * stores that grow as they go; declared here, every request has one shape from the start,
 * so the pipeline's reads and writes stay monomorphic. The values are set where they always
 * were (express's app.handle and router, the pipeline's stages); only the shape is settled.
 */
export class ApiIncomingMessage extends IncomingMessage {
  // express: app.handle and the router.
  res: unknown = undefined;
  next: unknown = undefined;
  baseUrl: unknown = undefined;
  originalUrl: unknown = undefined;
  _parsedUrl: unknown = undefined;
  params: unknown = undefined;
  /** Shadows express's getter, which parses the query string again on every read: the pipeline parses it once. */
  query: unknown = undefined;
  // The request pipeline (src/endpoints/request/request-context.ts's ApiRequest).
  receivedAt: unknown = undefined;
  requestInfo: unknown = undefined;
  userInfo: unknown = undefined;
  rawBody: unknown = undefined;
  negotiation: unknown = undefined;
  writeOptions: unknown = undefined;
  getOptions: unknown = undefined;
  listOptions: unknown = undefined;
  watchOptions: unknown = undefined;
  apiDeprecation: unknown = undefined;
  resolved: unknown = undefined;
  [AUDIT_ID]: string | undefined = undefined;
  [REQUEST_DEADLINE]: unknown = undefined;
}

/** The server's response object: Node's ServerResponse with express's `locals` declared up front (see ApiIncomingMessage). */
export class ApiServerResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  locals: unknown = undefined;
}
