import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpResponse } from '../support/https-client';
import { Kubectl, kubectlFor } from '../support/kubectl';
import { PATCH_NOT_APPLICABLE } from '../support/status-of';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * Writes with options over HTTPS: every patch type, fieldValidation, dry run on every verb
 * (with a watch proving nothing is emitted), and kubectl's patch, create and apply.
 */
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const ROLES = `${RBAC}/namespaces/default/roles`;
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

const role = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'rbac.authorization.platform.io/v1',
  kind: 'Role',
  metadata: { name, labels: { a: '1' } },
  rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
  ...extra,
});

/** The Warning header values of a response, one per entry as sent. */
function warnings(res: HttpResponse): string[] {
  const out: string[] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i].toLowerCase() === 'warning') out.push(res.rawHeaders[i + 1]);
  return out;
}

describe('write options', () => {
  let server: TestServer;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startTestServer();
    kubectl = kubectlFor(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  const create = async (name: string, extra: Record<string, unknown> = {}) => {
    const res = await server.admin.post(ROLES, role(name, extra));
    expect(res.status).toBe(201);
    return res.body;
  };

  describe('patch types', () => {
    it('strategic merge: labels merge, finalizers are a set, rules are replaced', async () => {
      await create('smp', { metadata: { name: 'smp', labels: { a: '1' }, finalizers: ['example.com/a'] } });
      const res = await server.admin.patch(
        `${ROLES}/smp`,
        { metadata: { labels: { b: '2' }, finalizers: ['example.com/b'] }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] }] },
        SMP,
      );
      expect(res.status).toBe(200);
      expect(res.body.metadata.labels).toEqual({ a: '1', b: '2' });
      expect(res.body.metadata.finalizers).toEqual(['example.com/b', 'example.com/a']);
      expect(res.body.rules).toEqual([{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] }]);
      const removed = await server.admin.patch(
        `${ROLES}/smp`,
        { metadata: { labels: { a: null }, '$deleteFromPrimitiveList/finalizers': ['example.com/a', 'example.com/b'] } },
        SMP,
      );
      expect(removed.status).toBe(200);
      expect(removed.body.metadata.labels).toEqual({ b: '2' });
      expect(removed.body.metadata.finalizers ?? []).toEqual([]);
    });

    it('a malformed strategic directive is a 400 Status', async () => {
      await create('smp-bad');
      const res = await server.admin.patch(`${ROLES}/smp-bad`, { metadata: { $retainKeys: 'name' } }, SMP);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'invalid patch format of retainKeys' });
    });

    it('merge patch replaces lists and deletes with null', async () => {
      await create('merge');
      const res = await server.admin.patch(`${ROLES}/merge`, { metadata: { labels: { a: null, c: '3' } }, rules: [] }, MERGE);
      expect(res.status).toBe(200);
      expect(res.body.metadata.labels).toEqual({ c: '3' });
      expect(res.body.rules).toEqual([]);
    });

    it("JSON patch: a failed test is 422 with kube's cause and stores nothing", async () => {
      const created = await create('jp');
      const res = await server.admin.patch(
        `${ROLES}/jp`,
        [
          { op: 'replace', path: '/rules/0/verbs', value: ['delete'] },
          { op: 'test', path: '/rules/0/verbs/0', value: 'nope' },
        ],
        JSON_PATCH,
      );
      expect(res.status).toBe(422);
      // kube's NewGenericServerResponse(422): the patch library's words are not passed on.
      expect(res.body).toEqual(PATCH_NOT_APPLICABLE);
      const after = await server.admin.get(`${ROLES}/jp`);
      expect(after.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      expect(after.body.rules[0].verbs).toEqual(['get']);
    });

    it('any other Content-Type is 415 listing the patch types; a body that is not JSON is 400', async () => {
      await create('types');
      const res = await server.admin.patch(`${ROLES}/types`, {}, 'application/json');
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({
        reason: 'UnsupportedMediaType',
        message:
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
      });
      const bad = await server.admin.request('PATCH', `${ROLES}/types`, { raw: '{"metadata":', contentType: MERGE });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ reason: 'BadRequest', message: 'invalid JSON patch' });
    });
  });

  describe('fieldValidation', () => {
    const withExtras = (name: string) => role(name, { spec: { x: 1 }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'], bogus: true }] });

    it('Warn (the default): success, one Warning header per unknown field, nothing unknown stored', async () => {
      const res = await server.admin.post(ROLES, withExtras('warn'));
      expect(res.status).toBe(201);
      expect(warnings(res)).toEqual(['299 - "unknown field \\"rules[0].bogus\\""', '299 - "unknown field \\"spec\\""']);
      const stored = await server.admin.get(`${ROLES}/warn`);
      expect(stored.body.spec).toBeUndefined();
      expect(stored.body.rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);
    });

    it('duplicate keys in the raw JSON body are found too', async () => {
      const raw = '{"metadata":{"name":"dup","name":"dup"},"rules":[]}';
      const res = await server.admin.request('POST', `${ROLES}?fieldValidation=Warn`, { raw });
      expect(res.status).toBe(201);
      expect(warnings(res)).toEqual(['299 - "duplicate field \\"metadata.name\\""']);
    });

    it('Ignore: success, no warnings, unknown fields dropped', async () => {
      const res = await server.admin.post(`${ROLES}?fieldValidation=Ignore`, withExtras('ignore'));
      expect(res.status).toBe(201);
      expect(warnings(res)).toEqual([]);
      expect(res.body.spec).toBeUndefined();
    });

    it("Strict: 400 listing every problem in kube's words, nothing stored", async () => {
      const res = await server.admin.post(`${ROLES}?fieldValidation=Strict`, withExtras('strict'));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        reason: 'BadRequest',
        message: 'Role in version "v1" cannot be handled as a Role: strict decoding error: unknown field "rules[0].bogus", unknown field "spec"',
      });
      expect((await server.admin.get(`${ROLES}/strict`)).status).toBe(404);
    });

    it('a wrong JSON type is 400 without unknown-field detail', async () => {
      const res = await server.admin.post(`${ROLES}?fieldValidation=Strict`, role('typed', { spec: {}, rules: 'x' }));
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(
        'Role in version "v1" cannot be handled as a Role: json: cannot unmarshal string into Go struct field Role.rules of type []v1.PolicyRule',
      );
    });

    it('PUT is validated the same way', async () => {
      const created = await create('put');
      const res = await server.admin.put(`${ROLES}/put?fieldValidation=Strict`, { ...created, extra: 1 });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Role in version "v1" cannot be handled as a Role: strict decoding error: unknown field "extra"');
    });

    it('patches: Warn warns, Strict is 422 Invalid on the field patch', async () => {
      await create('patched');
      for (const type of [MERGE, SMP]) {
        const warned = await server.admin.patch(`${ROLES}/patched`, { spec: { x: 1 } }, type);
        expect(warned.status).toBe(200);
        expect(warnings(warned)).toEqual(['299 - "unknown field \\"spec\\""']);
        const strict = await server.admin.patch(`${ROLES}/patched?fieldValidation=Strict`, { spec: { x: 1 } }, type);
        expect(strict.status).toBe(422);
        expect(strict.body.reason).toBe('Invalid');
        expect(strict.body.message).toMatch(/^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "spec"$/);
        expect(strict.body.details.causes[0].field).toBe('patch');
      }
      const jsonPatch = await server.admin.patch(`${ROLES}/patched?fieldValidation=Strict`, [{ op: 'add', path: '/spec', value: {} }], JSON_PATCH);
      expect(jsonPatch.status).toBe(422);
    });

    it("any other value is kube's 422 Invalid on the options", async () => {
      const res = await server.admin.post(`${ROLES}?fieldValidation=Loud`, role('loud'));
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(
        'CreateOptions.meta.platform.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"',
      );
    });
  });

  describe('dry run', () => {
    it('every verb answers as usual, stores nothing and emits no watch event', async () => {
      const existing = await create('dry-existing');
      const list = await server.admin.get(ROLES);
      const watch = await server.admin.stream(`${ROLES}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
      try {
        const generated = await server.admin.post(`${ROLES}?dryRun=All`, { metadata: { generateName: 'dry-' }, rules: [] });
        expect(generated.status).toBe(201);
        expect(generated.body.metadata.name).toMatch(/^dry-[a-z0-9]{5}$/);
        expect(generated.body.metadata.uid).toBeDefined();
        expect(generated.body.metadata.creationTimestamp).toBeDefined();
        expect(generated.body.metadata.resourceVersion).toBeUndefined();
        expect((await server.admin.get(`${ROLES}/${generated.body.metadata.name}`)).status).toBe(404);

        const put = await server.admin.put(`${ROLES}/dry-existing?dryRun=All`, { ...existing, metadata: { ...existing.metadata, labels: { put: 'y' } } });
        expect(put.status).toBe(200);
        expect(put.body.metadata.labels).toEqual({ put: 'y' });
        const patched = await server.admin.patch(`${ROLES}/dry-existing?dryRun=All`, { metadata: { labels: { p: 'y' } } }, SMP);
        expect(patched.status).toBe(200);
        expect(patched.body.metadata.labels).toEqual({ a: '1', p: 'y' });
        const deleted = await server.admin.delete(`${ROLES}/dry-existing?dryRun=All`);
        expect(deleted.status).toBe(200);
        const bodyDeleted = await server.admin.request('DELETE', `${ROLES}/dry-existing`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] } });
        expect(bodyDeleted.status).toBe(200);
        const collection = await server.admin.delete(`${ROLES}?dryRun=All`);
        expect(collection.status).toBe(200);

        const after = await server.admin.get(`${ROLES}/dry-existing`);
        expect(after.status).toBe(200);
        expect(after.body.metadata.resourceVersion).toBe(existing.metadata.resourceVersion);
        expect(after.body.metadata.labels).toEqual({ a: '1' });

        // A real write after the dry runs: it is the only event the watch sees.
        await server.admin.patch(`${ROLES}/dry-existing`, { metadata: { labels: { real: 'y' } } }, MERGE);
        const [event] = await watch.waitFor(1);
        expect(event.type).toBe('MODIFIED');
        expect(event.object.metadata.labels).toEqual({ a: '1', real: 'y' });
        // The barrier: a second real write; its event comes right after the first, nothing between.
        await server.admin.patch(`${ROLES}/dry-existing`, { metadata: { labels: { barrier: 'y' } } }, MERGE);
        await watch.waitFor(2);
        expect(watch.events.map((e) => [e.type, e.object.metadata.labels])).toEqual([
          ['MODIFIED', { a: '1', real: 'y' }],
          ['MODIFIED', { a: '1', real: 'y', barrier: 'y' }],
        ]);
      } finally {
        watch.close();
      }
    });

    it("an invalid dryRun value is kube's 422 Invalid", async () => {
      const res = await server.admin.post(`${ROLES}?dryRun=Some`, role('dry-bad'));
      expect(res.status).toBe(422);
      expect(res.body.message).toBe('CreateOptions.meta.platform.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
      const del = await server.admin.delete(`${ROLES}/dry-bad?dryRun=Some`);
      expect(del.status).toBe(422);
      expect(del.body.message).toMatch(/^DeleteOptions\.meta\.platform\.io "" is invalid: dryRun: /);
    });

    it('a dry-run create still refuses invalid objects and names that exist', async () => {
      const invalid = await server.admin.post(`${ROLES}?dryRun=All`, { metadata: { name: 'a/b' }, rules: [] });
      expect(invalid.status).toBe(422);
      await create('dry-dup');
      const dup = await server.admin.post(`${ROLES}?dryRun=All`, role('dry-dup'));
      expect(dup.status).toBe(409);
    });
  });

  describe('kubectl', () => {
    const manifest = (name: string, verbs: string[]) => {
      const file = join(server.dataDir, `${name}-${verbs.join('-')}.yaml`);
      writeFileSync(
        file,
        [
          'apiVersion: rbac.authorization.platform.io/v1',
          'kind: Role',
          'metadata:',
          `  name: ${name}`,
          '  namespace: default',
          'rules:',
          '- apiGroups: [""]',
          '  resources: ["pods"]',
          `  verbs: [${verbs.map((v) => JSON.stringify(v)).join(', ')}]`,
          '',
        ].join('\n'),
      );
      return file;
    };

    it('kubectl patch uses a strategic merge patch by default', async () => {
      await create('kpatch');
      const out = await kubectl('patch', 'roles.rbac.authorization.platform.io', 'kpatch', '-n', 'default', '-p', '{"metadata":{"labels":{"b":"2"}}}', '-v=8');
      expect(out.stdout).toContain('role.rbac.authorization.platform.io/kpatch patched');
      expect(out.stderr).toContain('application/strategic-merge-patch+json');
      const got = await server.admin.get(`${ROLES}/kpatch`);
      expect(got.body.metadata.labels).toEqual({ a: '1', b: '2' });
    });

    it('kubectl create --dry-run=server and delete --dry-run=server change nothing', async () => {
      const file = manifest('kdry', ['get']);
      const created = await kubectl('create', '--dry-run=server', '-f', file);
      expect(created.stdout).toContain('role.rbac.authorization.platform.io/kdry created (server dry run)');
      expect((await server.admin.get(`${ROLES}/kdry`)).status).toBe(404);
      await kubectl('create', '-f', file);
      const deleted = await kubectl('delete', '--dry-run=server', '-f', file);
      expect(deleted.stdout).toContain('role.rbac.authorization.platform.io "kdry" deleted (server dry run)');
      expect((await server.admin.get(`${ROLES}/kdry`)).status).toBe(200);
    });

    it('kubectl apply (client-side) creates, then patches, then finds nothing to do', async () => {
      const first = await kubectl('apply', '-f', manifest('kapply', ['get']));
      expect(first.stdout).toContain('role.rbac.authorization.platform.io/kapply created');
      const second = await kubectl('apply', '-f', manifest('kapply', ['get', 'list']));
      expect(second.stdout).toContain('role.rbac.authorization.platform.io/kapply configured');
      const third = await kubectl('apply', '-f', manifest('kapply', ['get', 'list']));
      expect(third.stdout).toContain('role.rbac.authorization.platform.io/kapply unchanged');
      const got = await server.admin.get(`${ROLES}/kapply`);
      expect(got.body.rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]);
      expect(got.body.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"list"');
    });
  });
});
