import fc from 'fast-check';
import { AccessIndex } from '../../../src/access/access-index';
import { accessChangesOf, diffOfCommittedChange, LoneBindingDiffs } from '../../../src/access/access-history';
import { AccessChangeCause } from '../../../src/access/access-change-kind';
import { packAccessChange } from '../../../src/access/access-change-stored-form';
import { PolicyObjectChange } from '../../../src/access/policy-change-candidate';
import { PolicyRule, Subject } from '../../../src/apis/rbac/types';
import { CLUSTER_ROLE_BINDINGS_RESOURCE, CLUSTER_ROLES_RESOURCE, RbacResource, ROLE_BINDINGS_RESOURCE, ROLES_RESOURCE } from '../../../src/authorization/rbac/policy-index';
import { clusterRole, clusterRoleBinding, G, indexOf, role, roleBinding, SA, U } from '../authorization/rbac-fixtures';

/**
 * The recorder's diffs of bindings created or deleted for a subject no other binding names
 * are relabelled copies of the first one per role state: at every step of random sequences
 * (bindings for lone and shared subjects, deletes, role edits between them, windows), they
 * equal the engine's diff of the same change, entry for entry; and the recorder's stored
 * entries, made from the templates directly, are those of the engine's diff, packed.
 */

const RESOURCE_OF: Record<string, RbacResource> = { Role: ROLES_RESOURCE, ClusterRole: CLUSTER_ROLES_RESOURCE, RoleBinding: ROLE_BINDINGS_RESOURCE, ClusterRoleBinding: CLUSTER_ROLE_BINDINGS_RESOURCE };
const NAMESPACES = ['n1', 'n2', 'n3'];
const SUBJECTS: Subject[] = [U('u0'), U('u1'), U('u2'), U('u3'), G('g0'), G('g1'), SA('sa0'), SA('sa1', 'n2'), U('bad', { namespace: 'n1' })];

const ruleArb: fc.Arbitrary<PolicyRule> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      verbs: fc.uniqueArray(fc.constantFrom('get', 'list', 'watch', 'create', '*'), { minLength: 1, maxLength: 3 }),
      apiGroups: fc.uniqueArray(fc.constantFrom('', 'apps', '*'), { minLength: 1, maxLength: 2 }),
      resources: fc.uniqueArray(fc.constantFrom('pods', 'pods/log', '*/log', 'secrets', 'deployments', '*'), { minLength: 1, maxLength: 3 }),
      resourceNames: fc.constantFrom<string[][]>([], ['a'], ['a', 'b']),
    }),
  },
  { weight: 1, arbitrary: fc.record({ verbs: fc.uniqueArray(fc.constantFrom('get', '*'), { minLength: 1, maxLength: 2 }), nonResourceURLs: fc.constantFrom<string[][]>(['/healthz'], ['/api*']) }) },
);
const rulesArb = fc.array(ruleArb, { minLength: 0, maxLength: 3 });

type Step = { object: Record<string, any>; delete?: boolean };
const WINDOW = { 'rbac.authorization.platform.io/valid-from': '2000-01-01T00:00:00Z' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 5 }), fc.constantFrom(...NAMESPACES), fc.constantFrom('Role', 'ClusterRole'), fc.constantFrom('r0', 'r1'), fc.constantFrom(...SUBJECTS), fc.boolean(), fc.boolean())
      .map(([i, ns, kind, r, s, windowed, twoSubjects]) => {
        const object: Record<string, any> = roleBinding(ns, `rb${i}`, kind, r, twoSubjects ? [s, U('u0')] : [s]);
        if (windowed) object.metadata.annotations = WINDOW;
        return { object };
      }),
  },
  { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom('r0', 'r1'), fc.constantFrom(...SUBJECTS)).map(([i, r, s]) => ({ object: clusterRoleBinding(`crb${i}`, r, [s]) })) },
  { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 0, max: 5 }), fc.constantFrom(...NAMESPACES)).map(([i, ns]) => ({ delete: true, object: roleBinding(ns, `rb${i}`, 'Role', 'x', []) })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 3 }).map((i) => ({ delete: true, object: clusterRoleBinding(`crb${i}`, 'x', []) })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('r0', 'r1'), rulesArb).map(([r, rules]) => ({ object: clusterRole(r, rules) })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom('r0', 'r1'), rulesArb).map(([ns, r, rules]) => ({ object: role(ns, r, rules) })) },
);

