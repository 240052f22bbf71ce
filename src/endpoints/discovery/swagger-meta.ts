import * as meta from '../../runtime/schema/meta';
import { any, atomicList, field, integer, string, struct, StructSchema, TYPE_META_DESCRIPTIONS } from '../../runtime/schema/schema';
import { deleteOptionsSchema } from '../../registry/options/request-options';
import { META_PACKAGE } from './openapi-names';
import { SwaggerDefinitions } from './swagger-definitions';
import { SwaggerSchema } from './swagger-types';

/** meta/v1 types that operations take or answer besides the kinds themselves. */

const statusCauseSchema = struct(
  {
    reason: field(string(), 'A machine-readable description of the cause of the error. If this value is empty there is no information available.'),
    message: field(string(), 'A human-readable description of the cause of the error. This field may be presented as-is to a reader.'),
    field: field(
      string(),
      'The field of the resource that has caused this error, as named by its JSON serialization. May include dot and postfix notation for nested attributes, e.g. "items[0].name".',
    ),
  },
  { typeName: 'v1.StatusCause', description: 'StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered.' },
);

const statusDetailsSchema = struct(
  {
    name: field(string(), 'The name attribute of the resource associated with the status StatusReason (when there is a single name which can be described).'),
    group: field(string(), 'The group attribute of the resource associated with the status StatusReason.'),
    kind: field(string(), 'The kind attribute of the resource associated with the status StatusReason. On some operations may differ from the requested resource Kind.'),
    uid: field(string(), 'UID of the resource. (when there is a single resource which can be described).'),
    causes: field(
      atomicList(statusCauseSchema),
      'The Causes array includes more details associated with the StatusReason failure. Not all StatusReasons may provide detailed causes.',
    ),
    retryAfterSeconds: field(integer(), 'If specified, the time in seconds before the operation should be retried. Some errors may indicate the client must take an alternate action.'),
  },
  {
    typeName: 'v1.StatusDetails',
    description:
      'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response. The Reason field of a Status object defines what attributes will be set.',
  },
);

const statusSchema = struct(
  {
    apiVersion: field(string(), TYPE_META_DESCRIPTIONS.apiVersion),
    kind: field(string(), TYPE_META_DESCRIPTIONS.kind),
    metadata: field(meta.listMetaSchema, TYPE_META_DESCRIPTIONS.listMetadata),
    status: field(string(), 'Status of the operation. One of: "Success" or "Failure".'),
    message: field(string(), 'A human-readable description of the status of this operation.'),
    reason: field(
      string(),
      'A machine-readable description of why this operation is in the "Failure" status. If this value is empty there is no information available.',
    ),
    details: field(
      statusDetailsSchema,
      'Extended data associated with the reason. Each reason may define its own extended details. This field is optional and the data returned is not guaranteed to conform to any schema except that defined by the reason type.',
    ),
    code: field(integer(), 'Suggested HTTP return code for this status, 0 if not set.'),
  },
  { typeName: 'v1.Status', description: 'Status is a return value for calls that don\'t return other objects.' },
);

const watchEventSchema = struct(
  {
    type: field(string(), 'The type of the event: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'),
    object: field(any(), 'Object is the object as of the event: the new state for ADDED and MODIFIED, the last state for DELETED, a Status for ERROR.'),
  },
  { required: ['type', 'object'], typeName: 'v1.WatchEvent', description: 'Event represents a single event to a watched resource.' },
);

/** Every struct of the meta/v1 package: wherever a kind uses one, it is named in META_PACKAGE. */
export function metaTypes(): StructSchema[] {
  const shared = Object.values(meta).filter((s): s is StructSchema => typeof s === 'object' && s !== null && s.kind === 'struct');
  return [...shared, statusCauseSchema, statusDetailsSchema, statusSchema, watchEventSchema, deleteOptionsSchema];
}

/** References to the meta/v1 definitions the operations name. */
export interface MetaRefs {
  status: SwaggerSchema;
  deleteOptions: SwaggerSchema;
  watchEvent: SwaggerSchema;
  patch: SwaggerSchema;
}

/** Defines Status, DeleteOptions, WatchEvent and Patch (the body of every PATCH). */
export function defineMetaTypes(definitions: SwaggerDefinitions): MetaRefs {
  return {
    status: definitions.define(`${META_PACKAGE}.Status`, statusSchema, META_PACKAGE, {
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }],
    }),
    deleteOptions: definitions.schemaOf(deleteOptionsSchema, META_PACKAGE),
    watchEvent: definitions.schemaOf(watchEventSchema, META_PACKAGE),
    // A patch body is a document of the patch type the Content-Type names, not a Go struct.
    patch: definitions.defineRaw(`${META_PACKAGE}.Patch`, {
      description: 'The body of a PATCH request: a JSON patch, merge patch, strategic merge patch or apply configuration.',
      type: 'object',
    }),
  };
}
