import { Injectable } from '@nestjs/common';
import { parseRequestWriteOptions, RequestWriteOptions, WRITE_VERBS, WriteVerb } from '../../registry/options/request-options';
import { Query } from '../../registry/options/read-options';
import { deleteOptionsBody } from '../../runtime/serializer/protobuf/protobuf-body';
import { ApiRequest } from '../request/request-scope';

/**
 * The write options of every write, parsed and checked once, with kube's Status for bad ones
 * (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions): dryRun, fieldValidation,
 * fieldManager, force, If-Match, preconditions, propagationPolicy, gracePeriodSeconds. A
 * PATCH's Content-Type is checked first (415). The storage receives them typed and never
 * sees the query.
 */
@Injectable()
export class WriteOptionsPipe {
  /** What the pipe adds to the request's scope: the write options of a write, none for a read. */
  writeOptionsOf(req: ApiRequest): RequestWriteOptions | undefined {
    const { verb } = req.scope.info;
    if (!WRITE_VERBS.has(verb)) return undefined;
    return parseRequestWriteOptions({
      verb: verb as WriteVerb,
      query: req.query as Query,
      headers: req.headers,
      // Protobuf clients send DeleteOptions as a protobuf message; the codecs turn it into JSON.
      body: verb === 'delete' || verb === 'deletecollection' ? deleteOptionsBody(req.headers['content-type'], req.body) : undefined,
    });
  }
}
