import { IncomingMessage, ServerResponse } from 'node:http';

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
  /** express's parsed body: the request chain's raw body (src/endpoints/request/request-scope.ts's ApiRequest). */
  body: unknown = undefined;
  /** The request chain's scope. */
  scope: unknown = undefined;
  /** express's router: the route matched. */
  route: unknown = undefined;
  /**
   * Node's count of listeners: a readable stream's constructor leaves it to the prototype's 0
   * until the first listener is added (the body stage's), so it is declared too.
   */
  _eventsCount = 0;
}

/**
 * The server's response object: Node's ServerResponse with express's `locals` declared up
 * front (see ApiIncomingMessage), and the fields Node itself adds after construction: the
 * status line, whose defaults live on the prototype until a response sets its own, and the
 * server's per-socket request limit.
 */
export class ApiServerResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  locals: unknown = undefined;
  statusCode = 200;
  statusMessage: string = undefined as unknown as string;
  _maxRequestsPerSocket: unknown = undefined;
}
