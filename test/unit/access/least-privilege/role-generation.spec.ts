import { generateAccess } from '../../../../src/access/least-privilege/role-generation';
import { ruleHash } from '../../../../src/access/least-privilege/rule-identity';
import { RuleUse } from '../../../../src/access/least-privilege/usage-memory';
import { PolicyRule } from '../../../../src/apis/rbac/types';
import { rulesAllow } from '../../../../src/authorization/rbac/rule-matching';

/** Roles generated from recorded uses: grouped as a person writes them, never wider than the rules held. */

const RBAC = 'rbac.authorization.platform.io';
const NOW = 1_700_000_000_000;

const held: PolicyRule[] = [
  { apiGroups: [''], resources: ['*'], verbs: ['*'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['tls'] },
  { nonResourceURLs: ['/metrics', '/healthz'], verbs: ['get'] },
];

const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, namespace?: string) => ({
  kind,
  object: {
    metadata: { name, uid: `uid-${name}`, ...(namespace ? { namespace } : {}) },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'wide' },
    subjects: [{ kind: 'ServiceAccount', name: 'ci', namespace: 'build' }],
  },
});

const use = (bindingUid: string, rule: PolicyRule, attrs: Partial<RuleUse>): RuleUse => ({
  bindingUid,
  bindingKind: 'ClusterRoleBinding',
  bindingNamespace: '',
  bindingName: 'x',
  roleKind: 'ClusterRole',
  roleName: 'wide',
  ruleIndex: 0,
  ruleHash: ruleHash(rule),
  rule,
  user: '',
  verb: 'get',
  apiGroup: '',
  resource: '',
  subresource: '',
  namespace: '',
  nonResourceURL: '',
  count: 1,
  first: NOW,
  last: NOW,
  ...attrs,
});

describe('generated roles', () => {
  const uid = 'uid-ci-everywhere';
  const uses = [
    use(uid, held[0], { verb: 'get', resource: 'pods', namespace: 'build' }),
    use(uid, held[0], { verb: 'list', resource: 'pods', namespace: 'build' }),
    use(uid, held[0], { verb: 'get', resource: 'configmaps', namespace: 'build' }),
    use(uid, held[0], { verb: 'list', resource: 'configmaps', namespace: 'build' }),
    use(uid, held[0], { verb: 'create', resource: 'pods', subresource: 'exec', namespace: 'build' }),
    use(uid, held[0], { verb: 'list', resource: 'namespaces' }),
    use(uid, held[1], { verb: 'get', resource: 'secrets', namespace: 'build' }),
    use(uid, held[2], { verb: 'get', nonResourceURL: '/metrics' }),
    // Before the window: not counted.
    use(uid, held[0], { verb: 'delete', resource: 'pods', namespace: 'build', last: NOW - 10_000 }),
  ];
  const generated = generateAccess({
    subject: { kind: 'ServiceAccount', name: 'ci', namespace: 'build' },
    from: NOW - 1000,
    bindings: [binding('ClusterRoleBinding', 'ci-everywhere'), binding('RoleBinding', 'other', 'other')],
    rulesOf: () => held,
    uses: uses.map((u) => ({ ...u, bindingUid: 'uid-ci-everywhere' })),
  });

  it('narrows a ClusterRoleBinding to a Role in each namespace used, and a ClusterRole for the rest', () => {
    expect(generated.roles.map((r) => `${r.kind} ${r.metadata.namespace ?? ''}/${r.metadata.name}`)).toEqual([
      'ClusterRole /suggested.serviceaccount.build.ci',
      'Role build/suggested.serviceaccount.build.ci',
    ]);
    expect(generated.bindings.map((b) => b.kind)).toEqual(['ClusterRoleBinding', 'RoleBinding']);
    expect((generated.bindings[1] as any).subjects).toEqual([{ kind: 'ServiceAccount', name: 'ci', namespace: 'build' }]);
  });

  it('groups resources with the same verbs, keeps resourceNames, and leaves out use before the window', () => {
    const namespaced = (generated.roles[1] as any).rules as PolicyRule[];
    expect(namespaced).toEqual([
      { apiGroups: [''], resources: ['configmaps', 'pods'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['tls'] },
    ]);
    expect((generated.roles[0] as any).rules).toEqual([
      { apiGroups: [''], resources: ['namespaces'], verbs: ['list'] },
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
    ]);
    expect(generated.coveredUses).toBe(8);
  });

  it('never allows more than the rules held', () => {
    const probes = [
      { verb: 'delete', resource: 'pods' },
      { verb: 'get', resource: 'secrets', name: 'other' },
      { verb: 'get', resource: 'pods', subresource: 'exec' },
    ];
    const generatedRules = generated.roles.flatMap((r) => (r as any).rules as PolicyRule[]);
    for (const p of probes) {
      const attrs = { isResourceRequest: true, apiGroup: '', subresource: '', name: '', path: '', ...p };
      expect({ p, allowed: rulesAllow(generatedRules, attrs) }).toEqual({ p, allowed: false });
    }
    for (const rule of generatedRules) {
      // Every generated rule's verbs and resources are allowed by some rule held.
      for (const verb of rule.verbs) {
        for (const r of rule.resources ?? []) {
          const [resource, subresource = ''] = r.split('/');
          expect(rulesAllow(held, { isResourceRequest: true, verb, apiGroup: '', resource, subresource, name: rule.resourceNames?.[0] ?? '', path: '' })).toBe(true);
        }
      }
    }
  });

  it('names the bindings replaced, and as the diff the rules that allowed nothing', () => {
    expect(generated.replaces).toEqual([{ kind: 'ClusterRoleBinding', name: 'ci-everywhere' }, { kind: 'RoleBinding', namespace: 'other', name: 'other' }]);
    expect(generated.removedRules.map((r) => `${r.binding.name}#${r.ruleIndex}`)).toEqual(['other#0', 'other#1', 'other#2']);
  });
});
