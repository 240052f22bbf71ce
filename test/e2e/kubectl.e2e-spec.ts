import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { Kubectl, kubectlFor, spawnKubectl } from '../support/kubectl';
import { startTestServer, TestServer } from '../support/test-server';

/** kubectl against the server with the admin kubeconfig the server wrote, as a user would. */
describe('kubectl scenario', () => {
  let server: TestServer;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startTestServer();
    kubectl = kubectlFor(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('explains kinds from the published OpenAPI schemas', async () => {
    const rules = (await kubectl('explain', 'roles.rbac.authorization.platform.io.rules')).stdout;
    expect(rules).toContain('KIND:       Role');
    expect(rules).toMatch(/FIELD:\s+rules/);
    expect(rules).toContain('verbs');
    expect(rules).toContain('resourceNames');
    const roleRef = (await kubectl('explain', 'rolebindings.rbac.authorization.platform.io.roleRef')).stdout;
    expect(roleRef).toContain('apiGroup');
    expect(roleRef).toContain('name');
  });

  it('creates, reads, patches and deletes a Role', async () => {
    const manifest = join(server.dataDir, 'role.yaml');
    writeFileSync(
      manifest,
      [
        'apiVersion: rbac.authorization.platform.io/v1',
        'kind: Role',
        'metadata:',
        '  name: pod-reader',
        '  namespace: default',
        'rules:',
        '- apiGroups: [""]',
        '  resources: ["pods"]',
        '  verbs: ["get", "watch", "list"]',
        '',
      ].join('\n'),
    );
    const created = await kubectl('create', '-f', manifest);
    expect(created.stdout).toContain('role.rbac.authorization.platform.io/pod-reader created');

    const got = JSON.parse((await kubectl('get', 'roles.rbac.authorization.platform.io', 'pod-reader', '-n', 'default', '-o', 'json')).stdout);
    expect(got).toMatchObject({ kind: 'Role', metadata: { name: 'pod-reader', namespace: 'default' } });
    expect(got.rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'watch', 'list'] }]);

    const patched = await kubectl(
      'patch',
      'roles.rbac.authorization.platform.io',
      'pod-reader',
      '-n',
      'default',
      '--type=merge',
      '-p',
      '{"metadata":{"labels":{"team":"platform"}}}',
    );
    expect(patched.stdout).toContain('role.rbac.authorization.platform.io/pod-reader patched');
    const after = JSON.parse((await kubectl('get', 'roles.rbac.authorization.platform.io', 'pod-reader', '-n', 'default', '-o', 'json')).stdout);
    expect(after.metadata.labels).toEqual({ team: 'platform' });

    const listed = await kubectl('get', 'roles.rbac.authorization.platform.io', '-n', 'default');
    expect(listed.stdout).toMatch(/pod-reader/);

    const deleted = await kubectl('delete', 'roles.rbac.authorization.platform.io', 'pod-reader', '-n', 'default');
    expect(deleted.stdout).toContain('role.rbac.authorization.platform.io "pod-reader" deleted');
    await expect(kubectl('get', 'roles.rbac.authorization.platform.io', 'pod-reader', '-n', 'default')).rejects.toMatchObject({
      stderr: expect.stringContaining('NotFound'),
    });
  });

  it('lists cluster roles by the short resource name and shows validation errors', async () => {
    // `kubectl create namespace` encodes protobuf; a manifest goes as JSON.
    const nsManifest = join(server.dataDir, 'ns.yaml');
    writeFileSync(nsManifest, 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kubectl-ns\n');
    await kubectl('create', '-f', nsManifest);
    const ns = await kubectl('get', 'namespaces', 'kubectl-ns', '-o', 'jsonpath={.status.phase}');
    expect(ns.stdout).toBe('Active');

    const manifest = join(server.dataDir, 'bad.yaml');
    writeFileSync(
      manifest,
      'apiVersion: rbac.authorization.platform.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: bad\nroleRef:\n  apiGroup: rbac.authorization.platform.io\n  kind: Role\n  name: x\n',
    );
    await expect(kubectl('create', '-f', manifest)).rejects.toMatchObject({ stderr: expect.stringContaining('roleRef.kind: Unsupported value: "Role"') });
    const crs = await kubectl('get', 'clusterroles', '-o', 'name');
    expect(crs.stdout.split('\n')).toEqual(expect.arrayContaining(['clusterrole.rbac.authorization.platform.io/admin']));
    expect(crs.stdout).not.toContain('/bad');
  });

  it('lists in chunks with --chunk-size', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await server.admin.post('/apis/rbac.authorization.platform.io/v1/clusterroles', { metadata: { name: `chunk-${i}` }, rules: [] });
      expect(res.status).toBe(201);
    }
    const { stdout, stderr } = await kubectl('get', 'clusterroles.rbac.authorization.platform.io', '--chunk-size=2', '-o', 'name', '-v=6');
    const names = stdout.trim().split('\n').filter((l) => l.includes('chunk-'));
    expect(names).toEqual([0, 1, 2, 3, 4].map((i) => `clusterrole.rbac.authorization.platform.io/chunk-${i}`));
    expect(stderr).toContain('limit=2');
    expect(stderr).toMatch(/continue=/);
  });

  it('follows changes with get -w', async () => {
    // The barrier: kubectl lists this one first, then watches from the list's revision.
    expect((await server.admin.post('/apis/rbac.authorization.platform.io/v1/namespaces/default/roles', { metadata: { name: 'before-watch' }, rules: [] })).status).toBe(201);
    const watch = spawnKubectl(server, 'get', 'roles.rbac.authorization.platform.io', '-n', 'default', '-w', '-o', 'name');
    try {
      await eventually(() => expect(watch.output()).toContain('role.rbac.authorization.platform.io/before-watch'), 10000);
      const created = await server.admin.post('/apis/rbac.authorization.platform.io/v1/namespaces/default/roles', { metadata: { name: 'watched' }, rules: [] });
      expect(created.status).toBe(201);
      await eventually(() => expect(watch.output()).toContain('role.rbac.authorization.platform.io/watched'), 10000);
    } finally {
      watch.stop();
    }
  });
});
