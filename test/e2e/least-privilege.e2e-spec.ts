import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropTestSchema, newTestSchema } from '../support/db';
import { eventually } from '../support/eventually';
import { describeWithPostgres } from '../support/postgres';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

/**
 * Least privilege from observed use (access.platform.io/v1): rule-level usage (ruleusages)
 * and refused attributes (accessdenials), recorded at decision time, flushed every 200 ms
 * here, merged across replicas.
 */
const ACCESS = '/apis/access.platform.io/v1';
const AUTHZ = '/apis/authorization.platform.io/v1';
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';
const TABLE = 'application/json;as=Table;v=v1;g=meta.platform.io';

const ALICE = { token: 'alice-token' };
const REVIEWER = { token: 'reviewer-token' };
const TOKENS = ['alice-token,alice,uid-alice', 'reviewer-token,reviewer,uid-reviewer'];

const user = (name: string) => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const roleRef = (kind: string, name: string) => ({ apiGroup: RBAC_GROUP, kind, name });
const options = (tokenAuthFile: string) => ({ tokenAuthFile, bindingUsage: { recording: true, flushIntervalMs: 200 } });

/** A SubjectAccessReview for `user` (groups given for a service account), as the admin asks it. */
export const sar = (userName: string, resourceAttributes: object) => ({
  apiVersion: 'authorization.platform.io/v1',
  kind: 'SubjectAccessReview',
  spec: { user: userName, ...(userName.startsWith('system:serviceaccount:') ? { groups: ['system:serviceaccounts', `system:serviceaccounts:${userName.split(':')[2]}`] } : {}), resourceAttributes },
});

