import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueClientCertificate } from '../../src/server/certificates';
import { dropTestSchema, newTestSchema } from '../support/db';
import { HttpsClient, HttpResponse } from '../support/https-client';
import { createScratchDatabase, describeWithPostgres } from '../support/postgres';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

/**
 * RBAC authorization through the real server: the index follows writes (local and from
 * another server process on the same PostgreSQL) within a second, and denials carry kube's
 * messages.
 */
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const GROUP = 'rbac.authorization.platform.io';
/** The server the replica test runs as a second process (`npm test` builds it first). */
const MAIN = process.env.PLATFORM_E2E_SERVER_MAIN || join(__dirname, '..', '..', 'dist', 'src', 'main.js');

const ALICE = { token: 'alice-token' };
const BOB = { token: 'bob-token' };
const ROBOT = { token: 'robot-token' };

function tokenFile(dir: string): string {
  return writeTokenFile(dir, [
    'alice-token,alice,uid-alice,"devs"',
    'bob-token,bob,uid-bob',
    'robot-token,system:serviceaccount:team:robot,uid-robot,"system:serviceaccounts,system:serviceaccounts:team"',
  ]);
}

const clusterRole = (name: string, rules: object[]) => ({ metadata: { name }, rules });
const binding = (name: string, roleKind: string, roleName: string, subjects: object[], namespace?: string) => ({
  metadata: namespace ? { name, namespace } : { name },
  roleRef: { apiGroup: GROUP, kind: roleKind, name: roleName },
  subjects,
});
const user = (name: string) => ({ kind: 'User', apiGroup: GROUP, name });

/** Until `request` answers `status` (the RBAC index follows writes asynchronously). */
async function untilStatus(request: () => Promise<HttpResponse>, status: number): Promise<void> {
  await eventually(async () => {
    const res = await request();
    expect({ status: res.status, text: res.text }).toEqual({ status, text: expect.any(String) });
  }, 5000, 20);
}

