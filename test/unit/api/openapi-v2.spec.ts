import { gunzipSync } from 'node:zlib';
import * as YAML from 'yaml';
import { protoRoot } from '../../../src/runtime/serializer/protobuf/proto-root';
import { encodeGnosticDocument, GNOSTIC_DOCUMENT } from '../../../src/endpoints/discovery/gnostic-encoding';
import { negotiateOpenApiV2, openApiV2Response, PublishedSwagger } from '../../../src/endpoints/discovery/openapi-v2.service';
import { SwaggerDefinitions } from '../../../src/endpoints/discovery/swagger-definitions';
import { buildSwaggerDocument } from '../../../src/endpoints/discovery/swagger-document';
import { metaTypes } from '../../../src/endpoints/discovery/swagger-meta';
import { SwaggerDocument } from '../../../src/endpoints/discovery/swagger-types';
import { atomicList, string, struct } from '../../../src/runtime/schema/schema';
import { intOrString } from '../../../src/core/kinds/common-schemas';
import { namespaceType } from '../../../src/core/namespace';
import { clusterRoleType, roleType } from '../../../src/rbac/kinds/kinds';
import { subjectAccessReviewType } from '../../../src/reviews/review-kinds';

const RBAC = 'io.platform.api.rbac.v1';
const META = 'io.platform.apimachinery.pkg.apis.meta.v1';
const AUTHZ = 'io.platform.api.authorization.v1';
const ROLES = '/apis/rbac.authorization.platform.io/v1/namespaces/{namespace}/roles';
const SARS = '/apis/authorization.platform.io/v1/subjectaccessreviews';

const doc: SwaggerDocument = buildSwaggerDocument([roleType, clusterRoleType, subjectAccessReviewType, namespaceType]);
const paramNames = (params: Array<{ name: string }> = []) => params.map((p) => p.name);

