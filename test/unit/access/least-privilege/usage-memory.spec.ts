import { UsageMemory } from '../../../../src/access/least-privilege/usage-memory';
import { AuthorizerChain } from '../../../../src/authorization/authorizer-chain';
import { BindingUsageRecorder } from '../../../../src/authorization/binding-usage-recorder';
import { RbacAuthorizer } from '../../../../src/authorization/rbac/rbac-authorizer';
import { metricsRegistry } from '../../../../src/metrics/registry';
import { clusterRole, G, indexOf, req, roleBinding, U, user } from '../../authorization/rbac-fixtures';

/** Rule-level usage and refusals in memory: what a decision records, and the bounds. */

const withUid = <T extends { metadata: { name: string } }>(object: T, uid: string): T => ({ ...object, metadata: { ...object.metadata, uid } });

function world(limits = { maxRuleUses: 100, maxRuleUsesPerBinding: 100, maxDenials: 100, maxDenialsPerUser: 10 }) {
  const policy = indexOf({
    clusterRoles: [
      clusterRole('worker', [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['*'], apiGroups: [''], resources: ['*'] },
      ]),
    ],
    roleBindings: [withUid(roleBinding('ns1', 'work', 'ClusterRole', 'worker', [U('alice')]), 'uid-work')],
  });
  const clock = 1_700_000_000_000;
  const recorder = new BindingUsageRecorder(true, () => clock);
  const memory = new UsageMemory(policy, limits);
  recorder.attach(memory);
  const chain = new AuthorizerChain(recorder);
  chain.replace([new RbacAuthorizer('rbac', policy)]);
  return { chain, memory, clock };
}

async function dropped(record: string, bound: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('access_rule_usage_dropped_total')?.get();
  return metric?.values.find((v) => v.labels.record === record && v.labels.bound === bound)?.value ?? 0;
}

