import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

/** ABAC authorization (--authorization-mode=ABAC with --authorization-policy-file) through the real server. */
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const V1 = 'abac.authorization.platform.io/v1beta1';
const policy = (spec: object) => JSON.stringify({ apiVersion: V1, kind: 'Policy', spec });

describe('ABAC authorization', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'abac-e2e-'));
    const tokens = writeTokenFile(dir, ['alice-token,alice,uid-alice,"readers"', 'bob-token,bob,uid-bob', 'carl-token,carl,uid-carl']);
    const policies = join(dir, 'policy.jsonl');
    writeFileSync(
      policies,
      [
        '# who may do what',
        policy({ user: 'alice', namespace: '*', resource: 'roles', apiGroup: 'rbac.authorization.platform.io' }),
        policy({ group: 'readers', namespace: '*', resource: '*', apiGroup: '*', readonly: true }),
        '',
        '{"user":"carl","readonly":true}',
      ].join('\n'),
    );
    server = await startTestServer({ options: { authorizationModes: ['ABAC'], authorizationPolicyFile: policies, tokenAuthFile: tokens } });
    expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: 'team' } })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('allows what a policy matches', async () => {
    const as = { token: 'alice-token' };
    const created = await server.anonymous.post(`${RBAC}/namespaces/team/roles`, { metadata: { name: 'r' }, rules: [] }, { as });
    expect(created.status).toBe(201);
    expect((await server.anonymous.get(`${RBAC}/namespaces/team/rolebindings`, { as })).status).toBe(200); // readers: read-only everything
  });

  it('denies with kube\'s "No policy matched." when nothing matches, and read-only policies refuse writes', async () => {
    const bob = await server.anonymous.get(`${RBAC}/namespaces/team/roles`, { as: { token: 'bob-token' } });
    expect(bob.status).toBe(403);
    expect(bob.body.message).toBe(
      'roles.rbac.authorization.platform.io is forbidden: User "bob" cannot list resource "roles" in API group "rbac.authorization.platform.io" in the namespace "team": No policy matched.',
    );
    const write = await server.anonymous.post(`${RBAC}/clusterroles`, { metadata: { name: 'x' }, rules: [] }, { as: { token: 'alice-token' } });
    expect(write.status).toBe(403);
  });

  it('reads legacy unversioned lines (carl: read-only, every resource and path)', async () => {
    const as = { token: 'carl-token' };
    expect((await server.anonymous.get(`${RBAC}/clusterroles`, { as })).status).toBe(200);
    expect((await server.anonymous.get('/apis', { as })).status).toBe(200);
    expect((await server.anonymous.delete(`${RBAC}/namespaces/team/roles/r`, { as })).status).toBe(403);
  });

  it('refuses to start with a bad policy line, naming the file and line', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, [policy({ user: 'a' }), '{"user": "b", "readonly": "yes"}'].join('\n'));
    await expect(startTestServer({ options: { authorizationModes: ['ABAC'], authorizationPolicyFile: bad } })).rejects.toThrow(
      `error reading policy file ${bad}, line 2: {"user": "b", "readonly": "yes"}: readonly: expected a boolean, got string`,
    );
  });
});