describe('the Swagger 2.0 document', () => {
  it('is Swagger 2.0 with kube-style info and bearer token security', () => {
    expect(doc.swagger).toBe('2.0');
    expect(doc.info).toEqual({ title: 'platform-authz-apiserver', version: 'v1.32.0' });
    expect(doc.securityDefinitions.BearerToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'authorization' });
  });

  it('defines a kind with its GVK, referencing the named types it uses', () => {
    const role = doc.definitions[`${RBAC}.Role`];
    expect(role['x-kubernetes-group-version-kind']).toEqual([{ group: 'rbac.authorization.platform.io', kind: 'Role', version: 'v1' }]);
    expect(role.type).toBe('object');
    expect(role.properties).toMatchObject({
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { $ref: `#/definitions/${META}.ObjectMeta` },
      rules: { type: 'array', items: { $ref: `#/definitions/${RBAC}.PolicyRule` }, 'x-kubernetes-list-type': 'atomic' },
    });
    expect(doc.definitions[`${RBAC}.PolicyRule`]).toMatchObject({ type: 'object', required: ['verbs'], properties: { verbs: { type: 'array', items: { type: 'string' } } } });
    // Types of meta/v1 live in its package wherever they are used, with their merge markers.
    expect(doc.definitions[`${META}.ObjectMeta`].properties!.ownerReferences).toMatchObject({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'uid',
    });
    expect(doc.definitions[`${META}.OwnerReference`]['x-kubernetes-map-type']).toBe('atomic');
    expect(doc.definitions[`${RBAC}.AggregationRule`].properties!.clusterRoleSelectors.items).toEqual({ $ref: `#/definitions/${META}.LabelSelector` });
  });

  it('defines the list kind of a listable kind, and none for the create-only reviews', () => {
    expect(doc.definitions[`${RBAC}.RoleList`]).toMatchObject({
      required: ['items'],
      properties: { items: { type: 'array', items: { $ref: `#/definitions/${RBAC}.Role` } }, metadata: { $ref: `#/definitions/${META}.ListMeta` } },
      'x-kubernetes-group-version-kind': [{ group: 'rbac.authorization.platform.io', kind: 'RoleList', version: 'v1' }],
    });
    expect(doc.definitions[`${AUTHZ}.SubjectAccessReview`]['x-kubernetes-group-version-kind']).toEqual([
      { group: 'authorization.platform.io', kind: 'SubjectAccessReview', version: 'v1' },
    ]);
    expect(doc.definitions[`${AUTHZ}.SubjectAccessReviewList`]).toBeUndefined();
    expect(doc.definitions[`${AUTHZ}.SubjectAccessReview`].properties!.spec).toEqual({
      $ref: `#/definitions/${AUTHZ}.SubjectAccessReviewSpec`,
      description: 'Spec holds information about the request being evaluated',
    });
    expect(doc.definitions[`${AUTHZ}.SubjectAccessReviewSpec`].properties!.extra).toEqual({
      description: expect.stringContaining('Extra corresponds to the user.Info.GetExtra() method'),
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
    });
  });

  it('names the core group in the GVK of core kinds', () => {
    expect(doc.definitions['io.platform.api.core.v1.Namespace']['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Namespace', version: 'v1' }]);
    expect(doc.paths['/api/v1/namespaces/{name}'].get!.operationId).toBe('readCoreV1Namespace');
  });

  it('publishes the collection operations of a namespaced kind as kube does', () => {
    const collection = doc.paths[ROLES];
    expect(paramNames(collection.parameters)).toEqual(['namespace', 'pretty']);
    expect(collection.get).toMatchObject({
      operationId: 'listRbacAuthorizationV1NamespacedRole',
      tags: ['rbacAuthorization_v1'],
      'x-kubernetes-action': 'list',
      'x-kubernetes-group-version-kind': { group: 'rbac.authorization.platform.io', kind: 'Role', version: 'v1' },
      responses: { '200': { schema: { $ref: `#/definitions/${RBAC}.RoleList` } } },
    });
    expect(paramNames(collection.get!.parameters)).toEqual(
      expect.arrayContaining(['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'timeoutSeconds', 'watch']),
    );
    expect(collection.get!.produces).toContain('application/json;stream=watch');
    expect(collection.post).toMatchObject({ operationId: 'createRbacAuthorizationV1NamespacedRole', 'x-kubernetes-action': 'post' });
    expect(paramNames(collection.post!.parameters)).toEqual(['body', 'dryRun', 'fieldManager', 'fieldValidation']);
    expect(collection.delete).toMatchObject({ operationId: 'deleteRbacAuthorizationV1CollectionNamespacedRole', 'x-kubernetes-action': 'deletecollection' });
    expect(collection.delete!.responses['200'].schema).toEqual({ $ref: `#/definitions/${META}.Status` });
  });

  it('publishes the item operations, with patch taking the patch types and force', () => {
    const item = doc.paths[`${ROLES}/{name}`];
    expect(paramNames(item.parameters)).toEqual(['name', 'namespace', 'pretty']);
    expect(item.get).toMatchObject({ operationId: 'readRbacAuthorizationV1NamespacedRole', 'x-kubernetes-action': 'get' });
    expect(item.put).toMatchObject({ operationId: 'replaceRbacAuthorizationV1NamespacedRole', 'x-kubernetes-action': 'put' });
    expect(paramNames(item.put!.parameters)).toEqual(['body', 'dryRun', 'fieldManager', 'fieldValidation']);
    expect(item.patch).toMatchObject({ operationId: 'patchRbacAuthorizationV1NamespacedRole', 'x-kubernetes-action': 'patch' });
    expect(item.patch!.consumes).toEqual(expect.arrayContaining(['application/strategic-merge-patch+json', 'application/apply-patch+yaml']));
    expect(paramNames(item.patch!.parameters)).toEqual(['body', 'dryRun', 'fieldManager', 'force']);
    expect(item.delete).toMatchObject({ 'x-kubernetes-action': 'delete' });
    expect(paramNames(item.delete!.parameters)).toEqual(expect.arrayContaining(['body', 'dryRun', 'gracePeriodSeconds', 'propagationPolicy']));
  });

  it('lists a namespaced kind across all namespaces', () => {
    const all = doc.paths['/apis/rbac.authorization.platform.io/v1/roles'];
    expect(all.get).toMatchObject({ operationId: 'listRbacAuthorizationV1RoleForAllNamespaces', 'x-kubernetes-action': 'list' });
    expect(paramNames(all.parameters)).toEqual(expect.arrayContaining(['labelSelector', 'pretty', 'watch']));
    expect(Object.keys(all)).toEqual(['get', 'parameters']);
  });

  it('publishes only create for a create-only review, with no item path', () => {
    expect(Object.keys(doc.paths[SARS]).sort()).toEqual(['parameters', 'post']);
    expect(doc.paths[SARS].post).toMatchObject({
      operationId: 'createAuthorizationV1SubjectAccessReview',
      'x-kubernetes-action': 'post',
      'x-kubernetes-group-version-kind': { group: 'authorization.platform.io', kind: 'SubjectAccessReview', version: 'v1' },
    });
    expect(doc.paths[`${SARS}/{name}`]).toBeUndefined();
    expect(Object.values(doc.paths).some((p) => p.patch?.['x-kubernetes-group-version-kind'] && (p.patch['x-kubernetes-group-version-kind'] as { kind: string }).kind === 'SubjectAccessReview')).toBe(false);
  });

  it('lists paths and definitions sorted, as Go writes its maps', () => {
    expect(Object.keys(doc.paths)).toEqual([...Object.keys(doc.paths)].sort());
    expect(Object.keys(doc.definitions)).toEqual([...Object.keys(doc.definitions)].sort());
  });
});

