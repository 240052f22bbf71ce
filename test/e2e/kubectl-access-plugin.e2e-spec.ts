import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import * as YAML from 'yaml';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

/**
 * bin/kubectl-access run as a process against a real server, as a user runs it: through
 * kubectl's plugin lookup on PATH and directly, with the admin kubeconfig (client
 * certificate, embedded CA) and a token kubeconfig (CA file, token), each command, its exit
 * codes, `-o json|yaml`, and its one-line errors.
 */
const PLUGIN = resolve(__dirname, '..', '..', 'bin', 'kubectl-access');
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(file, args, { env: { ...process.env, ...env }, timeout: 30000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

const subject = (kind: string, name: string) => ({ kind, apiGroup: RBAC_GROUP, name });
const roleRef = (kind: string, name: string) => ({ apiGroup: RBAC_GROUP, kind, name });

describe('kubectl access (bin/kubectl-access)', () => {
  let server: TestServer;
  let dir: string;
  let aliceConfig: string;
  let downConfig: string;
  const admin = (...args: string[]) => run(PLUGIN, [...args, '--kubeconfig', server.kubeconfigPath], { HOME: dir });
  const alice = (...args: string[]) => run(PLUGIN, args, { HOME: dir, KUBECONFIG: aliceConfig });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'access-plugin-'));
    server = await startTestServer({ options: { tokenAuthFile: writeTokenFile(dir, ['alice-token,alice,uid-alice,"devs"']) } });
    const created = async (path: string, body: object) => expect((await server.admin.post(path, body)).status).toBe(201);
    await created('/api/v1/namespaces', { metadata: { name: 'prod' } });
    await created(`${RBAC}/clusterroles`, { metadata: { name: 'secret-deleter' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['delete'] }] });
    await created(`${RBAC}/namespaces/prod/rolebindings`, { metadata: { name: 'prod-secrets' }, roleRef: roleRef('ClusterRole', 'secret-deleter'), subjects: [subject('User', 'bob')] });
    await created(`${RBAC}/namespaces/prod/rolebindings`, { metadata: { name: 'devs-view' }, roleRef: roleRef('ClusterRole', 'view'), subjects: [subject('Group', 'devs')] });

    // A second kubeconfig as many users have one: the CA in a file, a bearer token, a default namespace.
    const adminConfig = YAML.parse(readFileSync(server.kubeconfigPath, 'utf8'));
    const cluster = adminConfig.clusters[0];
    writeFileSync(join(dir, 'ca.crt'), Buffer.from(cluster.cluster['certificate-authority-data'], 'base64'));
    aliceConfig = join(dir, 'alice.kubeconfig');
    writeFileSync(
      aliceConfig,
      YAML.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: cluster.cluster.server, 'certificate-authority': 'ca.crt' } }],
        users: [{ name: 'alice', user: { token: 'alice-token' } }],
        contexts: [{ name: 'alice@c', context: { cluster: 'c', user: 'alice', namespace: 'prod' } }],
        'current-context': 'alice@c',
      }),
    );
    downConfig = join(dir, 'down.kubeconfig');
    const down = structuredClone(adminConfig);
    down.clusters[0].cluster.server = 'https://127.0.0.1:1';
    writeFileSync(downConfig, YAML.stringify(down));
    await eventually(async () => expect((await alice('can-i', 'get', 'pods')).stdout).toBe('yes\n'));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is found by kubectl on PATH as `kubectl access`', async () => {
    const res = await run('kubectl', ['access', 'whoami'], { HOME: dir, KUBECONFIG: aliceConfig, PATH: `${resolve(__dirname, '..', '..', 'bin')}${delimiter}${process.env.PATH}` });
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(res.stdout).toMatch(/^ATTRIBUTE\s+VALUE\nUsername\s+alice\nUID\s+uid-alice\nGroups\s+\[devs system:authenticated\]\n$/);
  });

  describe('can-i', () => {
    it('prints yes or no and exits 0 or 1, resolving short names, plurals and group suffixes', async () => {
      expect(await alice('can-i', 'get', 'po')).toEqual({ code: 0, stdout: 'yes\n', stderr: '' });
      expect(await alice('can-i', 'delete', 'secrets')).toEqual({ code: 1, stdout: 'no\n', stderr: '' });
      expect(await alice('can-i', 'list', 'roles.rbac')).toEqual({ code: 1, stdout: 'no\n', stderr: '' });
      expect(await admin('can-i', 'delete', 'roles.rbac.authorization.platform.io', 'x', '-n', 'prod')).toEqual({ code: 0, stdout: 'yes\n', stderr: '' });
      expect(await admin('can-i', 'get', '/metrics')).toEqual({ code: 0, stdout: 'yes\n', stderr: '' });
    });

    it('impersonates with --as and --as-group', async () => {
      expect((await admin('can-i', 'delete', 'secrets', '-n', 'prod', '--as', 'bob')).code).toBe(0);
      expect((await admin('can-i', 'delete', 'secrets', '-n', 'default', '--as', 'bob')).code).toBe(1);
      expect((await admin('can-i', 'get', 'pods', '-n', 'prod', '--as', 'carol', '--as-group', 'devs')).code).toBe(0);
    });

    it('lists the caller\'s rules with --list, and prints the review with -o json', async () => {
      const listed = await alice('can-i', '--list');
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n/);
      expect(listed.stdout).toMatch(/\npods\s+\[\]\s+\[\]\s+\[get list watch\]\n/);
      expect(listed.stdout).toMatch(/\n\s+\[\/version\]\s+\[\]\s+\[get\]\n/);
      const json = await alice('can-i', 'delete', 'secrets', '-o', 'json');
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: 'prod', verb: 'delete', resource: 'secrets' } }, status: { allowed: false } });
    });
  });

  describe('who-can', () => {
    it('prints SUBJECT, KIND and VIA for each subject allowed', async () => {
      const res = await admin('who-can', 'delete', 'secrets', '-n', 'prod');
      expect(res.code).toBe(0);
      const lines = res.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^SUBJECT\s+KIND\s+VIA$/);
      expect(lines).toContainEqual(expect.stringMatching(/^bob\s+User\s+RoleBinding prod\/prod-secrets → ClusterRole secret-deleter$/));
      expect(lines).toContainEqual(expect.stringMatching(/^system:masters\s+Group\s+ClusterRoleBinding cluster-admin → ClusterRole cluster-admin$/));
      // The default chain's Node authorizer cannot list whom it allows.
      expect(res.stderr).toBe('warning: the answer may be incomplete: authorizer node (Node) cannot enumerate the nodes (group system:nodes) it allows\n');
    });

    it('asks about what discovery does not list, as kubectl can-i does: the identities impersonation names', async () => {
      await server.admin.post(`${RBAC}/clusterroles`, {
        metadata: { name: 'impersonate-bob' },
        rules: [{ apiGroups: ['authentication.platform.io'], resources: ['users'], resourceNames: ['bob'], verbs: ['impersonate:user-info'] }],
      });
      await server.admin.post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'impersonate-bob' }, roleRef: roleRef('ClusterRole', 'impersonate-bob'), subjects: [subject('User', 'deputy')] });
      let res: Run = { code: -1, stdout: '', stderr: '' };
      await eventually(async () => {
        res = await admin('who-can', 'impersonate:user-info', 'users.authentication.platform.io', 'bob');
        expect(res.stdout).toMatch(/^deputy\s+User\s+ClusterRoleBinding impersonate-bob → ClusterRole impersonate-bob$/m);
      });
      expect(res.code).toBe(0);
      expect(res.stderr).toContain("Warning: the server doesn't have a resource type 'users' in group 'authentication.platform.io'\n");
      const other = await admin('who-can', 'impersonate:user-info', 'users.authentication.platform.io', 'carol');
      expect(other.stdout).not.toMatch(/^deputy\s/m);
      // kubectl expects users and groups of the core group to be missing from discovery: no warning.
      expect(await admin('can-i', 'impersonate', 'users', 'bob')).toEqual({ code: 0, stdout: 'yes\n', stderr: '' });
    });

    it('prints the ResourceAccessReview with -o json and -o yaml', async () => {
      const json = await admin('who-can', 'delete', 'secrets', '-n', 'prod', '-o', 'json');
      expect(json.code).toBe(0);
      const review = JSON.parse(json.stdout);
      expect(review).toMatchObject({ apiVersion: 'access.platform.io/v1', kind: 'ResourceAccessReview' });
      expect(review.status.users).toContain('bob');
      const yaml = await admin('who-can', 'delete', 'secrets', '-n', 'prod', '-o', 'yaml');
      expect(YAML.parse(yaml.stdout).status).toEqual(review.status);
    });
  });

  describe('explain', () => {
    it('prints the decision, the deciding authorizer and the grants', async () => {
      const res = await admin('explain', 'bob', 'delete', 'secrets', '-n', 'prod');
      expect(res.code).toBe(0);
      expect(res.stdout).toContain('Decision: allowed\n');
      expect(res.stdout).toContain('Decided by: RBAC authorizer "rbac": RBAC: allowed by RoleBinding "prod-secrets/prod" of ClusterRole "secret-deleter" to User "bob"\n');
      expect(res.stdout).toContain('Granted by:\n  RoleBinding prod/prod-secrets → ClusterRole secret-deleter, rule 0\n');
    });

    it('prints the near misses with what is missing', async () => {
      const res = await admin('explain', 'bob', 'delete', 'secrets', '-n', 'default');
      expect(res.code).toBe(0);
      expect(res.stdout).toContain('Decision: denied (no authorizer allowed it)\n');
      expect(res.stdout).toContain(
        'Near misses:\n  RoleBinding prod/prod-secrets → ClusterRole secret-deleter, rule 0:\n    - RoleBinding "prod-secrets" grants only in namespace "prod", not in namespace "default"\n',
      );
      const json = JSON.parse((await admin('explain', 'alice', 'get', 'pods', '-n', 'prod', '--group', 'devs', '-o', 'json')).stdout);
      expect(json).toMatchObject({ kind: 'AccessExplanation', spec: { user: 'alice', groups: ['devs'] }, status: { allowed: true } });
    });
  });

  describe('rules and whoami', () => {
    it('lists a subject\'s rules in a namespace', async () => {
      const res = await admin('rules', 'bob', '-n', 'prod');
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/\nsecrets\s+\[\]\s+\[\]\s+\[delete\]\n/);
      const json = JSON.parse((await admin('rules', 'bob', '-n', 'prod', '-o', 'json')).stdout);
      expect(json).toMatchObject({ kind: 'SubjectRulesReview', spec: { user: 'bob', namespace: 'prod' }, status: { incomplete: false } });
    });

    it('says who the caller is', async () => {
      const res = await admin('whoami', '-o', 'json');
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout).status.userInfo).toMatchObject({ username: 'platform-admin', groups: expect.arrayContaining(['system:masters']) });
    });
  });

  describe('grant', () => {
    const TIMESTAMP = '(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ)';

    it('creates a temporary RoleBinding valid from now for the duration, and prints what it created', async () => {
      const res = await admin('grant', 'carl', '--clusterrole=secret-deleter', '-n', 'prod', '--for=1h30m');
      expect(res).toMatchObject({ code: 0, stderr: '' });
      const printed = new RegExp(
        `^rolebinding\\.${RBAC_GROUP.replace(/\./g, '\\.')}/(temporary-secret-deleter-[a-z0-9]{5}) created\\n  ClusterRole secret-deleter to User carl in namespace prod\\n  valid from ${TIMESTAMP} until ${TIMESTAMP}\\n$`,
      ).exec(res.stdout);
      expect(printed).not.toBeNull();
      const [, name, from, until] = printed!;
      expect(Date.parse(until) - Date.parse(from)).toBe(90 * 60_000);
      expect(Math.abs(Date.parse(from) - Date.now())).toBeLessThan(5000);
      const stored = (await server.admin.get(`${RBAC}/namespaces/prod/rolebindings/${name}`)).body;
      expect(stored).toMatchObject({
        metadata: {
          labels: { 'access.platform.io/temporary': 'true' },
          annotations: { [`${RBAC_GROUP}/valid-from`]: from, [`${RBAC_GROUP}/valid-until`]: until },
        },
        roleRef: roleRef('ClusterRole', 'secret-deleter'),
        subjects: [subject('User', 'carl')],
      });
      await eventually(async () => expect((await admin('can-i', 'delete', 'secrets', '-n', 'prod', '--as', 'carl')).stdout).toBe('yes\n'));
    });

    it('makes a ClusterRoleBinding for a ClusterRole without -n, to a service account and groups, and prints it with -o json', async () => {
      const res = await admin('grant', 'system:serviceaccount:prod:bot', '--group', 'oncall', '--clusterrole', 'view', '--for', '30m', '-o', 'json');
      expect(res.code).toBe(0);
      const created = JSON.parse(res.stdout);
      expect(created).toMatchObject({
        kind: 'ClusterRoleBinding',
        metadata: { name: expect.stringMatching(/^temporary-view-[a-z0-9]{5}$/), labels: { 'access.platform.io/temporary': 'true' } },
        subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: 'prod' }, subject('Group', 'oncall')],
      });
      const window = created.metadata.annotations;
      expect(Date.parse(window[`${RBAC_GROUP}/valid-until`]) - Date.parse(window[`${RBAC_GROUP}/valid-from`])).toBe(30 * 60_000);
    });

    it('explain names a temporary grant that has expired, with when', async () => {
      const validUntil = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString().replace('.000Z', 'Z');
      const expired = {
        metadata: { name: 'expired-grant', annotations: { [`${RBAC_GROUP}/valid-until`]: validUntil } },
        roleRef: roleRef('ClusterRole', 'secret-deleter'),
        subjects: [subject('User', 'dora')],
      };
      expect((await server.admin.post(`${RBAC}/namespaces/prod/rolebindings`, expired)).status).toBe(201);
      await eventually(async () => {
        const res = await admin('explain', 'dora', 'delete', 'secrets', '-n', 'prod');
        expect(res.stdout).toContain('Decision: denied (no authorizer allowed it)\n');
        expect(res.stdout).toContain(`Unusable bindings:\n  RoleBinding prod/expired-grant → ClusterRole secret-deleter: the binding expired at ${validUntil}\n`);
      });
    });

    it('refuses bad usage, and passes on the server\'s refusal', async () => {
      expect(await admin('grant', 'carl', '--role=r')).toEqual({ code: 1, stdout: '', stderr: 'error: grant needs --for=DURATION (e.g. 2h)\n' });
      expect(await admin('grant', 'carl', '--role=r', '--for=2d')).toEqual({ code: 1, stdout: '', stderr: 'error: --for must be a positive duration such as 30m or 2h, not "2d"\n' });
      expect(await admin('grant', 'carl', '--role=r', '--clusterrole=c', '--for=1h')).toEqual({ code: 1, stdout: '', stderr: 'error: grant needs exactly one of --role and --clusterrole\n' });
      const refused = await alice('grant', 'carl', '--role=r', '--for=1h');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `error: rolebindings.${RBAC_GROUP} is forbidden: User "alice" cannot create resource "rolebindings" in API group "${RBAC_GROUP}" in the namespace "prod"\n`,
      );
    });
  });

  describe('errors: one line, non-zero exit', () => {
    it('names an unknown resource', async () => {
      expect(await alice('who-can', 'get', 'frobs')).toEqual({ code: 1, stdout: '', stderr: 'error: the server doesn\'t have a resource type "frobs"\n' });
    });

    it('passes on the server\'s refusal', async () => {
      const res = await alice('who-can', 'get', 'pods');
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(
        'error: resourceaccessreviews.access.platform.io is forbidden: User "alice" cannot create resource "resourceaccessreviews" in API group "access.platform.io" at the cluster scope\n',
      );
    });

    it('says when the server cannot be reached', async () => {
      const res = await run(PLUGIN, ['whoami', '--kubeconfig', downConfig], { HOME: dir });
      expect(res).toEqual({ code: 1, stdout: '', stderr: 'error: cannot reach the server at https://127.0.0.1:1: ECONNREFUSED\n' });
    });

    it('refuses bad usage', async () => {
      expect(await alice('who-can', 'get')).toEqual({ code: 1, stdout: '', stderr: 'error: who-can takes VERB RESOURCE [NAME]\n' });
      expect(await alice('whoami', '-o', 'table')).toEqual({ code: 1, stdout: '', stderr: 'error: --output must be json or yaml, not "table"\n' });
      expect(await alice('nope')).toMatchObject({ code: 1, stderr: 'error: unknown command "nope" (one of: can-i, who-can, explain, rules, whoami, grant, unused, paths)\n' });
    });
  });
});
