import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kubectl, kubectlFor } from '../support/kubectl';
import { startTestServer, TestServer } from '../support/test-server';

const RBAC = 'rbac.authorization.platform.io';
const APPLY = 'application/apply-patch+yaml';
const ROLES = `/apis/${RBAC}/v1/namespaces/default/roles`;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

function roleYaml(name: string, verbs: string[], labels: Record<string, string> = {}): string {
  const labelLines = Object.entries(labels).map(([k, v]) => `    ${k}: ${v}`);
  return [
    `apiVersion: ${RBAC}/v1`,
    'kind: Role',
    'metadata:',
    `  name: ${name}`,
    ...(labelLines.length ? ['  labels:', ...labelLines] : []),
    'rules:',
    '- apiGroups: [""]',
    '  resources: ["pods"]',
    `  verbs: [${verbs.map((v) => JSON.stringify(v)).join(', ')}]`,
    '',
  ].join('\n');
}

/** managedFields as `manager/operation` → fieldsV1. */
function owners(obj: any): Record<string, unknown> {
  return Object.fromEntries((obj.metadata.managedFields ?? []).map((e: any) => [`${e.manager}/${e.operation}`, e.fieldsV1]));
}

/** Server-side apply over HTTPS, and with kubectl, against the real server. */
describe('server-side apply', () => {
  let server: TestServer;
  let kubectl: Kubectl;
  const apply = (name: string, body: string, query: string, contentType = APPLY) =>
    server.admin.patch(`${ROLES}/${name}?${query}`, undefined, contentType, { raw: body });

  beforeAll(async () => {
    server = await startTestServer();
    kubectl = kubectlFor(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('creates with a YAML body (201) and updates with a JSON body (200), recording the applier', async () => {
    const created = await apply('reader', roleYaml('reader', ['get'], { team: 'a' }), 'fieldManager=alice');
    expect(created.status).toBe(201);
    expect(created.body.rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);
    expect(created.body.metadata.managedFields).toEqual([
      {
        manager: 'alice',
        operation: 'Apply',
        apiVersion: `${RBAC}/v1`,
        time: expect.stringMatching(TIME),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:team': {} } }, 'f:rules': {} },
      },
    ]);

    const json = JSON.stringify({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] });
    const updated = await apply('reader', json, 'fieldManager=alice');
    expect(updated.status).toBe(200);
    expect(updated.body.rules[0].verbs).toEqual(['get', 'list']);
    // The label alice stopped applying is gone; she owns exactly what she applied.
    expect(updated.body.metadata.labels).toBeUndefined();
    expect(owners(updated.body)).toEqual({ 'alice/Apply': { 'f:rules': {} } });
    const stored = await server.admin.get(`${ROLES}/reader`);
    expect(stored.body.metadata.resourceVersion).toBe(updated.body.metadata.resourceVersion);
  });

  it('answers a change to a field another manager owns with kube\'s 409 conflict Status', async () => {
    const res = await apply('reader', roleYaml('reader', ['*']), 'fieldManager=bob');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "alice": .rules',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.rules' }] },
      code: 409,
    });
  });

  it('shares ownership when the value is the same, and force takes the field', async () => {
    const same = await apply('reader', roleYaml('reader', ['get', 'list']), 'fieldManager=carol');
    expect(same.status).toBe(200);
    expect(owners(same.body)).toEqual({ 'alice/Apply': { 'f:rules': {} }, 'carol/Apply': { 'f:rules': {} } });

    const forced = await apply('reader', roleYaml('reader', ['*']), 'fieldManager=bob&force=true');
    expect(forced.status).toBe(200);
    expect(forced.body.rules[0].verbs).toEqual(['*']);
    expect(owners(forced.body)).toEqual({ 'bob/Apply': { 'f:rules': {} } });
  });

  it('applies a core-group kind; fields the server sets are not owned', async () => {
    const res = await server.admin.patch('/api/v1/namespaces/applied?fieldManager=alice', undefined, APPLY, {
      raw: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: applied\n  labels:\n    team: a\n',
    });
    expect(res.status).toBe(201);
    expect(res.body.status.phase).toBe('Active');
    expect(owners(res.body)).toEqual({ 'alice/Apply': { 'f:metadata': { 'f:labels': { 'f:team': {} } } } });
    const wrongVersion = await server.admin.patch('/api/v1/namespaces/applied?fieldManager=alice', undefined, APPLY, {
      raw: 'apiVersion: v2\nkind: Namespace\nmetadata:\n  name: applied\n',
    });
    expect(wrongVersion.body).toMatchObject({ code: 400, message: 'invalid object type: /v2, Kind=Namespace' });
  });

  it('rejects an apply without fieldManager, with managedFields, or of another kind', async () => {
    const noManager = await apply('reader', roleYaml('reader', ['get']), '');
    expect(noManager.status).toBe(422);
    expect(noManager.body).toMatchObject({
      reason: 'Invalid',
      message: 'PatchOptions.meta.platform.io "" is invalid: fieldManager: Required value: is required for apply patch',
      details: { group: 'meta.platform.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueRequired', field: 'fieldManager' }] },
    });

    const withFields = await apply('reader', `${roleYaml('reader', ['get'])}`.replace('metadata:\n', 'metadata:\n  managedFields: []\n'), 'fieldManager=bob');
    expect(withFields.status).toBe(400);
    expect(withFields.body).toMatchObject({ reason: 'BadRequest', message: 'metadata.managedFields must be nil' });

    const wrongKind = await apply('reader', roleYaml('reader', ['get']).replace('kind: Role', 'kind: ClusterRole'), 'fieldManager=bob');
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.message).toBe(`invalid object type: ${RBAC}/v1, Kind=ClusterRole`);
  });

  it('dry-runs an apply: the object and its managedFields come back, nothing is stored', async () => {
    const res = await apply('dry', roleYaml('dry', ['get']), 'fieldManager=alice&dryRun=All');
    expect(res.status).toBe(201);
    expect(owners(res.body)).toEqual({ 'alice/Apply': { 'f:rules': {} } });
    expect((await server.admin.get(`${ROLES}/dry`)).status).toBe(404);
  });

  it('follows fieldValidation for unknown fields in the apply body', async () => {
    const body = roleYaml('strict', ['get']).replace('rules:', 'bogus: 1\nrules:');
    const strict = await apply('strict', body, 'fieldManager=alice&fieldValidation=Strict');
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('error strict decoding YAML: unknown field "bogus"');
    const warned = await apply('strict', body, 'fieldManager=alice');
    expect(warned.status).toBe(201);
    expect(warned.body.bogus).toBeUndefined();
    expect(String(warned.headers.warning)).toContain('unknown field \\"bogus\\"');
  });

  it('records non-apply writes under fieldManager or the User-Agent, and clears managedFields with [{}]', async () => {
    const created = await server.admin.post(ROLES, { metadata: { name: 'plain', labels: { a: 'b' } }, rules: [] }, { headers: { 'User-Agent': 'my-controller/1.2 (linux)' } });
    expect(created.status).toBe(201);
    expect(owners(created.body)).toEqual({ 'my-controller/Update': { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:rules': {} } });

    const patched = await server.admin.patch(`${ROLES}/plain?fieldManager=labeler`, { metadata: { labels: { c: 'd' } } }, 'application/merge-patch+json');
    expect(owners(patched.body)['labeler/Update']).toEqual({ 'f:metadata': { 'f:labels': { 'f:c': {} } } });

    const reset = await server.admin.patch(`${ROLES}/plain?fieldManager=resetter`, { metadata: { managedFields: [{}], labels: { e: 'f' } } }, 'application/merge-patch+json');
    expect(reset.status).toBe(200);
    expect(owners(reset.body)).toEqual({ 'resetter/Update': { 'f:metadata': { 'f:labels': { 'f:e': {} } } } });

    const untouched = await server.admin.patch(`${ROLES}/plain?fieldManager=other`, { metadata: { managedFields: [] } }, 'application/merge-patch+json');
    expect(owners(untouched.body)).toEqual({ 'resetter/Update': { 'f:metadata': { 'f:labels': { 'f:e': {} } } } });
    // Nothing changed, so nothing was written.
    expect(untouched.body.metadata.resourceVersion).toBe(reset.body.metadata.resourceVersion);
  });

  it('works with kubectl apply --server-side, conflicts and --force-conflicts', async () => {
    const manifest = join(server.dataDir, 'ssa-role.yaml');
    writeFileSync(manifest, `${roleYaml('ssa', ['get'])}`.replace('metadata:\n', 'metadata:\n  namespace: default\n'));
    const first = await kubectl('apply', '--server-side', '-f', manifest);
    expect(first.stdout).toContain(`role.${RBAC}/ssa serverside-applied`);

    writeFileSync(manifest, `${roleYaml('ssa', ['get', 'list'])}`.replace('metadata:\n', 'metadata:\n  namespace: default\n'));
    await kubectl('apply', '--server-side', '-f', manifest);

    writeFileSync(manifest, `${roleYaml('ssa', ['*'])}`.replace('metadata:\n', 'metadata:\n  namespace: default\n'));
    const conflict = await kubectl('apply', '--server-side', '--field-manager=ops', '-f', manifest).catch((e) => e);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .rules');

    const forced = await kubectl('apply', '--server-side', '--field-manager=ops', '--force-conflicts', '-f', manifest);
    expect(forced.stdout).toContain(`role.${RBAC}/ssa serverside-applied`);

    const yaml = (await kubectl('get', `roles.${RBAC}`, 'ssa', '-n', 'default', '-o', 'yaml', '--show-managed-fields')).stdout;
    expect(yaml).toContain('managedFields:');
    expect(yaml).toContain('manager: ops');
    expect(yaml).toContain('operation: Apply');
    expect(yaml).toContain('fieldsType: FieldsV1');
    expect(yaml).toMatch(/fieldsV1:\n\s+f:rules: \{\}/);
  });

  it('upgrades from kubectl client-side apply to --server-side without conflicts', async () => {
    const manifest = join(server.dataDir, 'csa-role.yaml');
    writeFileSync(manifest, `${roleYaml('csa', ['get'])}`.replace('metadata:\n', 'metadata:\n  namespace: default\n'));
    await kubectl('apply', '-f', manifest);
    const before = await server.admin.get(`${ROLES}/csa`);
    expect(Object.keys(owners(before.body))).toEqual(['kubectl-client-side-apply/Update']);

    writeFileSync(manifest, `${roleYaml('csa', ['get', 'watch'])}`.replace('metadata:\n', 'metadata:\n  namespace: default\n'));
    const upgraded = await kubectl('apply', '--server-side', '-f', manifest);
    expect(upgraded.stdout).toContain(`role.${RBAC}/csa serverside-applied`);
    const after = await server.admin.get(`${ROLES}/csa`);
    expect(after.body.rules[0].verbs).toEqual(['get', 'watch']);
    expect(owners(after.body)['kubectl/Apply']).toEqual({ 'f:rules': {} });
    expect(JSON.parse(after.body.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).rules[0].verbs).toEqual(['get', 'watch']);
  });

  it('conflicts with the kubectl-create manager after kubectl create', async () => {
    const manifest = join(server.dataDir, 'created-role.yaml');
    writeFileSync(manifest, `${roleYaml('made', ['get'])}`.replace('metadata:\n', 'metadata:\n  namespace: default\n'));
    await kubectl('create', '-f', manifest);
    const created = await server.admin.get(`${ROLES}/made`);
    expect(owners(created.body)).toEqual({ 'kubectl-create/Update': { 'f:rules': {} } });

    writeFileSync(manifest, `${roleYaml('made', ['list'])}`.replace('metadata:\n', 'metadata:\n  namespace: default\n'));
    const conflict = await kubectl('apply', '--server-side', '-f', manifest).catch((e) => e);
    expect(conflict.stderr).toContain(`Apply failed with 1 conflict: conflict with "kubectl-create" using ${RBAC}/v1: .rules`);
  });
});