describe('Swagger definitions of schemas', () => {
  it('writes IntOrString as a string of format int-or-string', () => {
    const defs = new SwaggerDefinitions(metaTypes());
    expect(defs.schemaOf(intOrString(), 'io.platform.api.core.v1')).toEqual({ type: 'string', format: 'int-or-string' });
  });

  it('shares a name between schemas with the same fields and inlines a different one', () => {
    const defs = new SwaggerDefinitions([]);
    const a = struct({ x: string() }, { typeName: 'v1.Thing' });
    const same = struct({ x: string() }, { typeName: 'v1.Thing' });
    const other = struct({ y: atomicList(string()) }, { typeName: 'v1.Thing' });
    expect(defs.schemaOf(a, 'p.v1')).toEqual({ $ref: '#/definitions/p.v1.Thing' });
    expect(defs.schemaOf(same, 'p.v1')).toEqual({ $ref: '#/definitions/p.v1.Thing' });
    expect(defs.schemaOf(other, 'p.v1')).toMatchObject({ type: 'object', properties: { y: { type: 'array' } } });
    expect(defs.definitions['p.v1.Thing'].properties).toEqual({ x: { type: 'string' } });
  });
});

describe('the gnostic protobuf encoding', () => {
  const Document = protoRoot().lookupType(GNOSTIC_DOCUMENT);
  const decoded = Document.toObject(Document.decode(encodeGnosticDocument(doc)), { defaults: false }) as any;
  const definition = (name: string) => decoded.definitions.additional_properties.find((d: any) => d.name === name).value;
  const extension = (extensions: any[], name: string) => YAML.parse(extensions.find((e: any) => e.name === name).value.yaml, { version: '1.1' });

  it('carries the document, definitions as named schemas', () => {
    expect(decoded.swagger).toBe('2.0');
    expect(decoded.info).toEqual({ title: 'platform-authz-apiserver', version: 'v1.32.0' });
    const role = definition(`${RBAC}.Role`);
    expect(role.type).toEqual({ value: ['object'] });
    const props = Object.fromEntries(role.properties.additional_properties.map((p: any) => [p.name, p.value]));
    expect(props.metadata._ref).toBe(`#/definitions/${META}.ObjectMeta`);
    expect(props.rules.items.schema[0]._ref).toBe(`#/definitions/${RBAC}.PolicyRule`);
    expect(extension(props.rules.vendor_extension, 'x-kubernetes-list-type')).toBe('atomic');
  });

  it('holds x-kubernetes-group-version-kind as YAML of a list of maps, the core group quoted', () => {
    const gvk = definition('io.platform.api.core.v1.Namespace').vendor_extension.find((e: any) => e.name === 'x-kubernetes-group-version-kind');
    expect(gvk.value.yaml).toContain('group: ""');
    expect(YAML.parse(gvk.value.yaml, { version: '1.1' })).toEqual([{ group: '', kind: 'Namespace', version: 'v1' }]);
  });

  it('carries operations with their parameters and the GVK map kubectl matches', () => {
    const path = decoded.paths.path.find((p: any) => p.name === `${ROLES}/{name}`).value;
    expect(path.patch.operation_id).toBe('patchRbacAuthorizationV1NamespacedRole');
    expect(extension(path.patch.vendor_extension, 'x-kubernetes-group-version-kind')).toEqual({ group: 'rbac.authorization.platform.io', kind: 'Role', version: 'v1' });
    const query = path.patch.parameters.map((p: any) => p.parameter.non_body_parameter?.query_parameter_sub_schema?.name).filter(Boolean);
    expect(query).toEqual(['dryRun', 'fieldManager', 'force']);
    expect(path.patch.parameters[0].parameter.body_parameter).toMatchObject({ name: 'body', in: 'body', required: true });
    expect(path.parameters[0].parameter.non_body_parameter.path_parameter_sub_schema).toMatchObject({ name: 'name', in: 'path', required: true, type: 'string' });
    const created = path.put.responses.response_code.find((r: any) => r.name === '201').value.response;
    expect(created).toMatchObject({ description: 'Created', schema: { schema: { _ref: `#/definitions/${RBAC}.Role` } } });
  });
});

