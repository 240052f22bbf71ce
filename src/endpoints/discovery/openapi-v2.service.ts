import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { parseAccept } from '../../runtime/serializer/media-type';
import { ResourceRegistry } from '../../registry/resources/registry';
import { encodeGnosticDocument } from './gnostic-encoding';
import { buildSwaggerDocument } from './swagger-document';
import { SwaggerDocument } from './swagger-types';

/** The media type kube answers protobuf requests for /openapi/v2 with. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** The older spelling client-go still asks for; kube serves it the same bytes. */
export const OPENAPI_V2_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

export type OpenApiV2Encoding = 'json' | 'protobuf';

/** Media types /openapi/v2 serves, in the order kube tries them against each Accept clause. */
const SERVED: Array<{ subtype: string; encoding: OpenApiV2Encoding }> = [
  { subtype: 'json', encoding: 'json' },
  { subtype: OPENAPI_V2_PROTOBUF_DEPRECATED.split('/')[1], encoding: 'protobuf' },
  { subtype: OPENAPI_V2_PROTOBUF.split('/')[1], encoding: 'protobuf' },
];

/**
 * The encoding the Accept header picks, as kube's OpenAPI handler picks it: clauses in
 * preference order (none = `*\/*`), the first one matching a served media type wins
 * (wildcards match; parameters are ignored); undefined when none does (406).
 */
export function negotiateOpenApiV2(accept: string | undefined): OpenApiV2Encoding | undefined {
  const clauses = parseAccept(accept?.trim() ? accept : '*/*');
  for (const clause of clauses) {
    const [type, subtype] = clause.type.split('/');
    if (type !== 'application' && type !== '*') continue;
    const served = SERVED.find((s) => subtype === '*' || subtype === s.subtype);
    if (served) return served.encoding;
  }
  return undefined;
}

/** One published state of the document: its encodings made on first use, one ETag for all. */
export class PublishedSwagger {
  /** kube's ETag: the SHA-512 of the JSON document in upper-case hex, for every encoding. */
  readonly etag: string;
  readonly lastModified = new Date();
  readonly json: Buffer;
  private protobuf?: Buffer;
  private readonly gzipped = new Map<OpenApiV2Encoding, Buffer>();

  constructor(readonly document: SwaggerDocument) {
    this.json = Buffer.from(JSON.stringify(document));
    this.etag = createHash('sha512').update(this.json).digest('hex').toUpperCase();
  }

  encoded(encoding: OpenApiV2Encoding): Buffer {
    if (encoding === 'json') return this.json;
    this.protobuf ??= encodeGnosticDocument(this.document);
    return this.protobuf;
  }

  compressed(encoding: OpenApiV2Encoding): Buffer {
    let body = this.gzipped.get(encoding);
    if (!body) {
      body = gzipSync(this.encoded(encoding));
      this.gzipped.set(encoding, body);
    }
    return body;
  }
}

/** kube's OpenAPI handler gzips (gziphandler) bodies from this size on. */
const GZIP_MIN_BYTES = 1400;

export interface OpenApiV2Request {
  accept?: string;
  acceptEncoding?: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
}

export interface OpenApiV2Response {
  status: 200 | 304 | 406;
  headers: Record<string, string>;
  body?: Buffer;
}

/**
 * The answer to a GET of /openapi/v2, as kube's handler gives it: the negotiated encoding
 * (406 with no body when none fits), the ETag and Last-Modified of the document, 304 for a
 * client whose cached copy is current (If-None-Match, else If-Modified-Since), gzip when
 * accepted.
 */
export function openApiV2Response(spec: PublishedSwagger, req: OpenApiV2Request): OpenApiV2Response {
  const vary = { Vary: 'Accept, Accept-Encoding' };
  const encoding = negotiateOpenApiV2(req.accept);
  if (!encoding) return { status: 406, headers: vary };
  const headers: Record<string, string> = {
    ...vary,
    'Content-Type': encoding === 'json' ? 'application/json' : OPENAPI_V2_PROTOBUF,
    ETag: `"${spec.etag}"`,
    'Last-Modified': spec.lastModified.toUTCString(),
  };
  if (notModified(spec, req)) {
    // As Go's 304: no entity headers, and the ETag instead of Last-Modified.
    const { 'Content-Type': _type, 'Last-Modified': _modified, ...kept } = headers;
    return { status: 304, headers: kept };
  }
  const plain = spec.encoded(encoding);
  if (plain.length >= GZIP_MIN_BYTES && gzipAccepted(req.acceptEncoding)) {
    return { status: 200, headers: { ...headers, 'Content-Encoding': 'gzip' }, body: spec.compressed(encoding) };
  }
  return { status: 200, headers, body: plain };
}

/** Go's http.ServeContent: If-None-Match decides when present (weak comparison), else If-Modified-Since. */
function notModified(spec: PublishedSwagger, req: OpenApiV2Request): boolean {
  if (req.ifNoneMatch !== undefined) {
    return req.ifNoneMatch.split(',').some((tag) => {
      const t = tag.trim();
      return t === '*' || t.replace(/^W\//, '') === `"${spec.etag}"`;
    });
  }
  if (req.ifModifiedSince === undefined) return false;
  const since = Date.parse(req.ifModifiedSince);
  // HTTP dates have whole seconds; the document is unmodified if it is not newer than that.
  return !Number.isNaN(since) && Math.floor(spec.lastModified.getTime() / 1000) * 1000 <= since;
}

/** gziphandler's test: gzip listed in Accept-Encoding with a q above zero. */
function gzipAccepted(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '').split(',').some((entry) => {
    const [coding, ...params] = entry.split(';').map((p) => p.trim());
    if (coding.toLowerCase() !== 'gzip') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * GET /openapi/v2: the Swagger 2.0 document of every served kind, which kubectl falls back
 * to (its client-side validation of kinds without a PATCH, older kubectl for everything).
 * Built once per registry state: kinds are only ever added, so their number is the state.
 */
@Injectable()
export class OpenApiV2Service {
  private published?: { kinds: number; spec: PublishedSwagger };

  constructor(private readonly registry: ResourceRegistry) {}

  spec(): PublishedSwagger {
    const types = this.registry.served().map((e) => e.type);
    if (this.published?.kinds !== types.length) {
      const subresources = types.flatMap((type) => this.registry.subresourcesOf(type));
      this.published = { kinds: types.length, spec: new PublishedSwagger(buildSwaggerDocument(types, subresources)) };
    }
    return this.published.spec;
  }
}