describe('rule-level usage in memory', () => {
  it('records the rule that allowed (index and hash), the concrete attributes, and the refusals; explanations record nothing', async () => {
    const { chain, memory, clock } = world();
    await chain.authorize(req(user('alice'), 'get', '', 'pods', { ns: 'ns1', name: 'a' }));
    await chain.authorize(req(user('alice'), 'get', '', 'pods', { ns: 'ns1', name: 'b' }));
    await chain.authorize(req(user('alice'), 'delete', '', 'secrets', { ns: 'ns1', name: 's' }));
    await chain.authorize(req(user('alice'), 'get', '', 'pods', { ns: 'ns2' }));
    await chain.authorize(req(user('alice'), 'get', '', 'pods', { ns: 'ns2' }), { trace: [] });
    const { uses, denials } = memory.take();
    expect(uses.map((u) => [u.ruleIndex, u.verb, u.resource, u.namespace, u.count])).toEqual([
      [0, 'get', 'pods', 'ns1', 2],
      [1, 'delete', 'secrets', 'ns1', 1],
    ]);
    expect(uses[0]).toMatchObject({ bindingUid: 'uid-work', bindingKind: 'RoleBinding', roleName: 'worker', ruleHash: expect.stringMatching(/^[0-9a-f]{16}$/), first: clock, last: clock });
    expect(uses[0].ruleHash).not.toBe(uses[1].ruleHash);
    expect(denials).toEqual([expect.objectContaining({ user: 'alice', verb: 'get', resource: 'pods', namespace: 'ns2', count: 1 })]);
    expect(memory.take()).toEqual({ uses: [], denials: [] });
  });

  it('is bounded: resource names are not recorded, new distinct records are dropped first and counted', async () => {
    const { chain, memory } = world({ maxRuleUses: 2, maxRuleUsesPerBinding: 100, maxDenials: 5, maxDenialsPerUser: 2 });
    for (let i = 0; i < 50; i++) await chain.authorize(req(user('alice'), 'get', '', 'pods', { ns: 'ns1', name: `p${i}` }));
    const allowedBefore = await dropped('allowed', 'total');
    await chain.authorize(req(user('alice'), 'get', '', 'configmaps', { ns: 'ns1' }));
    await chain.authorize(req(user('alice'), 'get', '', 'services', { ns: 'ns1' }));
    expect(await dropped('allowed', 'total')).toBe(allowedBefore + 1);
    // What is held keeps counting.
    await chain.authorize(req(user('alice'), 'get', '', 'pods', { ns: 'ns1' }));
    const perUserBefore = await dropped('denied', 'per-user');
    for (let i = 0; i < 4; i++) await chain.authorize(req(user('mallory'), 'get', '', 'pods', { ns: `n${i}` }));
    await chain.authorize(req(user('bob'), 'get', '', 'pods', { ns: 'x' }));
    expect(await dropped('denied', 'per-user')).toBe(perUserBefore + 2);
    const { uses, denials } = memory.take();
    expect(uses.map((u) => [u.resource, u.count])).toEqual([
      ['pods', 51],
      ['configmaps', 1],
    ]);
    expect(denials.map((d) => d.user)).toEqual(['mallory', 'mallory', 'bob']);
  });

  it('bounds the records of one binding: one used in many namespaces cannot fill the memory for the others', async () => {
    const { chain, memory } = world({ maxRuleUses: 100, maxRuleUsesPerBinding: 3, maxDenials: 5, maxDenialsPerUser: 2 });
    const before = await dropped('allowed', 'per-binding');
    for (const resource of ['pods', 'configmaps', 'services', 'secrets', 'nodes']) await chain.authorize(req(user('alice'), 'get', '', resource, { ns: 'ns1' }));
    expect(await dropped('allowed', 'per-binding')).toBe(before + 2);
    expect(memory.size.uses).toBe(3);
  });

  it('puts back what a failed flush took; reading what is pending changes nothing', async () => {
    const { chain, memory } = world();
    await chain.authorize(req(user('alice'), 'get', '', 'pods', { ns: 'ns1' }));
    memory.restore(memory.take());
    await chain.authorize(req(user('alice'), 'get', '', 'pods', { ns: 'ns1' }));
    expect(memory.pending().uses.map((u) => u.count)).toEqual([2]);
    expect(memory.pending().uses.map((u) => u.count)).toEqual([2]);
    expect(memory.take().uses.map((u) => [u.resource, u.count, u.roleName])).toEqual([['pods', 2, 'worker']]);
  });

  it('keeps many attributes of one rule apart, and records the user of a binding naming a group or several subjects', async () => {
    const policy = indexOf({
      clusterRoles: [clusterRole('all', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }])],
      roleBindings: [
        withUid(roleBinding('ns1', 'devs', 'ClusterRole', 'all', [G('devs')]), 'uid-devs'),
        withUid(roleBinding('ns1', 'solo', 'ClusterRole', 'all', [U('solo')]), 'uid-solo'),
      ],
    });
    const recorder = new BindingUsageRecorder(true, () => 1);
    const memory = new UsageMemory(policy);
    recorder.attach(memory);
    const chain = new AuthorizerChain(recorder);
    chain.replace([new RbacAuthorizer('rbac', policy)]);
    const resources = Array.from({ length: 20 }, (_, i) => `r${i}`);
    for (let pass = 0; pass < 2; pass++) {
      for (const resource of resources) {
        await chain.authorize(req(user('solo'), 'get', '', resource, { ns: 'ns1' }));
        await chain.authorize(req(user('solo'), 'get', 'apps', resource, { ns: 'ns1' }));
        await chain.authorize(req(user('carol', 'devs'), 'list', '', resource, { ns: 'ns1' }));
        await chain.authorize(req(user('dave', 'devs'), 'list', '', resource, { ns: 'ns1' }));
      }
    }
    const { uses } = memory.take();
    expect(uses).toHaveLength(80);
    expect(uses.every((u) => u.count === 2)).toBe(true);
    expect(new Set(uses.filter((u) => u.bindingUid === 'uid-solo').map((u) => u.user))).toEqual(new Set(['']));
    expect(new Set(uses.filter((u) => u.bindingUid === 'uid-devs').map((u) => u.user))).toEqual(new Set(['carol', 'dave']));
  });
});
