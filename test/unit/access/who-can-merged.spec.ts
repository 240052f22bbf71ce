import fc from 'fast-check';
import { AccessAnalyzer, bindingReference } from '../../../src/access/access-analyzer';
import { AccessIndex, resourceTokens } from '../../../src/access/access-index';
import { mergeSortedBy, mergeSortedUnique } from '../../../src/access/sorted-merge';
import { Clock } from '../../../src/apimachinery/clock';
import { bindingWindow, VALID_FROM_ANNOTATION, VALID_UNTIL_ANNOTATION, windowState } from '../../../src/apis/rbac/binding-window';
import { PolicyRule, Subject } from '../../../src/apis/rbac/types';
import { AuthorizationAttributes } from '../../../src/authorization/authorizer';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { CLUSTER_ROLE_BINDINGS_RESOURCE, CLUSTER_ROLES_RESOURCE, PolicyIndex, ROLE_BINDINGS_RESOURCE, ROLES_RESOURCE } from '../../../src/authorization/rbac/policy-index';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import { ruleAllows } from '../../../src/authorization/rbac/rule-matching';
import { fileSubject } from '../../../src/authorization/rbac/subjects';
import { clusterRole, clusterRoleBinding, G, req, role, roleBinding, SA, U, url, user } from '../authorization/rbac-fixtures';

/**
 * Who-can reads sorted lists the access index keeps per role and scope, merged per question.
 * For random policies changed step by step (bindings added, replaced and removed, roles
 * changed, the clock moved across bindings' windows), its answer equals the one computed the
 * straightforward way from the candidate bindings (every subject filed, collected in sets,
 * sorted at the end), as who-can answered before the lists were kept.
 */

const NAMESPACES = ['a', 'b'];
const NAMES = ['zoe', 'Zed', 'al', 'al-2', 'ä', '😀', 'x'];
const T0 = Date.parse('2026-03-01T10:00:00Z');
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

class ManualClock implements Clock {
  ms = T0;
  now(): number {
    return this.ms;
  }
}

const subjectArb: fc.Arbitrary<Subject> = fc.oneof(
  fc.constantFrom(...NAMES).map((n) => U(n)),
  fc.constantFrom(...NAMES).map((n) => G(n)),
  fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom(undefined, 'a', 'b')).map(([n, ns]) => SA(n, ns)),
  // Malformed: a User in a namespace, a Group with no name, an unknown kind.
  fc.constant(U('x', { namespace: 'a' })),
  fc.constant(G('')),
  fc.constant({ kind: 'Robot', name: 'r' } as Subject),
);
const ruleArb: fc.Arbitrary<PolicyRule> = fc.oneof(
  fc.record({ verbs: fc.subarray(['get', 'list', '*'], { minLength: 1 }), resources: fc.subarray(['pods', 'secrets', '*'], { minLength: 1 }) }).map(({ verbs, resources }) => ({ verbs, apiGroups: [''], resources })),
  fc.constant<PolicyRule>({ verbs: ['get'], nonResourceURLs: ['/metrics'] }),
);
/** A window in hours around T0 (undefined: that side open; 'bad': unreadable). */
const windowArb = fc.option(fc.record({ from: fc.constantFrom(undefined, -1, 1, 'bad'), until: fc.constantFrom(undefined, 1, 3) }), { nil: undefined });