describe('GET /openapi/v2 answers', () => {
  const spec = new PublishedSwagger(doc);

  it('negotiate the encoding as kube does', () => {
    expect(negotiateOpenApiV2(undefined)).toBe('json');
    expect(negotiateOpenApiV2('*/*')).toBe('json');
    expect(negotiateOpenApiV2('application/*')).toBe('json');
    expect(negotiateOpenApiV2('application/json;charset=utf-8')).toBe('json');
    expect(negotiateOpenApiV2('application/com.github.proto-openapi.spec.v2@v1.0+protobuf')).toBe('protobuf');
    expect(negotiateOpenApiV2('application/com.github.proto-openapi.spec.v2.v1.0+protobuf')).toBe('protobuf');
    expect(negotiateOpenApiV2('application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf')).toBe('protobuf');
    expect(negotiateOpenApiV2('text/plain')).toBeUndefined();
    expect(negotiateOpenApiV2('application/yaml')).toBeUndefined();
  });

  it('answer 406 with no body when no served type is acceptable', () => {
    expect(openApiV2Response(spec, { accept: 'application/yaml' })).toEqual({ status: 406, headers: { Vary: 'Accept, Accept-Encoding' } });
  });

  it('carry the ETag of the JSON document for both encodings', () => {
    const json = openApiV2Response(spec, { accept: 'application/json' });
    const pb = openApiV2Response(spec, { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    expect(json.headers['Content-Type']).toBe('application/json');
    expect(pb.headers['Content-Type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(json.headers.ETag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(pb.headers.ETag).toBe(json.headers.ETag);
    expect(JSON.parse(json.body!.toString())).toEqual(doc);
    expect(pb.body!.equals(encodeGnosticDocument(doc))).toBe(true);
  });

  it('answer 304 when the client has the current document', () => {
    const etag = `"${spec.etag}"`;
    const notModified = openApiV2Response(spec, { ifNoneMatch: etag });
    expect(notModified).toMatchObject({ status: 304, headers: { ETag: etag } });
    expect(notModified.body).toBeUndefined();
    expect(openApiV2Response(spec, { ifNoneMatch: `"other", W/${etag}` }).status).toBe(304);
    expect(openApiV2Response(spec, { ifNoneMatch: '*' }).status).toBe(304);
    expect(openApiV2Response(spec, { ifNoneMatch: '"other"' }).status).toBe(200);
    expect(openApiV2Response(spec, { ifModifiedSince: new Date(Date.now() + 60_000).toUTCString() }).status).toBe(304);
    expect(openApiV2Response(spec, { ifModifiedSince: new Date(Date.now() - 3_600_000).toUTCString() }).status).toBe(200);
  });

  it('gzip the body when the client accepts it', () => {
    const zipped = openApiV2Response(spec, { accept: 'application/json', acceptEncoding: 'deflate, gzip' });
    expect(zipped.headers['Content-Encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body!).equals(spec.json)).toBe(true);
    expect(openApiV2Response(spec, { accept: 'application/json', acceptEncoding: 'gzip;q=0' }).headers['Content-Encoding']).toBeUndefined();
  });
});