async function seed(server: TestServer): Promise<void> {
  const created = async (path: string, body: object) => expect((await server.admin.post(path, body)).status).toBe(201);
  await created('/api/v1/namespaces', { metadata: { name: 'team' } });
  await created(`${RBAC}/clusterroles`, {
    metadata: { name: 'team-worker' },
    rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['*'] },
    ],
  });
  await created(`${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'alice-work' }, roleRef: roleRef('ClusterRole', 'team-worker'), subjects: [user('alice')] });
  await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'reviewer' }, roleRef: roleRef('ClusterRole', 'access-reviewer'), subjects: [user('reviewer')] });
}

async function listAs(server: TestServer, path: string): Promise<any[]> {
  const res = await server.anonymous.get(path, { as: REVIEWER });
  expect(res.status).toBe(200);
  return res.body.items;
}

describe('least privilege: rule usage and refusals', () => {
  let server: TestServer;
  let dir: string;
  const schema = process.env.DATABASE_URL ? newTestSchema() : undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'least-privilege-e2e-'));
    server = await startTestServer({ schema, keep: true, options: options(writeTokenFile(dir, TOKENS)) });
    await seed(server);
  });

  afterAll(async () => {
    await server?.close();
    if (schema) await dropTestSchema(process.env.DATABASE_URL!, schema);
    rmSync(dir, { recursive: true, force: true });
  });

  it('records which rule of which role through which binding allowed what, and what was refused', async () => {
    for (let i = 0; i < 3; i++) expect((await server.anonymous.get('/api/v1/namespaces/team/pods', { as: ALICE })).status).toBe(200);
    const review = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar('alice', { namespace: 'team', verb: 'update', resource: 'configmaps', name: 'cfg' }));
    expect(review.body.status.allowed).toBe(true);
    expect((await server.anonymous.get('/api/v1/namespaces/default/pods', { as: ALICE })).status).toBe(403);
    expect((await server.anonymous.get('/api/v1/namespaces/default/pods', { as: ALICE })).status).toBe(403);

    await eventually(async () => {
      const usages = await listAs(server, `${ACCESS}/ruleusages?fieldSelector=bindingRef.name=alice-work`);
      expect(usages.map((u) => [u.ruleIndex, u.uses])).toEqual(expect.arrayContaining([[0, 3], [1, 1]]));
      const denials = await listAs(server, `${ACCESS}/accessdenials?fieldSelector=user=alice`);
      expect(denials).toHaveLength(1);
      expect(denials[0]).toMatchObject({ denials: 2 });
    });
    const usages = await listAs(server, `${ACCESS}/ruleusages?fieldSelector=bindingRef.name=alice-work`);
    const pods = usages.find((u) => u.ruleIndex === 0);
    expect(pods).toMatchObject({
      metadata: { name: expect.stringMatching(/^rolebinding\.team\.alice-work\.rule-[0-9a-f]{16}$/) },
      bindingRef: { kind: 'RoleBinding', namespace: 'team', name: 'alice-work', uid: expect.any(String) },
      roleRef: { kind: 'ClusterRole', name: 'team-worker' },
      rule: { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      current: true,
      attributes: [{ verb: 'list', apiGroup: '', resource: 'pods', namespace: 'team', count: 3, first: expect.any(String), last: expect.any(String) }],
    });
    const wildcard = usages.find((u) => u.ruleIndex === 1);
    expect(wildcard.attributes).toEqual([expect.objectContaining({ verb: 'update', resource: 'configmaps', namespace: 'team', count: 1 })]);

    const [denial] = await listAs(server, `${ACCESS}/accessdenials?fieldSelector=subject.kind=User`).then((all) => all.filter((d) => d.user === 'alice'));
    expect(denial).toMatchObject({ metadata: { name: 'user.alice' }, subject: { kind: 'User', name: 'alice' }, attributes: [expect.objectContaining({ verb: 'list', resource: 'pods', namespace: 'default', count: 2 })] });

    const got = await server.anonymous.get(`${ACCESS}/ruleusages/${pods.metadata.name}`, { as: REVIEWER });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ apiVersion: 'access.platform.io/v1', kind: 'RuleUsage', uses: 3 });
    expect((await server.anonymous.get(`${ACCESS}/accessdenials/user.alice`, { as: REVIEWER })).body.kind).toBe('AccessDenial');
    expect((await server.anonymous.get(`${ACCESS}/ruleusages/nope`, { as: REVIEWER })).status).toBe(404);
  });

  it('an edited rule starts a new record; the old one is no longer current', async () => {
    const role = await server.admin.get(`${RBAC}/clusterroles/team-worker`);
    role.body.rules[0].verbs = ['get', 'list', 'watch'];
    expect((await server.admin.put(`${RBAC}/clusterroles/team-worker`, role.body)).status).toBe(200);
    await eventually(async () => expect((await server.anonymous.get('/api/v1/namespaces/team/pods?watch=false', { as: ALICE })).status).toBe(200));
    await eventually(async () => {
      const usages = (await listAs(server, `${ACCESS}/ruleusages?fieldSelector=bindingRef.name=alice-work`)).filter((u) => u.ruleIndex === 0);
      expect(usages.map((u) => u.current).sort()).toEqual([false, true]);
      expect(usages.find((u) => u.current).rule.verbs).toEqual(['get', 'list', 'watch']);
    });
  });

  it('selects by binding and role; other fields are 400; renders as Table', async () => {
    expect(await listAs(server, `${ACCESS}/ruleusages?fieldSelector=roleRef.name=nothing`)).toEqual([]);
    const bad = await server.anonymous.get(`${ACCESS}/ruleusages?fieldSelector=uses=3`, { as: REVIEWER });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    const table = await server.anonymous.get(`${ACCESS}/ruleusages`, { as: REVIEWER, headers: { accept: TABLE } });
    expect(table.body.columnDefinitions.map((c: any) => c.name)).toEqual(['Binding', 'Role', 'Rule', 'Uses', 'Attributes', 'Last Used']);
    const denials = await server.anonymous.get(`${ACCESS}/accessdenials`, { as: REVIEWER, headers: { accept: TABLE } });
    expect(denials.body.columnDefinitions.map((c: any) => c.name)).toEqual(['User', 'Denials', 'Attributes', 'Last Denied']);
  });

  it('needs list on ruleusages and accessdenials (access-reviewer has them)', async () => {
    expect((await server.anonymous.get(`${ACCESS}/ruleusages`, { as: ALICE })).status).toBe(403);
    expect((await server.anonymous.get(`${ACCESS}/accessdenials`, { as: ALICE })).status).toBe(403);
  });
});

describeWithPostgres('rule usage across replicas', (pgUrl) => {
  it('merges the records of every replica', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'least-privilege-replicas-'));
    const tokens = writeTokenFile(dir, TOKENS);
    const schema = newTestSchema();
    const first = await startTestServer({ databaseUrl: pgUrl, schema, options: options(tokens) });
    let second: TestServer | undefined;
    try {
      await seed(first);
      second = await startTestServer({ databaseUrl: pgUrl, schema, options: options(tokens) });
      for (const server of [first, second]) {
        await eventually(async () => expect((await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar('alice', { namespace: 'team', verb: 'get', resource: 'pods' }))).body.status.allowed).toBe(true));
      }
      for (const server of [first, second]) {
        await eventually(async () => {
          const [pods] = (await listAs(server, `${ACCESS}/ruleusages?fieldSelector=bindingRef.name=alice-work`)).filter((u) => u.ruleIndex === 0);
          expect(pods.attributes).toEqual([expect.objectContaining({ verb: 'get', resource: 'pods', namespace: 'team', count: 2 })]);
        });
      }
    } finally {
      await second?.close();
      await first.close();
      await dropTestSchema(pgUrl, schema);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
