import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { dropTestSchema, newTestSchema } from '../support/db';
import { eventually } from '../support/eventually';
import { createScratchDatabase, describeWithPostgres } from '../support/postgres';
import { HttpsClient } from '../support/https-client';
import { issueClientCertificate } from '../../src/server/certificates';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';
import { TestClock } from '../support/test-clock';

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

const PLUGIN = resolve(__dirname, '..', '..', 'bin', 'kubectl-access');

/** Runs bin/kubectl-access with a kubeconfig; its exit code and output. */
function plugin(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(PLUGIN, [...args, '--kubeconfig', kubeconfig], { timeout: 30000 }, (err, stdout, stderr) => {
      done({ code: err ? Number((err as { code?: unknown }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

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

const ROBOT = 'system:serviceaccount:team:robot';
const DAY = 24 * 3600 * 1000;

/**
 * Findings and generated roles, on a server whose clock is moved 31 days past the policy's
 * creation, so bindings are older than the 720h window.
 */
describe('least privilege: findings and generated roles', () => {
  let server: TestServer;
  let dir: string;
  const clock = new TestClock();
  const schema = process.env.DATABASE_URL ? newTestSchema() : undefined;
  /** The SubjectAccessReviews the robot was granted, replayed against the generated role. */
  const robotUsed = [
    { namespace: 'team', verb: 'get', resource: 'pods', name: 'web' },
    { namespace: 'team', verb: 'list', resource: 'pods' },
    { namespace: 'team', verb: 'get', resource: 'pods', subresource: 'log', name: 'web' },
    { namespace: 'team', verb: 'create', resource: 'configmaps' },
    { namespace: 'team', verb: 'update', resource: 'persistentvolumeclaims', name: 'data' },
    { namespace: 'team', verb: 'patch', resource: 'persistentvolumeclaims', name: 'data' },
  ];
  /** What it did not use, and must not be allowed afterwards. */
  const robotNotUsed = [
    { namespace: 'team', verb: 'delete', resource: 'pods', name: 'web' },
    { namespace: 'team', verb: 'get', resource: 'secrets', name: 's' },
    { namespace: 'team', verb: 'create', resource: 'persistentvolumeclaims' },
    { namespace: 'team', verb: 'update', resource: 'configmaps', name: 'c' },
    { namespace: 'other', verb: 'get', resource: 'pods', name: 'web' },
    { namespace: 'team', verb: 'create', resource: 'serviceaccounts', subresource: 'token', name: 'robot' },
    { namespace: 'team', verb: 'impersonate', resource: 'serviceaccounts', name: 'robot' },
  ];
  const allowed = async (userName: string, attrs: object) => (await server.admin.post(`${AUTHZ}/subjectaccessreviews`, sar(userName, attrs))).body.status.allowed === true;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'least-privilege-findings-'));
    server = await startTestServer({ schema, keep: true, clock, options: options(writeTokenFile(dir, TOKENS)) });
    await seed(server);
    const created = async (path: string, body: object) => expect((await server.admin.post(path, body)).status).toBe(201);
    await created('/api/v1/namespaces', { metadata: { name: 'other' } });
    await created('/api/v1/namespaces/team/serviceaccounts', { metadata: { name: 'robot' } });
    await created(`${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'robot-edit' }, roleRef: roleRef('ClusterRole', 'edit'), subjects: [{ kind: 'ServiceAccount', name: 'robot' }] });
    await created(`${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'idle' }, roleRef: roleRef('ClusterRole', 'team-worker'), subjects: [user('ghost')] });
    await created(`${RBAC}/namespaces/team/rolebindings`, {
      metadata: { name: 'orphan' },
      roleRef: roleRef('ClusterRole', 'team-worker'),
      subjects: [{ kind: 'ServiceAccount', name: 'gone', namespace: 'team' }],
    });
    await created(`${RBAC}/clusterroles`, { metadata: { name: 'deployment-reader' }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }] });
    await created(`${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'alice-deployments' }, roleRef: roleRef('ClusterRole', 'deployment-reader'), subjects: [user('alice')] });
    // The edit role is aggregated in the background: wait for it with explanations, which record nothing.
    await eventually(async () => {
      const explained = await server.admin.post(`${ACCESS}/accessexplanations`, {
        apiVersion: 'access.platform.io/v1',
        kind: 'AccessExplanation',
        spec: { user: ROBOT, resourceAttributes: robotUsed[4] },
      });
      expect(explained.body.status.allowed).toBe(true);
    });
    clock.advance(31 * DAY);
    // alice uses pods, and configmaps through the wildcard rule, nothing else.
    expect((await server.anonymous.get('/api/v1/namespaces/team/pods', { as: ALICE })).status).toBe(200);
    expect(await allowed('alice', { namespace: 'team', verb: 'update', resource: 'configmaps', name: 'c' })).toBe(true);
    expect((await server.anonymous.get('/api/v1/namespaces/other/configmaps', { as: ALICE })).status).toBe(403);
    for (const attrs of robotUsed) expect({ attrs, allowed: await allowed(ROBOT, attrs) }).toEqual({ attrs, allowed: true });
    await eventually(async () => {
      const used = await listAs(server, `${ACCESS}/ruleusages?fieldSelector=bindingRef.name=robot-edit`);
      expect(used.reduce((n, u) => n + u.uses, 0)).toBe(robotUsed.length);
    });
  });

  afterAll(async () => {
    await server?.close();
    if (schema) await dropTestSchema(process.env.DATABASE_URL!, schema);
    rmSync(dir, { recursive: true, force: true });
  });

  const findings = async (selector: string) => listAs(server, `${ACCESS}/accessfindings?fieldSelector=${encodeURIComponent(selector)}`);

  it('finds bindings unused for the window, each with a fix; not the default policy', async () => {
    const unused = await findings('type=UnusedBinding');
    expect(unused.map((f) => `${f.bindingRef.namespace}/${f.bindingRef.name}`).sort()).toEqual(['team/alice-deployments', 'team/idle', 'team/orphan']);
    const idle = unused.find((f) => f.bindingRef.name === 'idle');
    expect(idle).toMatchObject({
      subject: { kind: 'User', name: 'ghost' },
      roleRef: { kind: 'ClusterRole', name: 'team-worker' },
      suggestedFix: { command: 'kubectl delete rolebinding -n team idle' },
      windowStart: expect.stringMatching(/Z$/),
    });
    expect(idle.lastUsed).toBeUndefined();
  });

  it('finds rules never used through a binding, and wildcard rules naming the parts used', async () => {
    const unusedRules = await findings('type=UnusedRule,bindingRef.name=alice-work');
    // Rule 0 (pods) and rule 1 (configmaps, secrets: *) were used.
    expect(unusedRules).toEqual([]);
    const wildcard = await findings('type=PartlyUsedWildcard,subject.name=alice');
    expect(wildcard).toHaveLength(1);
    expect(wildcard[0]).toMatchObject({
      bindingRef: { name: 'alice-work' },
      ruleIndex: 1,
      usedVerbs: ['update'],
      suggestedFix: { replacementRule: { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['update'] } },
    });
    const robotRules = await findings('type=UnusedRule,subject.kind=ServiceAccount,bindingRef.namespace=team');
    expect(robotRules.length).toBeGreaterThan(0);
    expect(robotRules.every((f) => f.bindingRef.name === 'robot-edit' && f.subject.name === 'robot' && f.suggestedFix.description.includes('Remove rule'))).toBe(true);
  });

  it('finds sensitive permissions held and not used', async () => {
    const [alice] = await findings('type=UnusedSensitivePermission,subject.name=alice');
    expect(alice).toMatchObject({ ruleIndex: 1, unusedPermissions: [expect.stringMatching(/^secrets \(get, list, watch, create, update, patch, delete/)] });
    const robot = await findings('type=UnusedSensitivePermission,subject.name=robot');
    expect(robot.flatMap((f) => f.unusedPermissions)).toEqual(expect.arrayContaining([expect.stringMatching(/^secrets/), 'impersonate serviceaccounts']));
  });

  it('finds bindings whose ServiceAccount does not exist', async () => {
    const missing = await findings('type=MissingServiceAccount');
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatchObject({ bindingRef: { kind: 'RoleBinding', namespace: 'team', name: 'orphan' }, subject: { kind: 'ServiceAccount', name: 'gone', namespace: 'team' } });
    expect(missing[0].suggestedFix.command).toBe('kubectl delete rolebinding -n team orphan');
    const bad = await server.anonymous.get(`${ACCESS}/accessfindings?fieldSelector=message=x`, { as: REVIEWER });
    expect(bad.status).toBe(400);
  });

  it('takes the window from the field selector since, as a suggestion takes spec.since; refuses one beyond the retention with 400', async () => {
    const byDefault = await findings('type=UnusedBinding');
    expect(byDefault.every((f) => f.since === '720h' && f.incomplete === false)).toBe(true);
    // In the last 24h alice used only alice-work: her deployments binding is idle in any window.
    const day = await findings('type=UnusedBinding,since=24h');
    expect(day.map((f) => f.bindingRef.name).sort()).toEqual(['alice-deployments', 'idle', 'orphan']);
    expect(day.every((f) => f.since === '24h' && Math.abs(Date.parse(f.windowStart) - (clock.now() - DAY)) < 60_000)).toBe(true);
    const refused = async (selector: string, message: RegExp) => {
      const res = await server.anonymous.get(`${ACCESS}/accessfindings?fieldSelector=${encodeURIComponent(selector)}`, { as: REVIEWER });
      expect({ selector, status: res.status, body: res.body }).toMatchObject({ selector, status: 400, body: { kind: 'Status', reason: 'BadRequest', message: expect.stringMatching(message) } });
    };
    await refused('since=2200h', /since: window 2200h reaches beyond the usage retention of 2160h/);
    await refused('since=soon', /since=soon/);
    await refused('since=0s', /must be positive/);
    await refused('since!=24h', /selected with since=DURATION/);
  });

  it('says when a window starts before usage was recorded: findings, the list warning and suggestions are incomplete', async () => {
    // The server began recording when it started, 31 days ago; 2000h reaches further back (the bindings are younger: no UnusedBinding).
    const res = await server.anonymous.get(`${ACCESS}/accessfindings?fieldSelector=${encodeURIComponent('subject.name=alice,since=2000h')}`, { as: REVIEWER });
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeGreaterThan(0);
    for (const f of res.body.items) expect(f).toMatchObject({ since: '2000h', incomplete: true, evaluationError: expect.stringMatching(/^usage is recorded since .*, after the window's start .*: earlier use is not known$/) });
    expect(String(res.headers.warning)).toMatch(/^299 - "the findings may be incomplete: usage is recorded since/);
    const missing = await findings('type=MissingServiceAccount,since=2000h');
    expect(missing[0].incomplete).toBeUndefined();
    const ask = (since: string) =>
      server.admin.post(`${ACCESS}/accesssuggestions`, { apiVersion: 'access.platform.io/v1', kind: 'AccessSuggestion', spec: { subject: { kind: 'User', name: 'alice' }, since } });
    expect((await ask('2000h')).body.status).toMatchObject({ incomplete: true, evaluationError: expect.stringContaining('earlier use is not known') });
    expect((await ask('720h')).body.status).toMatchObject({ incomplete: false });
    const out = await plugin(server.kubeconfigPath, ['findings', 'alice', '--since=2000h']);
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/^warning: the findings may be incomplete: usage is recorded since/);
    const day = await plugin(server.kubeconfigPath, ['findings', '--since=24h', '--type=UnusedBinding', '-o', 'json']);
    expect(day).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(day.stdout).items.map((f: any) => f.since)).toEqual(['24h', '24h', '24h']);
    expect((await plugin(server.kubeconfigPath, ['findings', '--since=2200h'])).stderr).toMatch(/^error: .*retention/);
  });

  it('kubectl access findings lists them with their fixes, by namespace, type and subject', async () => {
    const out = await plugin(server.kubeconfigPath, ['findings', '-n', 'team', '--type=UnusedBinding']);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    const lines = out.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TYPE\s+BINDING\s+SUBJECT\s+FINDING\s+FIX$/);
    expect(lines.slice(1).some((l) => /^UnusedBinding\s+RoleBinding team\/idle\s+User ghost\s+.*kubectl delete rolebinding -n team idle$/.test(l))).toBe(true);
    const forAlice = await plugin(server.kubeconfigPath, ['findings', 'alice', '-o', 'json']);
    expect(new Set(JSON.parse(forAlice.stdout).items.map((f: any) => f.subject.name))).toEqual(new Set(['alice']));
    expect((await plugin(server.kubeconfigPath, ['findings', '-n', 'nowhere'])).stderr).toBe('No findings in namespace nowhere.\n');
  });

  it('kubectl access suggest prints manifests to apply, with the diff as comments; refuses a window beyond the retention', async () => {
    const out = await plugin(server.kubeconfigPath, ['suggest', 'alice', '--since=720h']);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toMatch(/^# Generated from 2 recorded requests and access reviews since /);
    expect(out.stdout).toContain('# Replaces: RoleBinding team/alice-work, RoleBinding team/alice-deployments');
    expect(out.stdout).toContain('RoleBinding team/alice-deployments ClusterRole deployment-reader rule 0');
    const docs = parseAllDocuments(out.stdout).map((d) => d.toJS()).filter(Boolean);
    expect(docs.map((d) => d.kind)).toEqual(['Role', 'RoleBinding']);
    expect(docs[0]).toMatchObject({ metadata: { name: 'suggested.user.alice', namespace: 'team' } });
    expect(docs[0].rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['update'] },
    ]);
    expect(docs[1]).toMatchObject({ roleRef: { kind: 'Role', name: 'suggested.user.alice' }, subjects: [{ kind: 'User', name: 'alice' }] });
    const beyond = await plugin(server.kubeconfigPath, ['suggest', 'alice', '--since=2200h']);
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toMatch(/^error: .*retention/);
  });

  it('kubectl access denied lists what was refused, with the closest rule and what it lacks', async () => {
    const out = await plugin(server.kubeconfigPath, ['denied', 'alice']);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    const lines = out.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^VERB\s+RESOURCE\s+NAMESPACE\s+COUNT\s+LAST\s+CLOSEST RULE \(WHAT IT LACKS\)$/);
    expect(lines[1]).toMatch(/^list\s+configmaps\s+other\s+1\s+\d+s\s+RoleBinding team\/alice-work ClusterRole team-worker rule 1: RoleBinding "alice-work" grants only in namespace "team", not in namespace "other"$/);
    expect((await plugin(server.kubeconfigPath, ['denied', 'nobody'])).stderr).toBe('Nothing was refused nobody.\n');
  });

  it('generates a role from what the service account used; applied instead of its binding, it allows every recorded request and nothing else', async () => {
    const res = await server.anonymous.post(
      `${ACCESS}/accesssuggestions`,
      { apiVersion: 'access.platform.io/v1', kind: 'AccessSuggestion', spec: { subject: { kind: 'ServiceAccount', namespace: 'team', name: 'robot' }, since: '720h' } },
      { as: REVIEWER },
    );
    expect(res.status).toBe(201);
    const status = res.body.status;
    expect(status.replaces).toEqual([{ kind: 'RoleBinding', namespace: 'team', name: 'robot-edit' }]);
    expect(status.coveredUses).toBe(robotUsed.length);
    expect(status.roles).toHaveLength(1);
    expect(status.roles[0]).toMatchObject({ kind: 'Role', metadata: { name: 'suggested.serviceaccount.team.robot', namespace: 'team' } });
    // Verbs and resources grouped as a person writes them.
    expect(status.roles[0].rules).toEqual(
      expect.arrayContaining([
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
        { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['patch', 'update'] },
      ]),
    );
    expect(status.removedRules.length).toBeGreaterThan(0);

    expect((await server.admin.delete(`${RBAC}/namespaces/team/rolebindings/robot-edit`)).status).toBe(200);
    for (const object of [...status.roles, ...status.bindings]) {
      const plural = object.kind === 'Role' ? 'roles' : 'rolebindings';
      expect((await server.admin.post(`${RBAC}/namespaces/team/${plural}`, object)).status).toBe(201);
    }
    await eventually(async () => {
      for (const attrs of robotUsed) expect({ attrs, allowed: await allowed(ROBOT, attrs) }).toEqual({ attrs, allowed: true });
    });
    for (const attrs of robotNotUsed) expect({ attrs, allowed: await allowed(ROBOT, attrs) }).toEqual({ attrs, allowed: false });
  });

  it('credits a grant through a Group binding to its binding and rule, and to the member in its suggestion', async () => {
    const created = async (path: string, body: object) => expect((await server.admin.post(path, body)).status).toBe(201);
    await created(`${RBAC}/clusterroles`, { metadata: { name: 'config-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] });
    await created(`${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'devs-config' }, roleRef: roleRef('ClusterRole', 'config-reader'), subjects: [{ kind: 'Group', apiGroup: RBAC_GROUP, name: 'devs' }] });
    const asMember = (userName: string, verb: string) =>
      server.admin.post(`${AUTHZ}/subjectaccessreviews`, {
        apiVersion: 'authorization.platform.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: userName, groups: ['devs'], resourceAttributes: { namespace: 'team', verb, resource: 'configmaps' } },
      });
    await eventually(async () => expect((await asMember('carol', 'get')).body.status.allowed).toBe(true));
    expect((await asMember('dave', 'list')).body.status.allowed).toBe(true);
    await eventually(async () => {
      const [usage] = await listAs(server, `${ACCESS}/ruleusages?fieldSelector=bindingRef.name=devs-config`);
      expect(usage).toMatchObject({ roleRef: { name: 'config-reader' }, ruleIndex: 0, uses: 2 });
      expect(usage.attributes).toEqual([
        expect.objectContaining({ verb: 'get', resource: 'configmaps', namespace: 'team', user: 'carol', count: 1 }),
        expect.objectContaining({ verb: 'list', resource: 'configmaps', namespace: 'team', user: 'dave', count: 1 }),
      ]);
    });
    const suggested = await server.anonymous.post(
      `${ACCESS}/accesssuggestions`,
      { apiVersion: 'access.platform.io/v1', kind: 'AccessSuggestion', spec: { subject: { kind: 'User', name: 'carol' } } },
      { as: REVIEWER },
    );
    expect(suggested.body.status).toMatchObject({
      replaces: [],
      throughGroups: [{ kind: 'RoleBinding', namespace: 'team', name: 'devs-config' }],
      removedRules: [],
      coveredUses: 1,
      roles: [{ kind: 'Role', metadata: { name: 'suggested.user.carol', namespace: 'team' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }],
    });
    const forGroup = await server.admin.post(`${ACCESS}/accesssuggestions`, { apiVersion: 'access.platform.io/v1', kind: 'AccessSuggestion', spec: { subject: { kind: 'Group', name: 'devs' } } });
    expect(forGroup.body.status).toMatchObject({ replaces: [{ name: 'devs-config' }], coveredUses: 2, roles: [{ rules: [{ resources: ['configmaps'], verbs: ['get', 'list'] }] }] });
  });

  it('refuses a window beyond the retention with 400, and a malformed one with 422', async () => {
    const ask = (spec: object) => server.admin.post(`${ACCESS}/accesssuggestions`, { apiVersion: 'access.platform.io/v1', kind: 'AccessSuggestion', spec });
    const beyond = await ask({ subject: { kind: 'User', name: 'alice' }, since: '2200h' });
    expect(beyond.status).toBe(400);
    expect(beyond.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: expect.stringContaining('retention') });
    const malformed = await ask({ subject: { kind: 'Robot', name: 'alice' }, since: 'soon' });
    expect(malformed.status).toBe(422);
    expect(malformed.body.details.causes.map((c: any) => c.field).sort()).toEqual(['spec.since', 'spec.subject.kind']);
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

const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

/** A server process on the database (npm run build first), for a replica the test can kill; its admin client. */
async function startReplicaProcess(databaseUrl: string, dataDir: string, args: string[]): Promise<{ child: ChildProcess; admin: HttpsClient }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [MAIN, '--data-dir', dataDir, '--secure-port', '0', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
  });
  const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
  const cert = issueClientCertificate(ca, readFileSync(join(dataDir, 'pki', 'ca.key'), 'utf8'), 'replica-admin', ['system:masters']);
  return { child, admin: new HttpsClient(url, ca, { cert: cert.certPem, key: cert.keyPem }) };
}

describeWithPostgres('usage recorded while a replica was down', (pgUrl) => {
  it('answers incomplete, naming the replica killed before it flushed and since when its records are missing', async () => {
    const db = await createScratchDatabase(pgUrl);
    const dataDir = mkdtempSync(join(tmpdir(), 'least-privilege-killed-'));
    const local = await startTestServer({ databaseUrl: db.url, options: { bindingUsage: { recording: true, flushIntervalMs: 200 } } });
    let replica: { child: ChildProcess; admin: HttpsClient } | undefined;
    try {
      replica = await startReplicaProcess(db.url, dataDir, ['--binding-usage-flush-interval=200ms']);
      const ask = async (since: string) => {
        const res = await local.admin.post(`${ACCESS}/accesssuggestions`, { apiVersion: 'access.platform.io/v1', kind: 'AccessSuggestion', spec: { subject: { kind: 'User', name: 'alice' }, since } });
        expect(res.status).toBe(201);
        return res.body.status;
      };
      // Both replicas record and flush: a window after both started is complete.
      expect((await replica.admin.post(`${AUTHZ}/subjectaccessreviews`, sar('alice', { namespace: 'team', verb: 'get', resource: 'pods' }))).status).toBe(201);
      await eventually(async () => expect(await ask('1s')).toMatchObject({ incomplete: false }));

      replica.child.kill('SIGKILL');
      await new Promise((resolve) => replica!.child.once('exit', resolve));
      const killed = new RegExp(`replica \\S+-${replica.child.pid}-[0-9a-f]{6} has not flushed its usage since \\S+Z and did not shut down cleanly: what it recorded after that is missing`);
      // A window that holds the time it was killed (records before, its start, are not missing).
      await eventually(async () => expect(await ask('10m')).toMatchObject({ incomplete: true, evaluationError: expect.stringMatching(killed) }), 20_000, 500);
      expect(await ask('1s')).toMatchObject({ incomplete: false });
      const findings = await local.admin.get(`${ACCESS}/accessfindings?fieldSelector=since=10m`);
      expect(findings.status).toBe(200);
      expect(String(findings.headers.warning)).toMatch(killed);
    } finally {
      if (replica && replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill('SIGKILL');
      await local.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