describe('RBAC authorization (--authorization-mode=RBAC)', () => {
  let server: TestServer;
  let dir: string;
  let client: HttpsClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rbac-e2e-'));
    server = await startTestServer({ options: { authorizationModes: ['RBAC'], tokenAuthFile: tokenFile(dir) } });
    client = server.anonymous;
    for (const ns of ['team', 'other']) expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps system:masters allowed without any binding', async () => {
    expect((await server.admin.get(`${RBAC}/clusterroles`)).status).toBe(200);
  });

  it('denies without a binding (kube\'s message, no RBAC reason), then allows within a second of a RoleBinding', async () => {
    const listRoles = () => client.get(`${RBAC}/namespaces/team/roles`, { as: ALICE });
    const denied = await listRoles();
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message:
        'roles.rbac.authorization.platform.io is forbidden: User "alice" cannot list resource "roles" in API group "rbac.authorization.platform.io" in the namespace "team"',
    });

    expect((await server.admin.post(`${RBAC}/clusterroles`, clusterRole('role-reader', [{ apiGroups: [GROUP], resources: ['roles'], verbs: ['get', 'list'] }]))).status).toBe(201);
    const created = await server.admin.post(`${RBAC}/namespaces/team/rolebindings`, binding('alice-reads', 'ClusterRole', 'role-reader', [user('alice')], 'team'));
    expect(created.status).toBe(201);
    await untilStatus(listRoles, 200);

    // A RoleBinding grants only in its namespace, even for a ClusterRole.
    expect((await client.get(`${RBAC}/namespaces/other/roles`, { as: ALICE })).status).toBe(403);
    expect((await client.get(`${RBAC}/roles`, { as: ALICE })).status).toBe(403);
    // Verbs are not implied.
    const create = await client.post(`${RBAC}/namespaces/team/roles`, { metadata: { name: 'x' }, rules: [] }, { as: ALICE });
    expect(create.status).toBe(403);

    expect((await server.admin.delete(`${RBAC}/namespaces/team/rolebindings/alice-reads`)).status).toBe(200);
    await untilStatus(listRoles, 403);
  });

  it('follows changes to the role itself and to a binding\'s subjects', async () => {
    const getCR = () => client.get(`${RBAC}/clusterroles/anything`, { as: BOB });
    await server.admin.post(`${RBAC}/clusterroles`, clusterRole('cr-getter', [{ apiGroups: [GROUP], resources: ['rolebindings'], verbs: ['get'] }]));
    await server.admin.post(`${RBAC}/clusterrolebindings`, binding('bob-cr', 'ClusterRole', 'cr-getter', [user('bob')]));
    expect((await getCR()).status).toBe(403);

    const patched = await server.admin.patch(
      `${RBAC}/clusterroles/cr-getter`,
      { rules: [{ apiGroups: [GROUP], resources: ['clusterroles'], verbs: ['get'] }] },
      'application/merge-patch+json',
    );
    expect(patched.status).toBe(200);
    await untilStatus(getCR, 404); // allowed; the object does not exist

    const swapped = await server.admin.patch(`${RBAC}/clusterrolebindings/bob-cr`, { subjects: [user('alice')] }, 'application/merge-patch+json');
    expect(swapped.status).toBe(200);
    await untilStatus(getCR, 403);
    expect((await client.get(`${RBAC}/clusterroles/anything`, { as: ALICE })).status).toBe(404);
  });

  it('reports a binding whose role does not exist in the 403 message, as kube does', async () => {
    await server.admin.post(`${RBAC}/namespaces/team/rolebindings`, binding('dangling', 'Role', 'not-there', [user('bob')], 'team'));
    // The binding is in the index once the message names its missing role.
    await eventually(async () => {
      const res = await client.get(`${RBAC}/namespaces/team/rolebindings`, { as: BOB });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(
        'rolebindings.rbac.authorization.platform.io is forbidden: User "bob" cannot list resource "rolebindings" in API group "rbac.authorization.platform.io" in the namespace "team": RBAC: role.rbac.authorization.platform.io "not-there" not found',
      );
    });
  });

  it('resourceNames: get and a list/watch pinned by metadata.name, never an unpinned list or a create', async () => {
    await server.admin.post(`${RBAC}/namespaces/team/roles`, { metadata: { name: 'visible' }, rules: [] });
    await server.admin.post(`${RBAC}/namespaces/team/roles`, { metadata: { name: 'hidden' }, rules: [] });
    await server.admin.post(`${RBAC}/namespaces/team/roles`, {
      metadata: { name: 'one-role' },
      rules: [{ apiGroups: [GROUP], resources: ['roles'], resourceNames: ['visible'], verbs: ['get', 'list', 'watch', 'create'] }],
    });
    await server.admin.post(`${RBAC}/namespaces/team/rolebindings`, {
      ...binding('robot-one-role', 'Role', 'one-role', [{ kind: 'ServiceAccount', name: 'robot' }], 'team'),
    });
    const get = () => client.get(`${RBAC}/namespaces/team/roles/visible`, { as: ROBOT });
    await untilStatus(get, 200);
    expect((await client.get(`${RBAC}/namespaces/team/roles/hidden`, { as: ROBOT })).status).toBe(403);
    const pinned = await client.get(`${RBAC}/namespaces/team/roles?fieldSelector=metadata.name%3Dvisible`, { as: ROBOT });
    expect(pinned.status).toBe(200);
    expect(pinned.body.items.map((i: any) => i.metadata.name)).toEqual(['visible']);
    expect((await client.get(`${RBAC}/namespaces/team/roles?fieldSelector=metadata.name%3Dhidden`, { as: ROBOT })).status).toBe(403);
    expect((await client.get(`${RBAC}/namespaces/team/roles`, { as: ROBOT })).status).toBe(403);
    const watch = await client.stream(`${RBAC}/namespaces/team/roles?watch=1&fieldSelector=metadata.name%3Dvisible`, ROBOT);
    expect(watch.status).toBe(200);
    expect((await watch.waitFor(1))[0].object.metadata.name).toBe('visible');
    watch.close();
    const create = await client.post(`${RBAC}/namespaces/team/roles`, { metadata: { name: 'visible2' }, rules: [] }, { as: ROBOT });
    expect(create.status).toBe(403);
    expect(create.body.message).toContain('User "system:serviceaccount:team:robot" cannot create resource "roles"');
  });

  it('non-resource URLs through a ClusterRoleBinding', async () => {
    const apis = () => client.get('/apis');
    const denied = await apis();
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('forbidden: User "system:anonymous" cannot get path "/apis"');
    await server.admin.post(`${RBAC}/clusterroles`, clusterRole('discovery-only', [{ nonResourceURLs: ['/apis', '/apis/*'], verbs: ['get'] }]));
    await server.admin.post(`${RBAC}/clusterrolebindings`, binding('anonymous-discovery', 'ClusterRole', 'discovery-only', [{ kind: 'Group', apiGroup: GROUP, name: 'system:unauthenticated' }]));
    await untilStatus(apis, 200);
    expect((await client.get(`/apis/${GROUP}/v1`)).status).toBe(200);
    expect((await client.get('/api')).status).toBe(403);
  });
});