function run(initialRules: PolicyRule[][], steps: Step[]): void {
  const index = indexOf({
    clusterRoles: [clusterRole('r0', initialRules[0]), clusterRole('r1', initialRules[1])],
    roles: NAMESPACES.map((ns) => role(ns, 'r0', initialRules[2])),
  });
  const access = new AccessIndex(index);
  const diffs = new LoneBindingDiffs();
  // The recorder's entries, from templates of their own: each made on first use, then reused.
  const recorded = new LoneBindingDiffs();
  try {
    for (const [i, step] of steps.entries()) {
      const { kind, metadata } = step.object as { kind: string; metadata: { name: string; namespace?: string } };
      const namespace = kind === 'Role' || kind === 'RoleBinding' ? (metadata.namespace ?? '') : '';
      const change: PolicyObjectChange = { kind: kind as PolicyObjectChange['kind'], namespace, name: metadata.name, object: step.delete ? null : (step.object as never) };
      const expected = diffOfCommittedChange(index, access, change);
      const answered = diffs.diff(index, access, change);
      const cause: AccessChangeCause = { kind, ...(namespace ? { namespace } : {}), name: metadata.name, resourceVersion: `${i}`, operation: step.delete ? 'Delete' : 'Create', user: { username: 'u' } };
      const entries = recorded.storedEntries(index, access, change, cause, 't', `r${i}`);
      try {
        expect(answered).toEqual(expected);
        expect(entries).toEqual(accessChangesOf(expected, cause, 't', `r${i}`).map(packAccessChange));
      } catch (err) {
        throw new Error(`step ${i} ${JSON.stringify(step)}: ${(err as Error).message}`);
      }
      if (step.delete) index.remove(RESOURCE_OF[kind], namespace, metadata.name);
      else index.upsert(RESOURCE_OF[kind], step.object as never);
    }
  } finally {
    access.close();
  }
}

describe('the diffs of bindings for lone subjects', () => {
  it('equal the engine at every step of random sequences of binding creates, deletes and role edits', () => {
    fc.assert(
      fc.property(fc.tuple(rulesArb, rulesArb, rulesArb), fc.array(stepArb, { minLength: 1, maxLength: 25 }), (rules, steps) => run(rules, steps)),
      { numRuns: 150 },
    );
  });

  it("equal the engine for the bench's shape: a binding of view per user, in many namespaces, then a role edit and deletes", () => {
    const view: PolicyRule[] = [
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'pods/log', 'configmaps', 'services'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['deployments', 'replicasets'] },
    ];
    const steps: Step[] = [];
    for (let i = 0; i < 12; i++) steps.push({ object: roleBinding(`n${(i % 3) + 1}`, `rb${i}`, 'ClusterRole', 'r0', [U(`user-${i}`)]) });
    steps.push({ object: clusterRoleBinding('crb0', 'r0', [G('group-0')]) }, { object: clusterRoleBinding('crb1', 'r0', [G('group-1')]) });
    steps.push({ object: clusterRole('r0', [...view, { verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]) });
    for (let i = 12; i < 16; i++) steps.push({ object: roleBinding('n1', `rb${i}`, 'ClusterRole', 'r0', [U(`user-${i}`)]) });
    // A second binding for a subject: not lone (the engine's), then its deletes.
    steps.push({ object: roleBinding('n2', 'again', 'ClusterRole', 'r0', [U('user-0')]) }, { delete: true, object: roleBinding('n1', 'rb0', 'Role', 'x', []) });
    for (let i = 1; i < 6; i++) steps.push({ delete: true, object: roleBinding(`n${(i % 3) + 1}`, `rb${i}`, 'Role', 'x', []) });
    steps.push({ delete: true, object: clusterRoleBinding('crb0', 'x', []) });
    run([view, view, view], steps);
  });
});
