import { JSON_MEDIA, PROTOBUF_MEDIA, YAML_MEDIA } from '../../runtime/serializer/negotiation';
import { PATCH_MEDIA_TYPES } from '../../runtime/patch/patch-types';
import { ResourceType, Verb } from '../../runtime/schema/resource-type';
import { operationGroup } from './openapi-names';
import { OpenApiDialect } from './swagger-definitions';
import { MetaRefs } from './swagger-meta';
import { NonBodyParameter, SwaggerOperation, SwaggerParameter, SwaggerPathItem, SwaggerResponse, SwaggerSchema } from './swagger-types';

const query = (name: string, description: string, type: NonBodyParameter['type'] = 'string'): NonBodyParameter => ({
  in: 'query',
  name,
  description,
  type,
  uniqueItems: true,
});

const path = (name: string, description: string): NonBodyParameter => ({ in: 'path', name, description, type: 'string', required: true, uniqueItems: true });

const body = (schema: SwaggerSchema): SwaggerParameter => ({ in: 'body', name: 'body', required: true, schema });

const PRETTY = query('pretty', "If 'true', the output is pretty printed.");
const NAMESPACE = path('namespace', 'object name and auth scope, such as for teams and projects');
const DRY_RUN = query('dryRun', 'When present, modifications are not persisted. The only valid value is All.');
const FIELD_MANAGER = query('fieldManager', 'A name for the actor making the change; required for apply patches.');
/**
 * Published on create and replace, and on patch only in /openapi/v3, unlike kube's
 * /openapi/v2, for kubectl's sake: kubectl reads /openapi/v2 only when /openapi/v3 has no PATCH for a kind (the
 * create-only reviews). It then looks for fieldValidation on the kind's PATCH here; finding
 * none, it checks Namespace's PATCH, and if that has it, takes the kind for a custom resource
 * and lists apiextensions.k8s.io CustomResourceDefinitions, which this server does not serve,
 * and gives up ("failed to check CRD"). Without it on Namespace's PATCH kubectl validates the
 * manifest itself against these definitions, as it does against kube. /openapi/v3, which
 * kubectl asks first, publishes fieldValidation on every PATCH.
 */
const FIELD_VALIDATION = query('fieldValidation', 'How to treat unknown or duplicate fields in the body: Ignore, Warn (the default) or Strict.');
const FORCE = query('force', 'Apply patches take over fields other managers own. Only valid for apply patches.', 'boolean');

const SELECTION = [
  query('continue', 'The continue token of a previous page of a chunked list.'),
  query('fieldSelector', 'Selects objects by their fields. Defaults to everything.'),
  query('labelSelector', 'Selects objects by their labels. Defaults to everything.'),
  query('limit', 'The most items a list returns; the rest is reached with the continue token.', 'integer'),
  query('resourceVersion', 'Which resource version a list or watch starts from.'),
  query('resourceVersionMatch', 'How resourceVersion applies to a list: Exact or NotOlderThan.'),
  query('sendInitialEvents', 'A watch starts with synthetic ADDED events for the current objects.', 'boolean'),
  query('timeoutSeconds', 'Timeout of the list or watch call.', 'integer'),
];
const WATCH_PARAMS = [
  query('allowWatchBookmarks', 'A watch may receive BOOKMARK events.', 'boolean'),
  query('watch', 'Watch for changes to the described objects and return them as a stream of events.', 'boolean'),
];
const LIST_PARAMS = sortByName([...SELECTION, ...WATCH_PARAMS]);
const DELETE_PARAMS = [
  DRY_RUN,
  query('gracePeriodSeconds', 'The duration in seconds before the object is deleted.', 'integer'),
  query('orphanDependents', 'Deprecated: use propagationPolicy. Whether dependents are orphaned.', 'boolean'),
  query('propagationPolicy', 'Whether and how garbage collection deletes dependents: Orphan, Background or Foreground.'),
];

const OK = 'OK';
const UNAUTHORIZED: SwaggerResponse = { description: 'Unauthorized' };