type Step =
  | { op: 'bind'; namespace: string; name: string; roleKind: 'Role' | 'ClusterRole'; roleName: string; subjects: Subject[]; window?: { from?: number | string; until?: number } }
  | { op: 'unbind'; namespace: string; name: string }
  | { op: 'role'; namespace: string; name: string; rules: PolicyRule[] }
  | { op: 'clock'; hours: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('bind' as const), namespace: fc.constantFrom('', ...NAMESPACES), name: fc.constantFrom('b0', 'b1', 'b2', 'b3'), roleKind: fc.constantFrom('Role' as const, 'ClusterRole' as const), roleName: fc.constantFrom('r0', 'r1', 'missing'), subjects: fc.array(subjectArb, { maxLength: 3 }), window: windowArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('unbind' as const), namespace: fc.constantFrom('', ...NAMESPACES), name: fc.constantFrom('b0', 'b1', 'b2', 'b3') }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('role' as const), namespace: fc.constantFrom('', ...NAMESPACES), name: fc.constantFrom('r0', 'r1'), rules: fc.array(ruleArb, { maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clock' as const), hours: fc.constantFrom(-2, 0, 2, 4) }) },
);

const NOBODY = user('');
const QUESTIONS: AuthorizationAttributes[] = [
  ...['', ...NAMESPACES].flatMap((ns) => [req(NOBODY, 'get', '', 'pods', { ns }), req(NOBODY, 'list', '', 'secrets', { ns }), req(NOBODY, 'get', '', 'pods', { ns, sub: 'log' })]),
  url(NOBODY, 'get', '/metrics'),
];

function apply(policy: PolicyIndex, clock: ManualClock, step: Step): void {
  switch (step.op) {
    case 'bind': {
      const annotations: Record<string, string> = {};
      const w = step.window;
      if (w?.from !== undefined) annotations[VALID_FROM_ANNOTATION] = typeof w.from === 'number' ? iso(T0 + w.from * HOUR) : w.from;
      if (w?.until !== undefined) annotations[VALID_UNTIL_ANNOTATION] = iso(T0 + w.until * HOUR);
      const binding = step.namespace ? roleBinding(step.namespace, step.name, step.roleKind, step.roleName, step.subjects) : clusterRoleBinding(step.name, step.roleName, step.subjects, step.roleKind);
      const object = { ...binding, metadata: { ...binding.metadata, ...(w ? { annotations } : {}) } };
      policy.upsert(step.namespace ? ROLE_BINDINGS_RESOURCE : CLUSTER_ROLE_BINDINGS_RESOURCE, object);
      return;
    }
    case 'unbind':
      policy.remove(step.namespace ? ROLE_BINDINGS_RESOURCE : CLUSTER_ROLE_BINDINGS_RESOURCE, step.namespace, step.name);
      return;
    case 'role':
      if (step.namespace) policy.upsert(ROLES_RESOURCE, role(step.namespace, step.name, step.rules));
      else policy.upsert(CLUSTER_ROLES_RESOURCE, clusterRole(step.name, step.rules));
      return;
    case 'clock':
      clock.ms = T0 + step.hours * HOUR;
  }
}

/** The answer from the candidate bindings one by one: each subject filed, sets, one sort at the end. */
function straightforward(policy: PolicyIndex, index: AccessIndex, attrs: AuthorizationAttributes) {
  const candidates = attrs.isResourceRequest
    ? index.candidateBindings(attrs.verb, resourceTokens(attrs.resource, attrs.subresource), attrs.namespace)
    : index.candidateBindings(attrs.verb, [AccessIndex.NON_RESOURCE], '');
  const users = new Set<string>();
  const groups = new Set<string>(['system:masters']);
  const found: Array<{ order: string; binding: object; subjects: string[] }> = [];
  for (const binding of candidates) {
    const subjects: string[] = [];
    const keys: string[] = [];
    for (const subject of binding.object.subjects ?? []) {
      const filings = fileSubject(subject, binding.namespace);
      if (!filings.length || filings.some((f) => f.error)) continue;
      subjects.push(`${subject.kind}/${subject.name}/${subject.namespace ?? ''}`);
      keys.push(...filings.map((f) => f.key));
    }
    if (!subjects.length || windowState(bindingWindow(binding.object), policy.clock.now()) !== 'active') continue;
    const rules = policy.rulesOfRoleRef(binding.object.roleRef, binding.namespace).rules;
    if (!rules?.some((rule) => ruleAllows(rule, attrs))) continue;
    for (const key of keys) (key.startsWith('u:') ? users : groups).add(key.slice(2));
    found.push({ order: `${binding.kind === 'ClusterRoleBinding' ? 0 : 1}\u0000${binding.namespace}\u0000${binding.name}`, binding: bindingReference(binding), subjects });
  }
  found.sort((x, y) => (x.order < y.order ? -1 : x.order > y.order ? 1 : 0));
  return { users: [...users].sort(), groups: [...groups].sort(), grants: found.map(({ binding, subjects }) => ({ binding, subjects })) };
}

describe('merging sorted lists', () => {
  const sortedUniqueLists = fc.array(fc.uniqueArray(fc.string({ unit: 'grapheme-composite', maxLength: 3 })).map((l) => l.sort()), { maxLength: 6 });

  it('gives the sorted distinct strings of all the lists', () => {
    fc.assert(fc.property(sortedUniqueLists, (lists) => expect(mergeSortedUnique(lists)).toEqual([...new Set(lists.flat())].sort())));
  });

  it('gives the items sorted by key, equal keys in the order of their lists', () => {
    const itemLists = fc.array(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'B'), fc.nat())).map((l) => l.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))), { maxLength: 6 });
    fc.assert(
      fc.property(itemLists, (lists) => {
        const merged = mergeSortedBy(lists, (item) => item[0]);
        const expected = lists.flat().sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)); // stable
        expect(merged).toEqual(expected);
      }),
    );
  });

  it('returns a list of its own', () => {
    const only = ['a', 'b'];
    const merged = mergeSortedUnique([[], only]);
    expect(merged).toEqual(only);
    expect(merged).not.toBe(only);
  });
});

describe('who-can from kept sorted lists', () => {
  it('answers as the straightforward computation after every change, for random policies', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 25 }), (steps) => {
        const clock = new ManualClock();
        const policy = new PolicyIndex(clock);
        policy.replaceAll([
          { resource: ROLES_RESOURCE, items: [] },
          { resource: CLUSTER_ROLES_RESOURCE, items: [clusterRole('r0', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])] },
          { resource: ROLE_BINDINGS_RESOURCE, items: [] },
          { resource: CLUSTER_ROLE_BINDINGS_RESOURCE, items: [] },
        ]);
        const index = new AccessIndex(policy);
        const chain = new AuthorizerChain();
        chain.replace([new RbacAuthorizer('rbac', policy)]);
        const analyzer = new AccessAnalyzer(chain, policy, index);
        for (const step of steps) {
          apply(policy, clock, step);
          for (const attrs of QUESTIONS) {
            const answer = analyzer.whoCan(attrs);
            const grants = answer.grants.map((g) => ({ binding: g.binding, subjects: g.subjects.map((s) => `${s.kind}/${s.name}/${s.namespace ?? ''}`) }));
            expect({ users: answer.users, groups: answer.groups, grants }).toEqual(straightforward(policy, index, attrs));
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
