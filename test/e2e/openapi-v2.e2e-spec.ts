import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as YAML from 'yaml';
import { protoRoot } from '../../src/runtime/serializer/protobuf/proto-root';
import { Kubectl, kubectlWith } from '../support/kubectl';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * GET /openapi/v2 over HTTPS (JSON and gnostic protobuf, ETag, gzip, who may read it) and
 * what it is for: kubectl validating manifests of the create-only review kinds client-side,
 * with the kubectl on the PATH and the older releases installed next to it.
 */
const PROTOBUF_V2 = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const PROTOBUF_V2_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const SAR = 'io.platform.api.authorization.v1.SubjectAccessReview';

/** kubectl.<major>.<minor> binaries installed next to the kubectl found on the PATH. */
function olderKubectls(): string[] {
  let dir: string;
  try {
    dir = dirname(realpathSync(execFileSync('which', ['kubectl']).toString().trim()));
  } catch {
    return [];
  }
  return readdirSync(dir)
    .filter((f) => /^kubectl\.\d+\.\d+$/.test(f))
    .map((f) => join(dir, f));
}

describe('/openapi/v2', () => {
  let server: TestServer;
  let kubectl: Kubectl;
  const manifest = (name: string, text: string) => {
    const path = join(server.dataDir, name);
    writeFileSync(path, text);
    return path;
  };
  const kubectlIn = (name: string, binary?: string) => {
    const home = join(server.dataDir, name);
    if (!existsSync(home)) mkdirSync(home);
    return kubectlWith(server.kubeconfigPath, home, binary);
  };

  beforeAll(async () => {
    server = await startTestServer();
    kubectl = kubectlIn('kubectl');
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('over HTTPS', () => {
    it('serves the Swagger 2.0 document as JSON to any authenticated user', async () => {
      const res = await server.anonymous.get('/openapi/v2', { as: server.certFor('someone'), headers: { Accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);
      expect(res.headers.vary).toContain('Accept');
      expect(res.body).toMatchObject({ swagger: '2.0', info: { title: 'platform-authz-apiserver' } });
      expect(res.body.definitions[SAR]['x-kubernetes-group-version-kind']).toEqual([{ group: 'authorization.platform.io', kind: 'SubjectAccessReview', version: 'v1' }]);
      expect(res.body.paths['/apis/authorization.platform.io/v1/subjectaccessreviews'].post['x-kubernetes-action']).toBe('post');
      expect(res.body.paths['/apis/rbac.authorization.platform.io/v1/clusterroles/{name}'].patch['x-kubernetes-action']).toBe('patch');
      expect(res.body.paths['/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token'].post).toMatchObject({
        operationId: 'createCoreV1NamespacedServiceAccountToken',
        'x-kubernetes-group-version-kind': { group: 'authentication.platform.io', kind: 'TokenRequest', version: 'v1' },
      });
    });

    it('answers JSON to a client that accepts anything', async () => {
      const res = await server.admin.get('/openapi/v2', { headers: { Accept: '*/*' } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
    });

    it('is forbidden to anonymous callers, as system:discovery is bound to authenticated users', async () => {
      const res = await server.anonymous.get('/openapi/v2');
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', message: expect.stringContaining('"/openapi/v2"') });
    });

    it('serves gnostic protobuf for both of its media types, with the ETag of the JSON', async () => {
      const json = await server.admin.get('/openapi/v2', { headers: { Accept: 'application/json' } });
      const Document = protoRoot().lookupType('openapi.v2.Document');
      for (const accept of [PROTOBUF_V2_DEPRECATED, PROTOBUF_V2]) {
        const res = await server.admin.get('/openapi/v2', { headers: { Accept: accept } });
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe(PROTOBUF_V2);
        expect(res.headers.etag).toBe(json.headers.etag);
        const doc = Document.toObject(Document.decode(res.bytes)) as any;
        expect(doc.swagger).toBe('2.0');
        const sar = doc.definitions.additional_properties.find((d: any) => d.name === SAR).value;
        const gvk = sar.vendor_extension.find((e: any) => e.name === 'x-kubernetes-group-version-kind');
        expect(YAML.parse(gvk.value.yaml, { version: '1.1' })).toEqual([{ group: 'authorization.platform.io', kind: 'SubjectAccessReview', version: 'v1' }]);
      }
    });

    it('answers 406 with no body when it cannot serve any accepted type', async () => {
      const res = await server.admin.get('/openapi/v2', { headers: { Accept: 'text/plain' } });
      expect(res.status).toBe(406);
      expect(res.text).toBe('');
    });

    it('answers 304 to a client holding the current document', async () => {
      const first = await server.admin.get('/openapi/v2', { headers: { Accept: PROTOBUF_V2 } });
      const again = await server.admin.get('/openapi/v2', { headers: { Accept: PROTOBUF_V2, 'If-None-Match': String(first.headers.etag) } });
      expect(again.status).toBe(304);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(again.bytes.length).toBe(0);
    });

    it('gzips the document for a client that accepts it', async () => {
      const plain = await server.admin.get('/openapi/v2', { headers: { Accept: 'application/json' } });
      const res = await server.admin.get('/openapi/v2', { headers: { Accept: 'application/json', 'Accept-Encoding': 'gzip' } });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(JSON.parse(gunzipSync(res.bytes).toString())).toEqual(plain.body);
    });
  });

  describe('with kubectl', () => {
    const sar = () =>
      manifest(
        'sar.yaml',
        ['apiVersion: authorization.platform.io/v1', 'kind: SubjectAccessReview', 'spec:', '  user: alice', '  resourceAttributes: {namespace: default, verb: get, resource: pods}', ''].join('\n'),
      );

    it('creates a SubjectAccessReview, a SelfSubjectAccessReview and a SelfSubjectReview with validation on', async () => {
      const access = YAML.parse((await kubectl('create', '-o', 'yaml', '-f', sar())).stdout);
      expect(access).toMatchObject({ kind: 'SubjectAccessReview', spec: { user: 'alice' }, status: { allowed: false } });

      const ssar = manifest(
        'ssar.yaml',
        ['apiVersion: authorization.platform.io/v1', 'kind: SelfSubjectAccessReview', 'spec:', '  resourceAttributes: {namespace: default, verb: get, resource: pods}', ''].join('\n'),
      );
      const self = YAML.parse((await kubectl('create', '-o', 'yaml', '-f', ssar)).stdout);
      expect(self).toMatchObject({ kind: 'SelfSubjectAccessReview', status: { allowed: true } });

      const ssr = manifest('ssr.yaml', 'apiVersion: authentication.platform.io/v1\nkind: SelfSubjectReview\n');
      const whoami = YAML.parse((await kubectl('create', '-o', 'yaml', '-f', ssr)).stdout);
      expect(whoami.status.userInfo).toMatchObject({ username: 'platform-admin', groups: expect.arrayContaining(['system:masters']) });
    });

    it('rejects an unknown field of a review client-side, naming the published definition', async () => {
      const bad = manifest(
        'bad-sar.yaml',
        ['apiVersion: authorization.platform.io/v1', 'kind: SubjectAccessReview', 'spec:', '  user: alice', '  bogus: true', '  resourceAttributes: {verb: get, resource: pods}', ''].join('\n'),
      );
      await expect(kubectl('create', '-f', bad)).rejects.toMatchObject({
        stderr: expect.stringContaining(
          'error validating data: ValidationError(SubjectAccessReview.spec): unknown field "bogus" in io.platform.api.authorization.v1.SubjectAccessReviewSpec; if you choose to ignore these errors, turn validation off with --validate=false',
        ),
      });
    });

    it('explains a review from /openapi/v3 and from /openapi/v2', async () => {
      for (const output of ['plaintext', 'plaintext-openapiv2']) {
        const explained = (await kubectl('explain', `--output=${output}`, 'subjectaccessreviews.authorization.platform.io.spec')).stdout;
        expect(explained).toMatch(/KIND:\s+SubjectAccessReview/);
        expect(explained).toContain('resourceAttributes');
        expect(explained).toContain('nonResourceAttributes');
      }
    });

    const older = olderKubectls();
    (older.length ? it : it.skip)('works from the older kubectl releases installed next to kubectl', async () => {
      for (const binary of older) {
        const release = binary.slice(binary.lastIndexOf('kubectl.') + 'kubectl.'.length);
        const run = kubectlIn(`kubectl-${release}`, binary);
        const listed = (await run('get', 'clusterroles')).stdout;
        expect(listed).toContain('cluster-admin');
        const name = `reader-${release.replace('.', '-')}`;
        const role = manifest(
          `role-${release}.yaml`,
          ['apiVersion: rbac.authorization.platform.io/v1', 'kind: Role', 'metadata:', `  name: ${name}`, '  namespace: default', 'rules:', '- {apiGroups: [""], resources: [pods], verbs: [get]}', ''].join('\n'),
        );
        expect((await run('create', '-f', role)).stdout).toContain(`role.rbac.authorization.platform.io/${name} created`);
        const review = YAML.parse((await run('create', '-o', 'yaml', '-f', sar())).stdout);
        expect(review).toMatchObject({ kind: 'SubjectAccessReview', status: { allowed: false } });
      }
    });
  });
});
