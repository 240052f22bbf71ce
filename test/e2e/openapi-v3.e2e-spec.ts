import { Kubectl, kubectlFor } from '../support/kubectl';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * GET /openapi/v3 over HTTPS and what kubectl does with it: every field of every served kind
 * has a description that `kubectl explain` prints, with kube's extensions and an operation
 * for every route.
 */
type Schema = {
  $ref?: string;
  allOf?: Schema[];
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema;
  [key: string]: unknown;
};
type Document = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema> } };

const RBAC_V1 = 'rbac.authorization.platform.io/v1';

describe('/openapi/v3', () => {
  let server: TestServer;
  let kubectl: Kubectl;
  /** Each group version's document, by its path in the root index. */
  const documents = new Map<string, Document>();

  beforeAll(async () => {
    server = await startTestServer();
    kubectl = kubectlFor(server);
    const root = await server.admin.get('/openapi/v3');
    for (const [key, { serverRelativeURL }] of Object.entries(root.body.paths as Record<string, { serverRelativeURL: string }>)) {
      documents.set(key, (await server.admin.get(serverRelativeURL)).body);
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Every kind a document defines (its schemas with a group-version-kind), with the document. */
  const kinds = () =>
    [...documents.entries()].flatMap(([key, doc]) =>
      Object.entries(doc.components.schemas)
        .filter(([, s]) => Array.isArray(s['x-kubernetes-group-version-kind']))
        .map(([name, schema]) => ({ key, doc, name, schema })),
    );

  it('indexes a document for every served group version', () => {
    expect([...documents.keys()].sort()).toEqual(
      ['api/v1', `apis/${RBAC_V1}`, 'apis/authorization.platform.io/v1', 'apis/authentication.platform.io/v1', 'apis/access.platform.io/v1'].sort(),
    );
  });

  it('describes every field of every kind, following references into named types', () => {
    const undocumented: string[] = [];
    const resolve = (doc: Document, s: Schema): Schema => {
      const ref = s.$ref ?? s.allOf?.[0]?.$ref;
      return ref ? doc.components.schemas[ref.replace('#/components/schemas/', '')] : s;
    };
    const walk = (doc: Document, s: Schema, path: string, seen: Set<Schema>) => {
      const target = resolve(doc, s);
      if (!target || seen.has(target)) return;
      const inner = new Set(seen).add(target);
      for (const [field, prop] of Object.entries(target.properties ?? {})) {
        if (!prop.description?.trim()) undocumented.push(`${path}.${field}`);
        walk(doc, prop, `${path}.${field}`, inner);
      }
      if (target.items) walk(doc, target.items, `${path}[]`, inner);
      if (target.additionalProperties) walk(doc, target.additionalProperties, `${path}{}`, inner);
    };
    const all = kinds();
    // Every kind the server serves, and each listable kind's list.
    expect(all.length).toBeGreaterThanOrEqual(17 + 12);
    for (const { doc, name, schema } of all) {
      if (!schema.description?.trim()) undocumented.push(name);
      walk(doc, schema, name, new Set());
    }
    expect(undocumented).toEqual([]);
  });

  it("carries kube's extensions: group-version-kind, list types and map keys, patch strategies", () => {
    const core = documents.get('api/v1')!;
    const meta = core.components.schemas['io.platform.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
    expect(meta.properties!.ownerReferences).toMatchObject({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'uid',
    });
    const pod = core.components.schemas['io.platform.api.core.v1.Pod'];
    expect(pod['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Pod', version: 'v1' }]);
    expect(pod.properties!.metadata).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.platform.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
      description: "Standard object's metadata.",
    });
    const rbac = documents.get(`apis/${RBAC_V1}`)!;
    expect(rbac.components.schemas['io.platform.api.rbac.v1.RoleRef']['x-kubernetes-map-type']).toBe('atomic');
    expect(rbac.components.schemas['io.platform.api.rbac.v1.Role'].properties!.rules).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/io.platform.api.rbac.v1.PolicyRule' },
      'x-kubernetes-list-type': 'atomic',
    });
  });

  it('publishes an operation for every route of a kind, with its query parameters', () => {
    const rbac = documents.get(`apis/${RBAC_V1}`)!;
    const names = (params: Array<{ name: string }> = []) => params.map((p) => p.name);
    const collection = rbac.paths[`/apis/${RBAC_V1}/namespaces/{namespace}/roles`];
    expect(Object.keys(collection).sort()).toEqual(['delete', 'get', 'parameters', 'post']);
    expect(names(collection.get.parameters)).toEqual(
      expect.arrayContaining(['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch']),
    );
    expect(collection.post.requestBody.content['*/*'].schema).toEqual({ $ref: '#/components/schemas/io.platform.api.rbac.v1.Role' });
    expect(collection.post.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/io.platform.api.rbac.v1.Role' });
    const item = rbac.paths[`/apis/${RBAC_V1}/namespaces/{namespace}/roles/{name}`];
    expect(Object.keys(item).sort()).toEqual(['delete', 'get', 'parameters', 'patch', 'put']);
    expect(item.patch).toMatchObject({ 'x-kubernetes-action': 'patch', 'x-kubernetes-group-version-kind': { group: 'rbac.authorization.platform.io', kind: 'Role', version: 'v1' } });
    // kubectl asks the PATCH operation whether the server validates fields itself.
    expect(names(item.patch.parameters)).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    expect(Object.keys(item.patch.requestBody.content)).toEqual(expect.arrayContaining(['application/apply-patch+yaml', 'application/strategic-merge-patch+json']));
    expect(names(item.delete.parameters)).toEqual(['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy']);
    expect(item.delete.requestBody.content['*/*'].schema).toEqual({ $ref: '#/components/schemas/io.platform.apimachinery.pkg.apis.meta.v1.DeleteOptions' });
    expect(rbac.paths[`/apis/${RBAC_V1}/roles`].get.operationId).toBe('listRbacAuthorizationV1RoleForAllNamespaces');
    const reviews = documents.get('apis/authorization.platform.io/v1')!;
    expect(Object.keys(reviews.paths['/apis/authorization.platform.io/v1/subjectaccessreviews']).sort()).toEqual(['parameters', 'post']);
  });

  it("publishes an update subresource as kube publishes a CSR's approval: read and replace, with the kind of its body", () => {
    const access = documents.get('apis/access.platform.io/v1')!;
    const approval = access.paths['/apis/access.platform.io/v1/namespaces/{namespace}/accessrequests/{name}/approval'];
    expect(Object.keys(approval).sort()).toEqual(['get', 'parameters', 'put']);
    expect(approval.put).toMatchObject({
      operationId: 'replaceAccessV1NamespacedAccessRequestApproval',
      'x-kubernetes-action': 'put',
      'x-kubernetes-group-version-kind': { group: 'access.platform.io', kind: 'AccessRequest', version: 'v1' },
    });
    expect(approval.get.operationId).toBe('readAccessV1NamespacedAccessRequestApproval');
    const status = access.paths['/apis/access.platform.io/v1/clusteraccessrequests/{name}/status'];
    expect(status.put.operationId).toBe('replaceAccessV1ClusterAccessRequestStatus');
    expect(status.put.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['dryRun', 'fieldManager', 'fieldValidation']));
  });

  it("publishes a subresource's operation with the kind of its body: serviceaccounts/token takes a TokenRequest", () => {
    const core = documents.get('api/v1')!;
    const token = core.paths['/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token'];
    expect(Object.keys(token).sort()).toEqual(['parameters', 'post']);
    expect(token.parameters.map((p: { name: string }) => p.name)).toEqual(['name', 'namespace', 'pretty']);
    const tokenRequest = { $ref: '#/components/schemas/io.platform.api.authentication.v1.TokenRequest' };
    expect(token.post).toMatchObject({
      operationId: 'createCoreV1NamespacedServiceAccountToken',
      'x-kubernetes-action': 'post',
      'x-kubernetes-group-version-kind': { group: 'authentication.platform.io', kind: 'TokenRequest', version: 'v1' },
    });
    expect(token.post.requestBody.content['*/*'].schema).toEqual(tokenRequest);
    expect(token.post.responses['201'].content['application/json'].schema).toEqual(tokenRequest);
    expect(core.components.schemas['io.platform.api.authentication.v1.TokenRequest']).toMatchObject({
      'x-kubernetes-group-version-kind': [{ group: 'authentication.platform.io', kind: 'TokenRequest', version: 'v1' }],
    });
  });

  describe('kubectl explain', () => {
    const explain = async (...args: string[]) => (await kubectl('explain', ...args)).stdout;
    const descriptionOf = (out: string) => out.split('DESCRIPTION:')[1]?.split('FIELDS:')[0].trim();

    it('prints a description for each kind and every one of its fields', async () => {
      const served: Array<[string, string]> = [
        ['configmaps', 'v1'],
        ['namespaces', 'v1'],
        ['nodes', 'v1'],
        ['persistentvolumeclaims', 'v1'],
        ['persistentvolumes', 'v1'],
        ['pods', 'v1'],
        ['secrets', 'v1'],
        ['serviceaccounts', 'v1'],
        ['roles', RBAC_V1],
        ['clusterroles', RBAC_V1],
        ['rolebindings', RBAC_V1],
        ['clusterrolebindings', RBAC_V1],
        ['subjectaccessreviews', 'authorization.platform.io/v1'],
        ['localsubjectaccessreviews', 'authorization.platform.io/v1'],
        ['selfsubjectaccessreviews', 'authorization.platform.io/v1'],
        ['selfsubjectrulesreviews', 'authorization.platform.io/v1'],
        ['selfsubjectreviews', 'authentication.platform.io/v1'],
        ['resourceaccessreviews', 'access.platform.io/v1'],
        ['localresourceaccessreviews', 'access.platform.io/v1'],
        ['subjectrulesreviews', 'access.platform.io/v1'],
        ['accessexplanations', 'access.platform.io/v1'],
      ];
      for (const [resource, apiVersion] of served) {
        const out = await explain(resource, `--api-version=${apiVersion}`);
        expect(out).toContain(`VERSION:    v1`);
        expect(descriptionOf(out)).toMatch(/\w{3,}/);
        expect(out).toContain('FIELDS:');
        expect({ resource, out }).toEqual({ resource, out: expect.not.stringContaining('<no description>') });
      }
    });

    it('prints the descriptions of nested fields, naming their types', async () => {
      const verbs = await explain('roles.rules.verbs', `--api-version=${RBAC_V1}`);
      expect(verbs).toContain('FIELD: verbs <[]string>');
      expect(descriptionOf(verbs)).toMatch(/^Verbs is a list of Verbs that apply to ALL the ResourceKinds/);

      const rules = await explain('clusterroles.rules', `--api-version=${RBAC_V1}`);
      expect(rules).toContain('FIELD: rules <[]PolicyRule>');
      expect(rules).toMatch(/nonResourceURLs\s+<\[\]string>\n\s+NonResourceURLs is a set of partial urls/);

      const selectors = await explain('clusterroles.aggregationRule.clusterRoleSelectors.matchLabels', `--api-version=${RBAC_V1}`);
      expect(descriptionOf(selectors)).toMatch(/^matchLabels is a map of \{key,value\} pairs/);

      const roleRef = await explain('rolebindings.roleRef', `--api-version=${RBAC_V1}`);
      expect(roleRef).toContain('FIELD: roleRef <RoleRef>');
      expect(descriptionOf(roleRef)).toMatch(/^RoleRef can reference a Role in the current namespace/);

      const verb = await explain('subjectaccessreviews.spec.resourceAttributes.verb', '--api-version=authorization.platform.io/v1');
      expect(descriptionOf(verb)).toMatch(/^Verb is a kubernetes resource API verb/);

      const probe = await explain('pods.spec.containers.livenessProbe.httpGet.path');
      expect(descriptionOf(probe)).toBe('Path to access on the HTTP server.');
      const port = await explain('pods.spec.containers.livenessProbe.httpGet.port');
      expect(port).toContain('FIELD: port <IntOrString>');
      expect(descriptionOf(port)).toMatch(/^Number or name of the port to access on the container/);
    });
  });
});
