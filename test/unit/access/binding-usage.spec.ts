import { DataSource } from 'typeorm';
import { bindingUsageName } from '../../../src/access/binding-usage-names';
import { BindingUsageService } from '../../../src/access/binding-usage.service';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { BindingUsageRecorder } from '../../../src/authorization/binding-usage-recorder';
import { CLUSTER_ROLE_BINDINGS_RESOURCE, ROLE_BINDINGS_RESOURCE } from '../../../src/authorization/rbac/policy-index';
import { RbacIndex } from '../../../src/authorization/rbac/rbac-index.service';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import { FlagError, parseServerFlags } from '../../../src/config/flags';
import { ServerOptions } from '../../../src/config/options';
import { metricsRegistry } from '../../../src/metrics/registry';
import { clusterRole, clusterRoleBinding, indexOf, req, roleBinding, U, user } from '../authorization/rbac-fixtures';

/** Binding usage: what the chain counts, how a flush writes it, and the names of the usages. */

const withUid = <T extends { metadata: { name: string } }>(object: T, uid: string): T => ({ ...object, metadata: { ...object.metadata, uid } });

function world() {
  const policy = indexOf({
    clusterRoles: [clusterRole('pod-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }])],
    clusterRoleBindings: [withUid(clusterRoleBinding('readers', 'pod-reader', [U('alice')]), 'uid-readers')],
    roleBindings: [withUid(roleBinding('ns1', 'local', 'ClusterRole', 'pod-reader', [U('bob')]), 'uid-local')],
  });
  let clock = 1_700_000_000_000;
  const tick = () => (clock += 1000);
  const recorder = new BindingUsageRecorder(true, () => clock);
  const chain = new AuthorizerChain(recorder);
  chain.replace([new RbacAuthorizer('rbac', policy)]);
  return { policy, recorder, chain, tick, now: () => clock };
}

const alicePods = req(user('alice'), 'list', '', 'pods', { ns: 'ns1' });
const bobPods = req(user('bob'), 'get', '', 'pods', { ns: 'ns1', name: 'p' });

describe('counting grants', () => {
  it('counts per binding the allows of untraced decisions, with the time of the last', async () => {
    const { recorder, chain, tick, now } = world();
    for (let i = 0; i < 3; i++) {
      tick();
      expect((await chain.authorize(alicePods)).decision).toBe('Allow');
    }
    const last = now();
    tick();
    await chain.authorize(bobPods);
    // A denied question, and an explanation (traced), grant nothing.
    await chain.authorize(req(user('alice'), 'delete', '', 'pods', { ns: 'ns1', name: 'p' }));
    await chain.authorize(alicePods, { trace: [] });
    expect(Object.fromEntries(recorder.take())).toEqual({
      'uid-readers': { grants: 3, lastGranted: last },
      'uid-local': { grants: 1, lastGranted: now() },
    });
    expect(recorder.take().size).toBe(0);
  });

  it('counts nothing when recording is off, or for allows that name no binding', async () => {
    const off = new BindingUsageRecorder(false);
    off.record({ decision: 'Allow', grantedBy: { kind: 'RoleBinding', namespace: 'a', name: 'b', uid: 'u' } });
    expect(off.take().size).toBe(0);
    const on = new BindingUsageRecorder();
    on.record({ decision: 'Allow', reason: 'system:masters' });
    expect(on.take().size).toBe(0);
  });

  it('reads the clock once a second once started, to the second', () => {
    jest.useFakeTimers({ now: 1_700_000_000_000 });
    try {
      const recorder = new BindingUsageRecorder();
      recorder.startClock();
      const grant = () => recorder.record({ decision: 'Allow', grantedBy: { kind: 'RoleBinding', namespace: 'a', name: 'b', uid: 'u' } });
      jest.setSystemTime(1_700_000_000_400);
      grant();
      expect(recorder.pendingFor('u')).toEqual({ grants: 1, lastGranted: 1_700_000_000_000 });
      jest.advanceTimersByTime(1000);
      grant();
      expect(recorder.pendingFor('u')).toEqual({ grants: 2, lastGranted: 1_700_000_001_400 });
      recorder.stopClock();
      grant();
      expect(recorder.pendingFor('u')?.lastGranted).toBe(Date.now());
    } finally {
      jest.useRealTimers();
    }
  });

  it('puts back what a failed flush took (sums, latest time) and forgets deleted bindings', () => {
    const recorder = new BindingUsageRecorder(true, () => 5);
    const grant = (uid: string) => recorder.record({ decision: 'Allow', grantedBy: { kind: 'ClusterRoleBinding', namespace: '', name: uid, uid } });
    grant('a');
    grant('b');
    const taken = recorder.take();
    grant('a');
    recorder.restore(new Map([...taken, ['a', { grants: 4, lastGranted: 9 }]]));
    recorder.forget('b');
    expect(recorder.pendingFor('a')).toEqual({ grants: 5, lastGranted: 9 });
    expect(recorder.pendingFor('b')).toBeUndefined();
  });
});

/** The flush counters, by name and result label. */
async function flushMetrics(): Promise<Record<string, number>> {
  const all = await metricsRegistry.getMetricsAsJSON();
  const out: Record<string, number> = {};
  for (const m of all.filter((m) => m.name.startsWith('access_binding_usage_'))) {
    for (const v of m.values) out[`${m.name}${v.labels.result ? `/${v.labels.result}` : ''}`] = v.value;
  }
  return out;
}

describe('flushing', () => {
  /** A started service whose start-up sweep is done (and its query forgotten). */
  async function service(query: jest.Mock) {
    const w = world();
    const options = { bindingUsage: { recording: true, flushIntervalMs: 3_600_000 } } as ServerOptions;
    const index = Object.assign(w.policy, { ready: () => Promise.resolve() }) as unknown as RbacIndex;
    const usage = new BindingUsageService(w.recorder, index, { query } as unknown as DataSource, options);
    usage.onApplicationBootstrap();
    await usage.flush();
    query.mockClear();
    return { ...w, usage };
  }

  it('writes everything counted since the last flush in one statement of arrays, and the rows of deleted bindings go', async () => {
    const query = jest.fn().mockResolvedValue([]);
    const { chain, usage, policy, now } = await service(query);
    for (let i = 0; i < 50; i++) await chain.authorize(alicePods);
    await chain.authorize(bobPods);
    await usage.flush();
    expect(query).toHaveBeenCalledTimes(1);
    const [sql, [uids, grants, times, deleted]] = query.mock.calls[0];
    expect(sql).toMatch(/^WITH gone AS \(DELETE FROM binding_usage .*\)\s+INSERT INTO binding_usage .*\s+ON CONFLICT \(uid\) DO UPDATE SET grants = u\.grants \+ EXCLUDED\.grants/s);
    expect(uids).toEqual(['uid-readers', 'uid-local']);
    expect(grants).toEqual(['50', '1']);
    expect(times).toEqual([new Date(now()).toISOString(), new Date(now()).toISOString()]);
    expect(deleted).toEqual([]);

    // Nothing counted: no statement at all.
    await usage.flush();
    expect(query).toHaveBeenCalledTimes(1);

    // Deleting a binding drops what it counted and removes its row at the next flush.
    await chain.authorize(bobPods);
    policy.remove(ROLE_BINDINGS_RESOURCE, 'ns1', 'local', withUid(roleBinding('ns1', 'local', 'ClusterRole', 'pod-reader', [U('bob')]), 'uid-local'));
    await usage.flush();
    expect(query.mock.calls[1][1]).toEqual([[], [], [], ['uid-local']]);
    await usage.onApplicationShutdown();
  });

  it('keeps what a failed write took for the next flush, and flushes at shutdown', async () => {
    const before = await flushMetrics();
    const query = jest.fn().mockResolvedValue([]);
    const { chain, usage, policy } = await service(query);
    query.mockRejectedValueOnce(new Error('connection refused'));
    await chain.authorize(alicePods);
    const gone = withUid(clusterRoleBinding('gone', 'pod-reader', []), 'uid-gone');
    policy.upsert(CLUSTER_ROLE_BINDINGS_RESOURCE, gone);
    policy.remove(CLUSTER_ROLE_BINDINGS_RESOURCE, '', 'gone', gone);
    await usage.flush();
    await chain.authorize(alicePods);
    await usage.onApplicationShutdown();
    expect(query).toHaveBeenCalledTimes(2);
    expect(query.mock.calls[1][1].slice(0, 2)).toEqual([['uid-readers'], ['2']]);
    expect(query.mock.calls[1][1][3]).toEqual(['uid-gone']);
    const after = await flushMetrics();
    const delta = (name: string) => (after[name] ?? 0) - (before[name] ?? 0);
    expect(delta('access_binding_usage_flushes_total/error')).toBe(1);
    expect(delta('access_binding_usage_flushes_total/success')).toBe(1);
    expect(delta('access_binding_usage_flushed_grants_total')).toBe(2);
  });

  it('sweeps at start the rows of bindings that no longer exist, once quiet for an hour', async () => {
    const query = jest.fn().mockResolvedValue([{ removed: 1 }]);
    const w = world();
    const index = Object.assign(w.policy, { ready: () => Promise.resolve() }) as unknown as RbacIndex;
    const usage = new BindingUsageService(w.recorder, index, { query } as unknown as DataSource, { bindingUsage: { recording: true, flushIntervalMs: 3_600_000 } } as ServerOptions);
    usage.onApplicationBootstrap();
    await usage.flush();
    expect(query).toHaveBeenCalledTimes(1);
    const [sql, [uids, quiet]] = query.mock.calls[0];
    expect(sql).toMatch(/^WITH gone AS \(DELETE FROM binding_usage WHERE NOT \(uid = ANY\(\$1::text\[\]\)\) AND last_granted < now\(\) - make_interval\(secs => \$2\)/);
    expect([...uids].sort()).toEqual(['uid-local', 'uid-readers']);
    expect(quiet).toBe(3600);
    await usage.onApplicationShutdown();
  });

  it('lists flushed counts plus what this replica counted since', async () => {
    const query = jest.fn().mockResolvedValue([{ uid: 'uid-readers', grants: '7', last_granted: new Date(1000) }]);
    const { chain, usage, now } = await service(query);
    await chain.authorize(alicePods);
    const found = await usage.usageOf(['uid-readers', 'uid-local']);
    expect(query.mock.calls[0][1]).toEqual([['uid-readers', 'uid-local']]);
    expect(Object.fromEntries(found)).toEqual({ 'uid-readers': { grants: 8, lastGranted: now() } });
    await usage.onApplicationShutdown();
  });

  /**
   * A table whose statements answer when the test lets them: a flush's counts land in its rows
   * when its statement completes, a read sees the rows as they are when its statement runs.
   */
  function slowTable() {
    const rows = new Map<string, number>();
    const held: Array<{ kind: 'flush' | 'read'; run: () => void }> = [];
    const query = jest.fn((sql: string, params: unknown[]) => {
      if (sql.startsWith('WITH gone AS (DELETE FROM binding_usage WHERE uid')) {
        const [uids, grants] = params as [string[], string[]];
        return new Promise((resolve) =>
          held.push({
            kind: 'flush',
            run: () => {
              uids.forEach((uid, i) => rows.set(uid, (rows.get(uid) ?? 0) + Number(grants[i])));
              resolve([]);
            },
          }),
        );
      }
      if (sql.startsWith('SELECT uid, grants')) {
        const answer = () => [...rows].filter(([uid]) => (params[0] as string[]).includes(uid)).map(([uid, grants]) => ({ uid, grants: String(grants), last_granted: new Date(1000) }));
        return new Promise((resolve) => held.push({ kind: 'read', run: () => resolve(answer()) }));
      }
      return Promise.resolve([{ removed: 0 }]);
    });
    /** Lets the oldest held statement (of that kind) run; resolves once what waited on it has gone on. */
    const release = async (kind?: 'flush' | 'read') => {
      await new Promise((resolve) => setImmediate(resolve));
      const i = held.findIndex((h) => !kind || h.kind === kind);
      if (i >= 0) held.splice(i, 1)[0].run();
      await new Promise((resolve) => setImmediate(resolve));
    };
    return { query, held, release };
  }

  it('a list while a flush is being written waits for it: counts on their way to the table are seen once', async () => {
    const table = slowTable();
    const { chain, usage } = await service(table.query);
    for (let i = 0; i < 3; i++) await chain.authorize(alicePods);
    const flushed = usage.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(table.held).toHaveLength(1);
    const listed = usage.usageOf(['uid-readers']);
    await chain.authorize(alicePods);
    // Were the read under way, the table would answer it before the flush lands: 3 in neither place.
    await table.release('read');
    await table.release('flush'); // the flush lands: 3 in the table, 1 pending
    await flushed;
    await table.release('read');
    expect((await listed).get('uid-readers')?.grants).toBe(4);
    const stopped = usage.onApplicationShutdown();
    await table.release(); // the last count, flushed at shutdown
    await stopped;
  });

  it('a flush while a list is reading waits for it, so the list sees the counts still pending', async () => {
    const table = slowTable();
    const { chain, usage } = await service(table.query);
    for (let i = 0; i < 2; i++) await chain.authorize(alicePods);
    const listed = usage.usageOf(['uid-readers']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(table.held).toHaveLength(1);
    const flushed = usage.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(table.held).toHaveLength(1); // the flush has not taken the counts yet
    await table.release(); // the read: nothing stored, 2 pending
    expect((await listed).get('uid-readers')?.grants).toBe(2);
    await table.release(); // now the flush writes them
    await flushed;
    const again = usage.usageOf(['uid-readers']);
    await table.release();
    expect((await again).get('uid-readers')?.grants).toBe(2);
    await usage.onApplicationShutdown();
  });
});

describe('BindingUsage names', () => {
  it.each([
    ['ClusterRoleBinding', '', 'cluster-admin', 'clusterrolebinding.cluster-admin'],
    ['RoleBinding', 'team-a', 'viewers', 'rolebinding.team-a.viewers'],
    ['ClusterRoleBinding', '', 'system:basic-user', /^clusterrolebinding\.system-basic-user\.h[0-9a-f]{10}$/],
    ['RoleBinding', 'ns', 'Dev.Team@Corp', /^rolebinding\.ns\.dev-team-corp\.h[0-9a-f]{10}$/],
    ['RoleBinding', 'ns', ':::', /^rolebinding\.ns\.x\.h[0-9a-f]{10}$/],
  ] as const)('%s %s/%s', (kind, namespace, name, expected) => {
    const derived = bindingUsageName(kind, namespace, name);
    if (typeof expected === 'string') expect(derived).toBe(expected);
    else expect(derived).toMatch(expected);
    expect(bindingUsageName(kind, namespace, name)).toBe(derived);
  });

  it('is a DNS subdomain of labels of at most 63 characters, even for long names', () => {
    const derived = bindingUsageName('RoleBinding', 'n'.repeat(63), `${'a'.repeat(100)}:x`);
    expect(derived.length).toBeLessThanOrEqual(253);
    for (const label of derived.split('.')) expect(label).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
  });

  it('never gives two bindings one name', () => {
    const names = [
      bindingUsageName('ClusterRoleBinding', '', 'a'),
      bindingUsageName('RoleBinding', 'a', 'a'),
      bindingUsageName('RoleBinding', 'b', 'a'),
      bindingUsageName('ClusterRoleBinding', '', 'A'),
      bindingUsageName('ClusterRoleBinding', '', 'a:'),
      bindingUsageName('ClusterRoleBinding', '', 'a.b'),
      bindingUsageName('ClusterRoleBinding', '', 'a-b'),
      bindingUsageName('ClusterRoleBinding', '', 'a:b'),
    ];
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('binding usage flags', () => {
  it('records and flushes every 10 s by default; both can be set', () => {
    expect(parseServerFlags([], {}).bindingUsage).toEqual({ recording: true, flushIntervalMs: 10_000 });
    expect(parseServerFlags(['--binding-usage-recording=false', '--binding-usage-flush-interval=1m30s'], {}).bindingUsage).toEqual({
      recording: false,
      flushIntervalMs: 90_000,
    });
  });

  it('refuses an interval that is not positive, naming the flag', () => {
    expect(() => parseServerFlags(['--binding-usage-flush-interval=0'], {})).toThrow(new FlagError('--binding-usage-flush-interval must be positive'));
    expect(() => parseServerFlags(['--binding-usage-flush-interval=often'], {})).toThrow(/^invalid argument "often" for "--binding-usage-flush-interval" flag/);
  });
});
