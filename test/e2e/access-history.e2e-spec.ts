import { execFile, spawn } from 'node:child_process';
import { delimiter, dirname, resolve } from 'node:path';
import { eventually } from '../support/eventually';
import { kubectlFor } from '../support/kubectl';
import { ClientIdentity } from '../support/https-client';
import { TestClock } from '../support/test-clock';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * Access history through the real server: an AccessChange for each kind of cause (RBAC
 * creates, updates and deletes by a user, ClusterRole aggregation, a time window opening and
 * closing on the injected clock, namespace deletion, an access request granted), who made
 * the change, field selectors on subject and namespace, the kind read-only for clients, and
 * a watch resumed from a resourceVersion after a disconnect.
 */
const RBAC_GROUP = 'rbac.authorization.platform.io';
const RBAC = `/apis/${RBAC_GROUP}/v1`;
const ACCESS = '/apis/access.platform.io/v1';
const CHANGES = `${ACCESS}/accesschanges`;
const MERGE = 'application/merge-patch+json';

const user = (name: string) => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const roleRef = (kind: 'Role' | 'ClusterRole', name: string) => ({ apiGroup: RBAC_GROUP, kind, name });
const PLUGIN = resolve(__dirname, '..', '..', 'bin', 'kubectl-access');

function plugin(kubeconfig: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(PLUGIN, [...args, '--kubeconfig', kubeconfig], { timeout: 30000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

const RETENTION_MS = 7 * 24 * 3600_000;
const readSecrets = [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }];

describe('access history', () => {
  let server: TestServer;
  const clock = new TestClock();
  let alice: ClientIdentity;

  beforeAll(async () => {
    server = await startTestServer({ clock, options: { accessHistoryRetentionMs: RETENTION_MS } });
    alice = server.certFor('alice', ['system:masters']);
    for (const ns of ['team-a', 'team-b']) expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  });

  afterAll(async () => {
    await server?.close();
  });

  const post = (path: string, body: unknown) => server.anonymous.post(path, body, { as: alice });
  /** The entries about one subject, oldest first. */
  async function changesOf(subject: string, extra = ''): Promise<any[]> {
    const res = await server.admin.get(`${CHANGES}?fieldSelector=${encodeURIComponent(`subject=${subject}${extra}`)}`);
    expect(res.status).toBe(200);
    return (res.body.items as any[]).sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
  }
  async function eventuallyChanges(subject: string, count: number, extra = ''): Promise<any[]> {
    let items: any[] = [];
    await eventually(async () => {
      items = await changesOf(subject, extra);
      expect(items.length).toBeGreaterThanOrEqual(count);
    });
    return items;
  }

  it('records a RoleBinding created, its Role changed, and the binding deleted, with who did it', async () => {
    expect((await post(`${RBAC}/namespaces/team-a/roles`, { metadata: { name: 'secret-reader' }, rules: readSecrets })).status).toBe(201);
    const created = await post(`${RBAC}/namespaces/team-a/rolebindings`, { metadata: { name: 'bob-reads' }, roleRef: roleRef('Role', 'secret-reader'), subjects: [user('bob')] });
    expect(created.status).toBe(201);
    const [listed] = await eventuallyChanges('User:bob', 1);
    const gain = (await server.admin.get(`${CHANGES}/${listed.metadata.name}`)).body;
    expect(gain).toMatchObject({
      apiVersion: 'access.platform.io/v1',
      kind: 'AccessChange',
      metadata: { name: `r${created.body.metadata.resourceVersion}-0` },
      subject: { kind: 'User', name: 'bob' },
      namespace: 'team-a',
      gained: [{ verbs: ['get'], apiGroup: '', resource: 'secrets', via: [{ binding: { kind: 'RoleBinding', namespace: 'team-a', name: 'bob-reads' }, role: { kind: 'Role', name: 'secret-reader' } }] }],
      cause: { kind: 'RoleBinding', namespace: 'team-a', name: 'bob-reads', resourceVersion: created.body.metadata.resourceVersion, operation: 'Create', user: { username: 'alice' } },
    });
    expect(gain.lost).toBeUndefined();
    expect(gain.cause.user.groups).toContain('system:masters');

    const updated = await server.anonymous.patch(`${RBAC}/namespaces/team-a/roles/secret-reader`, { rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }] }, MERGE, { as: alice });
    expect(updated.status).toBe(200);
    const [, more] = await eventuallyChanges('User:bob', 2);
    expect(more).toMatchObject({ gained: [{ verbs: ['list'], resource: 'secrets' }], cause: { kind: 'Role', name: 'secret-reader', operation: 'Update', resourceVersion: updated.body.metadata.resourceVersion } });

    const deleted = await server.anonymous.delete(`${RBAC}/namespaces/team-a/rolebindings/bob-reads`, { as: alice });
    expect(deleted.status).toBe(200);
    const [, , loss] = await eventuallyChanges('User:bob', 3);
    expect(loss.gained).toBeUndefined();
    expect(loss.lost).toMatchObject([{ verbs: ['get', 'list'], resource: 'secrets' }]);
    expect(loss.cause).toMatchObject({ kind: 'RoleBinding', name: 'bob-reads', operation: 'Delete', user: { username: 'alice' } });
  });

  it('records a change that alters nothing as nothing', async () => {
    const before = (await server.admin.get(CHANGES)).body.items.length;
    // A label on a role changes no grant.
    expect((await server.admin.patch(`${RBAC}/namespaces/team-a/roles/secret-reader`, { metadata: { labels: { x: 'y' } } }, MERGE)).status).toBe(200);
    // A marker write after it: once its entry is there, the label's would be too.
    expect((await server.admin.post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'marker' }, roleRef: roleRef('ClusterRole', 'view'), subjects: [user('marker')] })).status).toBe(201);
    await eventuallyChanges('User:marker', 1);
    expect((await server.admin.get(CHANGES)).body.items.length).toBe(before + 1);
  });

  it('records ClusterRole aggregation as the aggregation controller\'s change of the aggregating role', async () => {
    expect((await server.admin.post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'carol-views' }, roleRef: roleRef('ClusterRole', 'view'), subjects: [user('carol')] })).status).toBe(201);
    await eventuallyChanges('User:carol', 1);
    expect(
      (
        await post(`${RBAC}/clusterroles`, {
          metadata: { name: 'widgets-view', labels: { [`${RBAC_GROUP}/aggregate-to-view`]: 'true' } },
          rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] }],
        })
      ).status,
    ).toBe(201);
    const items = await eventuallyChanges('User:carol', 2);
    expect(items[1]).toMatchObject({
      gained: [{ verbs: ['get'], apiGroup: 'example.com', resource: 'widgets', via: [{ binding: { kind: 'ClusterRoleBinding', name: 'carol-views' }, role: { kind: 'ClusterRole', name: 'view' } }] }],
      cause: { kind: 'ClusterRole', name: 'view', operation: 'Update', user: { username: 'system:controller:clusterrole-aggregation-controller' } },
    });
    expect(items[1].namespace).toBeUndefined();
  });

  it('records a time window opening and closing when it happens, not when the binding was written', async () => {
    const from = new Date(clock.now() + 3600_000);
    const until = new Date(clock.now() + 7200_000);
    const created = await post(`${RBAC}/namespaces/team-b/rolebindings`, {
      metadata: { name: 'dave-later', annotations: { [`${RBAC_GROUP}/valid-from`]: from.toISOString(), [`${RBAC_GROUP}/valid-until`]: until.toISOString() } },
      roleRef: roleRef('ClusterRole', 'view'),
      subjects: [user('dave')],
    });
    expect(created.status).toBe(201);
    // A marker after it: the binding's own create recorded nothing (its window is not open).
    expect((await server.admin.post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'marker-2' }, roleRef: roleRef('ClusterRole', 'view'), subjects: [user('marker2')] })).status).toBe(201);
    await eventuallyChanges('User:marker2', 1);
    expect(await changesOf('User:dave')).toEqual([]);

    clock.advance(3600_000);
    const [opened] = await eventuallyChanges('User:dave', 1);
    expect(opened).toMatchObject({
      namespace: 'team-b',
      time: from.toISOString(),
      cause: { kind: 'RoleBinding', namespace: 'team-b', name: 'dave-later', operation: 'WindowOpened', resourceVersion: created.body.metadata.resourceVersion, user: { username: 'system:controller:binding-expiry' } },
    });
    expect(opened.gained.length).toBeGreaterThan(0);
    expect(opened.lost).toBeUndefined();

    clock.advance(3600_000);
    const [, closed] = await eventuallyChanges('User:dave', 2);
    expect(closed).toMatchObject({ time: until.toISOString(), cause: { operation: 'WindowClosed' } });
    expect(closed.lost).toEqual(opened.gained);
  });

  it('records namespace deletion as the namespace controller\'s deletes of its RoleBindings', async () => {
    expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: 'doomed' } })).status).toBe(201);
    expect((await post(`${RBAC}/namespaces/doomed/rolebindings`, { metadata: { name: 'erin-edits' }, roleRef: roleRef('ClusterRole', 'edit'), subjects: [user('erin')] })).status).toBe(201);
    await eventuallyChanges('User:erin', 1);
    expect((await server.admin.delete('/api/v1/namespaces/doomed')).status).toBe(200);
    const [gain, loss] = await eventuallyChanges('User:erin', 2);
    expect(loss).toMatchObject({ namespace: 'doomed', cause: { kind: 'RoleBinding', name: 'erin-edits', operation: 'Delete', user: { username: 'system:controller:namespace-controller' } } });
    expect(loss.lost).toEqual(gain.gained);
  });

  it('records an access request granted as the access-request controller\'s binding, and its end when the window closes', async () => {
    const ivy = server.certFor('ivy', []);
    expect((await server.admin.post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'ivy-requests' }, roleRef: roleRef('ClusterRole', 'access-requester'), subjects: [user('ivy')] })).status).toBe(201);
    expect(
      (
        await server.admin.post(`${ACCESS}/accessrequestpolicies`, {
          metadata: { name: 'view-in-team-b' },
          spec: { roles: [{ kind: 'ClusterRole', names: ['view'] }], namespaces: ['team-b'], requesters: [user('ivy')], approvers: [user('alice')] },
        })
      ).status,
    ).toBe(201);
    const requests = `${ACCESS}/namespaces/team-b/accessrequests`;
    await eventually(async () =>
      expect((await server.anonymous.post(requests, { metadata: { name: 'ivy-view' }, spec: { roleRef: roleRef('ClusterRole', 'view'), duration: '1h' } }, { as: ivy })).status).toBe(201),
    );
    const made = (await server.admin.get(`${requests}/ivy-view`)).body;
    expect((await server.anonymous.put(`${requests}/ivy-view/approval`, { ...made, status: { ...made.status, approvals: [{}] } }, { as: alice })).status).toBe(200);
    const granted = (await eventuallyChanges('User:ivy', 1, ',namespace=team-b'))[0];
    expect(granted).toMatchObject({ namespace: 'team-b', cause: { kind: 'RoleBinding', namespace: 'team-b', operation: 'Create', user: { username: 'system:controller:access-request-controller' } } });
    expect(granted.gained.length).toBeGreaterThan(0);
    clock.advance(3600_000);
    const [, ended] = await eventuallyChanges('User:ivy', 2, ',namespace=team-b');
    expect(ended).toMatchObject({ cause: { kind: 'RoleBinding', name: granted.cause.name, operation: 'WindowClosed' } });
    expect(ended.lost).toEqual(granted.gained);
  });

  it('selects by subject fields and namespace, and is read-only for clients', async () => {
    const inTeamA = await server.admin.get(`${CHANGES}?fieldSelector=${encodeURIComponent('namespace=team-a,subject.name=bob')}`);
    expect(inTeamA.status).toBe(200);
    expect(inTeamA.body.items.length).toBe(3);
    const clusterWide = await server.admin.get(`${CHANGES}?fieldSelector=${encodeURIComponent('namespace=,subject.kind=User,subject.name=carol')}`);
    expect(clusterWide.body.items.length).toBe(2);
    const bad = await server.admin.get(`${CHANGES}?fieldSelector=spec.nothing%3Dx`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });

    const name = inTeamA.body.items[0].metadata.name;
    for (const res of [
      await server.admin.post(CHANGES, { metadata: { name: 'forged' }, subject: user('x'), cause: {}, time: new Date().toISOString() }),
      await server.admin.delete(`${CHANGES}/${name}`),
      await server.admin.patch(`${CHANGES}/${name}`, { metadata: { labels: { a: 'b' } } }, MERGE),
    ]) {
      expect(res.status).toBe(405);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
    }
    const table = await server.admin.get(`${CHANGES}/${name}`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.status).toBe(200);
    expect(table.body.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Time', 'Subject', 'Namespace', 'Gained', 'Lost', 'Cause', 'By', 'Resource Version']);
    expect(table.body.rows[0].cells.slice(2, 8)).toEqual(['User:bob', 'team-a', 1, 0, 'Create RoleBinding/team-a/bob-reads', 'alice']);
  });

  it('streams every change from a resourceVersion, and a watch resumed after a disconnect misses nothing', async () => {
    const list = await server.admin.get(CHANGES);
    const from = list.body.metadata.resourceVersion;
    const first = await server.admin.stream(`${CHANGES}?watch=1&resourceVersion=${from}&fieldSelector=${encodeURIComponent('subject=User:frank')}`);
    expect(first.status).toBe(200);
    expect((await post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'frank-1' }, roleRef: roleRef('ClusterRole', 'view'), subjects: [user('frank')] })).status).toBe(201);
    const [added] = await first.waitFor(1);
    first.close();
    expect(added).toMatchObject({ type: 'ADDED', object: { kind: 'AccessChange', subject: { name: 'frank' }, cause: { name: 'frank-1' } } });
    // While no one watches: a loss and a gain.
    expect((await post(`${RBAC}/namespaces/team-a/rolebindings`, { metadata: { name: 'frank-2' }, roleRef: roleRef('ClusterRole', 'edit'), subjects: [user('frank')] })).status).toBe(201);
    expect((await server.anonymous.delete(`${RBAC}/clusterrolebindings/frank-1`, { as: alice })).status).toBe(200);
    const resumed = await server.admin.stream(`${CHANGES}?watch=1&resourceVersion=${added.object.metadata.resourceVersion}&fieldSelector=${encodeURIComponent('subject=User:frank')}`);
    const events = await resumed.waitFor(2);
    resumed.close();
    expect(events.map((e: any) => [e.type, e.object.cause.name, e.object.cause.operation])).toEqual([
      ['ADDED', 'frank-2', 'Create'],
      ['ADDED', 'frank-1', 'Delete'],
    ]);
  });

  describe('kubectl access history', () => {
    const history = (...args: string[]) => plugin(server.kubeconfigPath, 'history', ...args);

    it('prints a subject\'s gains and losses oldest first, with the change and who made it', async () => {
      const out = await history('bob', '-n', 'team-a');
      expect(out).toMatchObject({ code: 0, stderr: '' });
      const lines = out.stdout.trim().split('\n');
      expect(lines[0].split(/\s{2,}/)).toEqual(['TIME', 'SUBJECT', 'NAMESPACE', 'VERB', 'RESOURCE', 'EXCEPT', 'VIA', 'CAUSE', 'BY']);
      const rows = lines.slice(1).map((l) => l.replace(/^\S+\s+/, ''));
      expect(rows).toHaveLength(3);
      expect(rows[0]).toMatch(/^\+\s+User:bob\s+team-a\s+get\s+secrets\s+-\s+RoleBinding team-a\/bob-reads → Role secret-reader\s+Create RoleBinding\/team-a\/bob-reads@\d+\s+alice$/);
      expect(rows[1]).toMatch(/^\+\s+User:bob\s+team-a\s+list\s+secrets\s+.*Update Role\/team-a\/secret-reader@\d+\s+alice$/);
      expect(rows[2]).toMatch(/^-\s+User:bob\s+team-a\s+get,list\s+secrets\s+.*Delete RoleBinding\/team-a\/bob-reads@\d+\s+alice$/);
    });

    it('answers -o json with the list, --since with the recent ones only, and refuses bad usage', async () => {
      const json = await history('system:serviceaccount:none:nobody', '-o', 'json');
      expect(JSON.parse(json.stdout)).toMatchObject({ apiVersion: 'access.platform.io/v1', kind: 'AccessChangeList', items: [] });
      const all = JSON.parse((await history('bob', '-o', 'json')).stdout);
      expect(all.items).toHaveLength(3);
      expect(await history('bob', '--since=1ms')).toEqual({ code: 0, stdout: 'No access changes recorded.\n', stderr: '' });
      expect(await history('bob', '--since=soon')).toEqual({ code: 1, stdout: '', stderr: 'error: --since must be a duration such as 24h or 90m, not "soon"\n' });
      expect(await history('bob', '--group', 'devs')).toEqual({ code: 1, stdout: '', stderr: 'error: give either a SUBJECT or --group, not both\n' });
    });

    it('serves kubectl: get with field selectors as a table, explain, and the plugin through kubectl', async () => {
      const kubectl = kubectlFor(server);
      const { stdout } = await kubectl('get', 'accesschanges', '--field-selector', 'subject=User:bob,namespace=team-a');
      const lines = stdout.trim().split('\n');
      expect(lines[0].split(/\s{2,}/)).toEqual(['NAME', 'TIME', 'SUBJECT', 'NAMESPACE', 'GAINED', 'LOST', 'CAUSE', 'BY']);
      expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(2))).toEqual([
        ['User:bob', 'team-a', '1', '0', 'Create RoleBinding/team-a/bob-reads', 'alice'],
        ['User:bob', 'team-a', '1', '0', 'Update Role/team-a/secret-reader', 'alice'],
        ['User:bob', 'team-a', '0', '2', 'Delete RoleBinding/team-a/bob-reads', 'alice'],
      ]);
      const explained = await kubectl('explain', 'accesschanges.cause.user');
      expect(explained.stdout).toContain('Who made the change');
      // kubectl finds the plugin on PATH, as a user installs it.
      const viaKubectl = await new Promise<string>((done, fail) =>
        execFile('kubectl', ['access', 'history', 'bob', '-n', 'team-a', '--kubeconfig', server.kubeconfigPath], { env: { ...process.env, PATH: `${dirname(PLUGIN)}${delimiter}${process.env.PATH}`, HOME: server.dataDir }, timeout: 30000 }, (err, out) =>
          err ? fail(err) : done(out),
        ),
      );
      expect(viaKubectl.trim().split('\n')).toHaveLength(4);
    });

    it('follows new changes with --watch', async () => {
      const child = spawn(PLUGIN, ['history', 'gina', '--watch', '--kubeconfig', server.kubeconfigPath]);
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      try {
        expect((await post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'gina-views' }, roleRef: roleRef('ClusterRole', 'view'), subjects: [user('gina')] })).status).toBe(201);
        await eventually(() => expect(stdout).toMatch(/User:gina\s+\*\s+.*Create ClusterRoleBinding\/gina-views@\d+\s+alice\n/));
        expect(stdout.split('\n')[0]).toMatch(/^TIME\s+SUBJECT/);
      } finally {
        child.kill();
      }
    });
  });

  it('prunes entries older than --access-history-retention', async () => {
    const before = (await server.admin.get(CHANGES)).body.items.length;
    expect(before).toBeGreaterThan(10);
    clock.advance(RETENTION_MS + 3600_000);
    // Pruned within a tick of the leader's loop; a change made now is kept.
    expect((await post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'kept' }, roleRef: roleRef('ClusterRole', 'view'), subjects: [user('kept')] })).status).toBe(201);
    await eventually(async () => expect((await server.admin.get(CHANGES)).body.items.map((c: any) => c.subject.name)).toEqual(['kept']));
  });
});
