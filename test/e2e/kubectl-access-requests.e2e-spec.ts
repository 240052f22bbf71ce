import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as YAML from 'yaml';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

/**
 * The access request flow with bin/kubectl-access, as people run it: alice asks for edit and
 * waits, bob sees it pending and approves it, alice has the access at once (and `explain`
 * says it comes from her request), bob revokes it; denial, and the one-line errors of
 * approving one's own request or a decided one.
 */
const PLUGIN = resolve(__dirname, '..', '..', 'bin', 'kubectl-access');
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';
const ACCESS = '/apis/access.platform.io/v1';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((done) => {
    execFile(PLUGIN, args, { env: { ...process.env, ...env }, timeout: 60000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

const group = (name: string) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const clusterRole = (name: string) => ({ apiGroup: RBAC_GROUP, kind: 'ClusterRole', name });

describe('kubectl access request, requests, approve, deny, revoke', () => {
  let server: TestServer;
  let dir: string;
  const configs: Record<string, string> = {};
  const as =
    (user: string) =>
    (...args: string[]) =>
      run(args, { HOME: dir, KUBECONFIG: configs[user] });
  const alice = as('alice');
  const bob = as('bob');
  const pendingNames = async () => JSON.parse((await bob('requests', '--pending', '-o', 'json')).stdout).items.map((r: any) => r.metadata.name) as string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'access-requests-plugin-'));
    server = await startTestServer({ options: { tokenAuthFile: writeTokenFile(dir, ['alice-token,alice,uid-alice,"devs"', 'bob-token,bob,uid-bob,"leads"']) } });
    const created = async (path: string, body: object) => expect((await server.admin.post(path, body)).status).toBe(201);
    await created('/api/v1/namespaces', { metadata: { name: 'prod' } });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'requesters' }, roleRef: clusterRole('access-requester'), subjects: [group('devs')] });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'approvers' }, roleRef: clusterRole('access-approver'), subjects: [group('leads')] });
    await created(`${RBAC}/namespaces/prod/rolebindings`, { metadata: { name: 'leads-edit' }, roleRef: clusterRole('edit'), subjects: [group('leads')] });
    await created(`${ACCESS}/accessrequestpolicies`, {
      metadata: { name: 'prod-edit' },
      spec: { roles: [{ kind: 'ClusterRole', names: ['edit'] }], namespaces: ['prod'], requesters: [group('devs')], approvers: [group('leads')], maxDuration: '4h' },
    });
    const adminConfig = YAML.parse(readFileSync(server.kubeconfigPath, 'utf8'));
    const cluster = adminConfig.clusters[0];
    for (const user of ['alice', 'bob']) {
      configs[user] = join(dir, `${user}.kubeconfig`);
      writeFileSync(
        configs[user],
        YAML.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'c', cluster: { server: cluster.cluster.server, 'certificate-authority-data': cluster.cluster['certificate-authority-data'] } }],
          users: [{ name: user, user: { token: `${user}-token` } }],
          contexts: [{ name: user, context: { cluster: 'c', user, namespace: 'prod' } }],
          'current-context': user,
        }),
      );
    }
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('request, approve by another user, access at once, explained, revoked', async () => {
    expect((await alice('can-i', 'create', 'configmaps')).stdout).toBe('no\n');
    const waiting = alice('request', 'edit', '--for=2h', '--reason=deploy the fix', '--wait');
    let name = '';
    await eventually(async () => {
      [name] = await pendingNames();
      expect(name).toMatch(/^edit-/);
    });
    const listed = await bob('requests', '-A');
    expect(listed.stdout.split('\n')[0].split(/\s{2,}/)).toEqual(['NAMESPACE', 'NAME', 'REQUESTER', 'ROLE', 'SCOPE', 'DURATION', 'PHASE', 'APPROVALS', 'AGE']);
    expect(listed.stdout).toMatch(new RegExp(`prod\\s+${name}\\s+alice\\s+ClusterRole/edit\\s+prod\\s+2h\\s+Pending\\s+0`));

    const own = await alice('approve', name);
    expect(own.code).toBe(1);
    expect(own.stderr).toMatch(/^error: .*forbidden/);

    const approved = await bob('approve', name, '--comment=ok, go');
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`accessrequest.access.platform.io/${name}: Approved`);
    expect(approved.stdout).toContain('approved by bob at');

    const waited = await waiting;
    expect(waited.code).toBe(0);
    expect(waited.stdout).toContain(`accessrequest.access.platform.io/${name}: Active`);
    expect((await alice('can-i', 'create', 'configmaps')).stdout).toBe('yes\n');
    const explained = await run(['explain', 'alice', 'create', 'configmaps', '-n', 'prod', '--kubeconfig', server.kubeconfigPath], { HOME: dir });
    expect(explained.stdout).toContain(`(from AccessRequest prod/${name}, until `);

    const again = await bob('approve', name);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('only a Pending request can be approved');

    const revoked = await bob('revoke', name, '--comment=done');
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain('revoked by bob at');
    expect((await alice('can-i', 'create', 'configmaps')).stdout).toBe('no\n');
  });

  it('deny, and the errors of bad requests', async () => {
    const made = await alice('request', 'edit', '--for=30m', '-o', 'json');
    expect(made.code).toBe(0);
    const name = JSON.parse(made.stdout).metadata.name;
    const denied = await bob('deny', name, '--comment=not now');
    expect(denied.stdout).toContain(`accessrequest.access.platform.io/${name}: Denied`);
    expect(denied.stdout).toContain('denied by bob at');
    const mine = JSON.parse((await alice('request', 'edit', '--for=30m', '-o', 'json')).stdout).metadata.name;
    const canceled = await alice('cancel', mine, '--comment=found another way');
    expect(canceled.stdout).toContain(`accessrequest.access.platform.io/${mine}: Canceled`);
    expect(canceled.stdout).toContain('canceled by alice at');
    const tooLong = await alice('request', 'edit', '--for=5h');
    expect({ code: tooLong.code, stderr: tooLong.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(/^error: .*spec\.duration.*must be at most 4h/) });
    const noPolicy = await alice('request', 'admin', '--for=1h');
    expect(noPolicy.stderr).toMatch(/^error: .*no AccessRequestPolicy allows user "alice"/);
    expect((await alice('request', 'edit')).stderr).toBe('error: request needs --for=DURATION (e.g. 2h)\n');
  });
});
