import * as meta from '../schema/meta';
import { any, atomicList, integer, string, struct, StructSchema } from '../schema/schema';
import { deleteOptionsSchema } from '../resources/request-options';
import { META_PACKAGE } from './openapi-names';
import { SwaggerDefinitions } from './swagger-definitions';
import { SwaggerSchema } from './swagger-types';

/** meta/v1 types that operations take or answer besides the kinds themselves. */

const statusCauseSchema = struct({ reason: string(), message: string(), field: string() }, { typeName: 'v1.StatusCause' });

const statusDetailsSchema = struct(
  {
    name: string(),
    group: string(),
    kind: string(),
    uid: string(),
    causes: atomicList(statusCauseSchema),
    retryAfterSeconds: integer(),
  },
  { typeName: 'v1.StatusDetails' },
);

const statusSchema = struct(
  {
    apiVersion: string(),
    kind: string(),
    metadata: meta.listMetaSchema,
    status: string(),
    message: string(),
    reason: string(),
    details: statusDetailsSchema,
    code: integer(),
  },
  { typeName: 'v1.Status' },
);

const watchEventSchema = struct({ type: string(), object: any() }, { required: ['type', 'object'], typeName: 'v1.WatchEvent' });

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