/**
 * The paths of one kind as kube's installer publishes them: the collection (list, create,
 * deletecollection), the item (read, replace, patch, delete) and, for namespaced kinds, the
 * list across all namespaces, each operation only when the kind serves the verb. Operations
 * carry x-kubernetes-action and x-kubernetes-group-version-kind, which kubectl reads.
 */
export function kindPaths(
  type: ResourceType,
  refs: { object: SwaggerSchema; list?: SwaggerSchema; meta: MetaRefs },
  dialect: OpenApiDialect = 'v2',
  subresources: SubresourceRef[] = [],
): Record<string, SwaggerPathItem> {
  const has = (v: Verb) => type.verbs.includes(v);
  const { camel, tag } = operationGroup(type.group, type.version);
  const scope = type.namespaced ? 'Namespaced' : '';
  const group = `${camel[0].toUpperCase()}${camel.slice(1)}${type.version[0].toUpperCase()}${type.version.slice(1)}`;
  const produces = [JSON_MEDIA, YAML_MEDIA, ...(type.protobuf ? [PROTOBUF_MEDIA] : [])];
  const streams = [JSON_MEDIA + ';stream=watch', ...(type.protobuf ? [PROTOBUF_MEDIA + ';stream=watch'] : [])];

  /** kube's operation ids: verb, group version, then the kind with its scope (`createRbacAuthorizationV1NamespacedRole`). */
  const id = (verb: string, object = `${scope}${type.kind}`) => `${verb}${group}${object}`;
  const op = (action: string, operationId: string, description: string, parts: Pick<SwaggerOperation, 'responses'> & Partial<SwaggerOperation>): SwaggerOperation => ({
    description,
    operationId,
    tags: [tag],
    schemes: ['https'],
    consumes: ['*/*'],
    produces,
    ...parts,
    responses: { ...parts.responses, '401': UNAUTHORIZED },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: type.group, kind: type.kind, version: type.version },
  });
  const ok = (schema: SwaggerSchema): SwaggerResponse => ({ description: OK, schema });
  // The list across all namespaces takes its parameters at the path level, as kube's does.
  const listOp = (allNamespaces: boolean) =>
    op('list', allNamespaces ? id('list', `${type.kind}ForAllNamespaces`) : id('list'), `list or watch objects of kind ${type.kind}`, {
      ...(allNamespaces ? {} : { parameters: LIST_PARAMS }),
      produces: [...produces, ...streams],
      responses: { '200': ok(refs.list ?? refs.object) },
    });

  const prefix = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  const collectionPath = type.namespaced ? `${prefix}/namespaces/{namespace}/${type.plural}` : `${prefix}/${type.plural}`;
  const scopeParams = type.namespaced ? [NAMESPACE] : [];
  const paths: Record<string, SwaggerPathItem> = {};

  const collection: SwaggerPathItem = {};
  if (has('deletecollection')) {
    collection.delete = op('deletecollection', id('delete', `Collection${scope}${type.kind}`), `delete collection of ${type.kind}`, {
      parameters: [body(refs.meta.deleteOptions), ...sortByName([...SELECTION, ...DELETE_PARAMS])],
      responses: { '200': ok(refs.meta.status) },
    });
  }
  if (has('list')) collection.get = listOp(false);
  if (has('create')) {
    collection.post = op('post', id('create'), `create ${article(type.kind)} ${type.kind}`, {
      parameters: [body(refs.object), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
      responses: { '200': ok(refs.object), '201': { description: 'Created', schema: refs.object }, '202': { description: 'Accepted', schema: refs.object } },
    });
  }
  if (Object.keys(collection).length) paths[collectionPath] = { ...collection, parameters: [...scopeParams, PRETTY] };

  const item: SwaggerPathItem = {};
  if (has('delete')) {
    const deleted = type.deleteReturnsObject ? refs.object : refs.meta.status;
    item.delete = op('delete', id('delete'), `delete ${article(type.kind)} ${type.kind}`, {
      parameters: [body(refs.meta.deleteOptions), ...DELETE_PARAMS],
      responses: { '200': ok(deleted), '202': { description: 'Accepted', schema: deleted } },
    });
  }
  if (has('get')) item.get = op('get', id('read'), `read the specified ${type.kind}`, { responses: { '200': ok(refs.object) } });
  if (has('patch')) {
    item.patch = op('patch', id('patch'), `partially update the specified ${type.kind}`, {
      consumes: PATCH_MEDIA_TYPES,
      parameters: [body(refs.meta.patch), DRY_RUN, FIELD_MANAGER, ...(dialect === 'v3' ? [FIELD_VALIDATION] : []), FORCE],
      responses: { '200': ok(refs.object), '201': { description: 'Created', schema: refs.object } },
    });
  }
  if (has('update')) {
    item.put = op('put', id('replace'), `replace the specified ${type.kind}`, {
      parameters: [body(refs.object), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
      responses: { '200': ok(refs.object), '201': { description: 'Created', schema: refs.object } },
    });
  }
  if (Object.keys(item).length) {
    const name = path('name', `name of the ${type.kind}`);
    paths[`${collectionPath}/{name}`] = { ...item, parameters: [name, ...scopeParams, PRETTY] };
  }

  // Subresources, as kube publishes them: one path per subresource with an operation per verb
  // it serves (`createCoreV1NamespacedServiceAccountToken`, `replaceCertificatesV1CertificateSigningRequestApproval`),
  // each with the group-version-kind of its body.
  for (const sub of subresources) {
    const serves = (v: Verb) => sub.type.verbs.includes(v);
    const subKind = `${sub.name[0].toUpperCase()}${sub.name.slice(1)}`;
    const subId = (verb: string) => id(verb, `${scope}${type.kind}${subKind}`);
    const subItem: SwaggerPathItem = {};
    if (serves('create')) {
      subItem.post = op('post', subId('create'), `create ${sub.name} of ${article(type.kind)} ${type.kind}`, {
        parameters: [body(sub.object), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
        responses: { '200': ok(sub.object), '201': { description: 'Created', schema: sub.object }, '202': { description: 'Accepted', schema: sub.object } },
      });
    }
    if (serves('get')) subItem.get = op('get', subId('read'), `read ${sub.name} of the specified ${type.kind}`, { responses: { '200': ok(sub.object) } });
    if (serves('update')) {
      subItem.put = op('put', subId('replace'), `replace ${sub.name} of the specified ${type.kind}`, {
        parameters: [body(sub.object), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
        responses: { '200': ok(sub.object), '201': { description: 'Created', schema: sub.object } },
      });
    }
    if (serves('patch')) {
      subItem.patch = op('patch', subId('patch'), `partially update ${sub.name} of the specified ${type.kind}`, {
        consumes: PATCH_MEDIA_TYPES,
        parameters: [body(refs.meta.patch), DRY_RUN, FIELD_MANAGER, ...(dialect === 'v3' ? [FIELD_VALIDATION] : []), FORCE],
        responses: { '200': ok(sub.object), '201': { description: 'Created', schema: sub.object } },
      });
    }
    const operations = Object.values(subItem) as SwaggerOperation[];
    if (!operations.length) continue;
    for (const operation of operations) operation['x-kubernetes-group-version-kind'] = { group: sub.type.group, kind: sub.type.kind, version: sub.type.version };
    paths[`${collectionPath}/{name}/${sub.name}`] = { ...subItem, parameters: [path('name', `name of the ${sub.type.kind}`), ...scopeParams, PRETTY] };
  }

  // A namespaced kind is also listed across all namespaces, at the path without a namespace.
  if (type.namespaced && has('list')) {
    paths[`${prefix}/${type.plural}`] = { get: listOp(true), parameters: sortByName([...LIST_PARAMS, PRETTY]) };
  }
  return paths;
}

/** A subresource of a kind, with the definition of the kind its bodies are. */
export interface SubresourceRef {
  name: string;
  type: ResourceType;
  object: SwaggerSchema;
}

function sortByName<T extends { name: string }>(params: T[]): T[] {
  return [...params].sort((a, b) => a.name.localeCompare(b.name));
}

function article(kind: string): string {
  return /^[AEIOU]/.test(kind) ? 'an' : 'a';
}
