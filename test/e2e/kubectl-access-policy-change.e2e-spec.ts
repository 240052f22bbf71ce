import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as YAML from 'yaml';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * `kubectl access diff` and `kubectl access test` run as processes against a real server:
 * manifests from a file, a directory and standard input (multi-document YAML with other
 * kinds mixed in, as `helm template` prints them), deletions, the CI exit codes, and the
 * tests file format.
 */
const PLUGIN = resolve(__dirname, '..', '..', 'bin', 'kubectl-access');
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(PLUGIN, args, { env: { ...process.env, ...env }, timeout: 30000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      done({ code, stdout, stderr });
    });
    child.stdin!.end(input ?? '');
  });
}

const roleRef = (kind: string, name: string) => ({ apiGroup: RBAC_GROUP, kind, name });

describe('kubectl access diff and test', () => {
  let server: TestServer;
  let dir: string;
  const kubectl = (args: string[], input?: string) => run([...args, '--kubeconfig', server.kubeconfigPath], { HOME: dir }, input);

  // What `helm template` prints: kube's RBAC group, and kinds that are not RBAC.
  const chart = YAML.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'prod' }, data: { a: 'b' } }) +
    '---\n' +
    YAML.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'ci-secrets', namespace: 'prod' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'secret-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'ci', namespace: 'prod' }],
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'access-diff-'));
    server = await startTestServer();
    const created = async (path: string, body: object) => expect((await server.admin.post(path, body)).status).toBe(201);
    await created('/api/v1/namespaces', { metadata: { name: 'prod' } });
    await created(`${RBAC}/clusterroles`, { metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] });
    await created(`${RBAC}/namespaces/prod/rolebindings`, {
      metadata: { name: 'bob-secrets' },
      roleRef: roleRef('ClusterRole', 'secret-reader'),
      subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'bob' }],
    });
    await eventually(async () => expect((await kubectl(['can-i', 'get', 'secrets', '-n', 'prod', '--as', 'bob'])).code).toBe(0));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints what manifests on standard input would grant, and gates CI with --fail-on-new-access', async () => {
    const res = await kubectl(['diff', '-f', '-'], chart);
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(res.stdout.split('\n')[0]).toMatch(/^\s+SUBJECT\s+NAMESPACE\s+VERB\s+RESOURCE\s+EXCEPT\s+VIA$/);
    expect(res.stdout).toMatch(/\+\s+ServiceAccount:prod\/ci\s+prod\s+get\s+secrets\s+-\s+RoleBinding prod\/ci-secrets → ClusterRole secret-reader/);
    const gate = await kubectl(['diff', '-f', '-', '--fail-on-new-access'], chart);
    expect(gate.code).toBe(1);
  });

  it('reads a directory, and deletions after --delete', async () => {
    const manifests = join(dir, 'manifests');
    mkdirSync(manifests);
    writeFileSync(join(manifests, 'chart.yaml'), chart);
    writeFileSync(join(manifests, 'notes.txt'), 'not a manifest');
    const gained = await kubectl(['diff', '-f', manifests]);
    expect(gained.code).toBe(0);
    expect(gained.stdout).toContain('ServiceAccount:prod/ci');
    const removal = join(dir, 'removal.yaml');
    writeFileSync(removal, YAML.stringify({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'RoleBinding', metadata: { name: 'bob-secrets', namespace: 'prod' } }));
    const lost = await kubectl(['diff', '--delete', '-f', removal, '--fail-on-new-access']);
    expect(lost.code).toBe(0);
    expect(lost.stdout).toMatch(/-\s+User:bob\s+prod\s+get\s+secrets/);
    const json = await kubectl(['diff', '--delete', '-f', removal, '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'PolicyChangeReview', status: { gained: [], lost: [expect.objectContaining({ verb: 'get' })] } });
    const nothing = await kubectl(['diff', '-f', join(manifests, 'notes.txt')]);
    expect(nothing.stdout).toBe('No change in access (0 RBAC objects compared).\n');
  });

  it('runs a tests file, alone and --with proposed manifests, exiting 1 on a failure', async () => {
    const tests = join(dir, 'access-tests.yaml');
    writeFileSync(
      tests,
      YAML.stringify({
        assertions: [
          { name: 'bob reads prod secrets', can: { subject: { kind: 'User', name: 'bob' }, verb: 'get', resource: 'secrets', namespace: 'prod' } },
          { name: 'ci never reads secrets', cannot: { subject: { kind: 'ServiceAccount', name: 'ci', namespace: 'prod' }, verb: 'get', resource: 'secrets', namespace: 'prod' } },
        ],
      }),
    );
    const now = await kubectl(['test', '-f', tests]);
    expect(now.code).toBe(0);
    expect(now.stdout).toBe('PASS  bob reads prod secrets: User bob can get secrets in namespace prod\nPASS  ci never reads secrets: ServiceAccount prod/ci cannot get secrets in namespace prod\n2 passed, 0 failed\n');
    const proposed = join(dir, 'proposed.yaml');
    writeFileSync(proposed, chart);
    const after = await kubectl(['test', '-f', tests, '--with', '-f', proposed]);
    expect(after.code).toBe(1);
    expect(after.stdout).toContain('FAIL  ci never reads secrets: ServiceAccount prod/ci can get secrets in namespace prod\n      counterexample: ServiceAccount:prod/ci via RoleBinding prod/ci-secrets → ClusterRole secret-reader\n');
    expect(after.stdout).toContain('1 passed, 1 failed\n');
  });

  it('runs offline, without a server, on the RBAC objects of --policy files and the default roles', async () => {
    const offline = (args: string[]) => run(args, { HOME: dir, KUBECONFIG: join(dir, 'no-such-kubeconfig') });
    const policy = join(dir, 'policy.yaml');
    writeFileSync(
      policy,
      YAML.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] }) +
        '---\n' +
        YAML.stringify({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'alice-view', namespace: 'prod' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
          subjects: [{ kind: 'User', name: 'alice' }],
        }),
    );
    const proposed = join(dir, 'offline-proposed.yaml');
    writeFileSync(proposed, chart);
    const diffed = await offline(['diff', '--offline', '--policy', '-f', policy, '--with', '-f', proposed, '--fail-on-new-access']);
    expect(diffed.code).toBe(1);
    expect(diffed.stdout).toMatch(/\+\s+ServiceAccount:prod\/ci\s+prod\s+get\s+secrets\s+-\s+RoleBinding prod\/ci-secrets → ClusterRole secret-reader/);
    const tests = join(dir, 'offline-tests.yaml');
    // alice's view comes from the default roles, aggregated as the server would.
    writeFileSync(tests, YAML.stringify([{ can: { subject: { kind: 'User', name: 'alice' }, verb: 'list', resource: 'pods', namespace: 'prod' } }]));
    const tested = await offline(['test', '--offline', '-f', tests, '--policy', '-f', policy]);
    expect(tested).toMatchObject({ code: 0, stdout: 'PASS  User alice can list pods in namespace prod\n1 passed, 0 failed\n' });
    const bad = join(dir, 'offline-bad.yaml');
    writeFileSync(bad, YAML.stringify({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata: { name: 'no-namespace' }, rules: [] }));
    const refused = await offline(['test', '--offline', '-f', tests, '--policy', '-f', bad]);
    expect(refused).toMatchObject({ code: 1, stderr: 'error: policy[0].metadata.namespace: Required value\n' });
    expect((await offline(['can-i', 'get', 'pods', '--offline'])).stderr).toBe('error: --offline is for diff and test, not can-i\n');
  });

  it('reports bad input as one error line and exit 1', async () => {
    const missing = await kubectl(['diff', '-f', join(dir, 'nope.yaml')]);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/^error: the path ".*nope.yaml" does not exist\n$/);
    expect((await kubectl(['diff'])).stderr).toBe('error: diff needs -f FILE|DIR|-\n');
    const bad = join(dir, 'bad-role.yaml');
    writeFileSync(bad, YAML.stringify({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name: 'x' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: [] }] }));
    const invalid = await kubectl(['diff', '-f', bad]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('spec.changes[0].object.rules[0].verbs: Required value');
    const badTests = join(dir, 'bad-tests.yaml');
    writeFileSync(badTests, 'name: no assertions here\n');
    expect((await kubectl(['test', '-f', badTests])).stderr).toContain('a tests document is a list of assertions or has an "assertions" list');
  });
});