describe('RBAC at start-up', () => {
  it('answers from the stored bindings on the very first request after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rbac-restart-'));
    const tokens = tokenFile(dir);
    const options = { authorizationModes: ['RBAC'], tokenAuthFile: tokens };
    // On PostgreSQL the restart must find the same schema.
    const schema = process.env.DATABASE_URL ? newTestSchema() : undefined;
    const first = await startTestServer({ schema, keep: true, options });
    try {
      await first.admin.post(`${RBAC}/clusterroles`, clusterRole('cr-lister', [{ apiGroups: [GROUP], resources: ['clusterroles'], verbs: ['list'] }]));
      await first.admin.post(`${RBAC}/clusterrolebindings`, binding('alice-lists', 'ClusterRole', 'cr-lister', [user('alice')]));
    } finally {
      await first.close();
    }
    const second = await startTestServer({ dataDir: first.dataDir, schema, options });
    try {
      expect((await second.anonymous.get(`${RBAC}/clusterroles`, { as: ALICE })).status).toBe(200);
    } finally {
      await second.close();
      rmSync(dir, { recursive: true, force: true });
      if (schema) await dropTestSchema(process.env.DATABASE_URL!, schema);
    }
  });
});

/** A second server process on the same PostgreSQL: its writes reach this server's RBAC index within a second. */
describeWithPostgres('RBAC across replicas on one PostgreSQL', (pgUrl) => {
  let db: { url: string; drop(): Promise<void> } | undefined;
  let local: TestServer | undefined;
  let child: ChildProcess | undefined;
  let remote: HttpsClient | undefined;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rbac-replica-'));
    const tokens = tokenFile(dir);
    db = await createScratchDatabase(pgUrl);
    local = await startTestServer({ databaseUrl: db.url, options: { authorizationModes: ['RBAC'], tokenAuthFile: tokens } });
    const dataDir = join(dir, 'replica');
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url };
    delete env.NODE_OPTIONS;
    child = spawn(process.execPath, [MAIN, '--data-dir', dataDir, '--secure-port', '0', '--authorization-mode=RBAC', `--token-auth-file=${tokens}`], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`replica did not start: ${out}`)), 30000);
      const onData = (c: Buffer) => {
        out += c.toString();
        const m = /serving on (https:\/\/\S+)\n/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child!.stdout!.on('data', onData);
      child!.stderr!.on('data', onData);
      child!.once('exit', (code) => reject(new Error(`replica exited with ${code}: ${out}`)));
    });
    const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
    const admin = issueClientCertificate(ca, readFileSync(join(dataDir, 'pki', 'ca.key'), 'utf8'), 'replica-admin', ['system:masters']);
    remote = new HttpsClient(url, ca, { cert: admin.certPem, key: admin.keyPem });
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child!.once('exit', r));
    }
    await local?.close();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a binding created and deleted through the other replica applies here', async () => {
    const listHere = () => local!.anonymous.get(`${RBAC}/clusterrolebindings`, { as: BOB });
    expect((await listHere()).status).toBe(403);
    expect((await remote!.post(`${RBAC}/clusterroles`, clusterRole('crb-lister', [{ apiGroups: [GROUP], resources: ['clusterrolebindings'], verbs: ['list'] }]))).status).toBe(201);
    const created = await remote!.post(`${RBAC}/clusterrolebindings`, binding('bob-lists', 'ClusterRole', 'crb-lister', [user('bob')]));
    expect(created.status).toBe(201);
    await untilStatus(listHere, 200);

    expect((await remote!.delete(`${RBAC}/clusterrolebindings/bob-lists`)).status).toBe(200);
    await untilStatus(listHere, 403);
  });
});
