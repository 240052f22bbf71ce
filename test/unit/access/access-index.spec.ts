import fc from 'fast-check';
import { AccessIndex, BindingEntry, clusterRoleKey, roleKey } from '../../../src/access/access-index';
import { Subject } from '../../../src/apis/rbac/types';
import { CLUSTER_ROLE_BINDINGS_RESOURCE, ROLE_BINDINGS_RESOURCE } from '../../../src/authorization/rbac/policy-index';
import { fileSubject, SubjectKey } from '../../../src/authorization/rbac/subjects';
import { clusterRoleBinding, G, indexOf, roleBinding, SA, U } from '../authorization/rbac-fixtures';

/**
 * The access index's binding lookups (by name, by subject, by role) answer what a scan of
 * the bindings would, after any sequence of creates, updates and deletes: subjects named by
 * one binding and by several, by a binding and then not, of every kind (a malformed one too).
 */

const NAMESPACES = ['n1', 'n2'];
const SUBJECTS: Subject[] = [U('u0'), U('u1'), G('g0'), G('u0'), SA('sa0'), SA('sa0', 'n2'), U('bad', { namespace: 'n1' }), { kind: 'Robot', name: 'u1' } as Subject];
const KEYS: SubjectKey[] = ['u:u0', 'u:u1', 'g:g0', 'g:u0', 'u:system:serviceaccount:n1:sa0', 'u:system:serviceaccount:n2:sa0', 'u:bad', 'g:u1', 'u:nobody'];

type Step = { kind: 'RoleBinding' | 'ClusterRoleBinding'; namespace: string; name: string; roleKind: string; role: string; subjects: Subject[]; delete: boolean };

const stepArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom<Step['kind']>('RoleBinding', 'ClusterRoleBinding'),
  namespace: fc.constantFrom(...NAMESPACES),
  name: fc.constantFrom('b0', 'b1', 'b2', 'b3'),
  roleKind: fc.constantFrom('ClusterRole', 'Role'),
  role: fc.constantFrom('r0', 'r1'),
  subjects: fc.array(fc.constantFrom(...SUBJECTS), { maxLength: 3 }),
  delete: fc.boolean(),
});

const id = (b: { kind: string; namespace: string; name: string }) => `${b.kind}/${b.namespace}/${b.name}`;
const ids = (bindings: Iterable<BindingEntry>) => [...bindings].map(id).sort();

function check(steps: Step[]): void {
  const index = indexOf({});
  const access = new AccessIndex(index);
  /** What the index should hold: the bindings by id, as written. */
  const model = new Map<string, { kind: Step['kind']; namespace: string; name: string; object: ReturnType<typeof roleBinding> }>();
  try {
    for (const step of steps) {
      const namespace = step.kind === 'RoleBinding' ? step.namespace : '';
      const resource = step.kind === 'RoleBinding' ? ROLE_BINDINGS_RESOURCE : CLUSTER_ROLE_BINDINGS_RESOURCE;
      const key = id({ kind: step.kind, namespace, name: step.name });
      if (step.delete) {
        index.remove(resource, namespace, step.name);
        model.delete(key);
      } else {
        const object =
          step.kind === 'RoleBinding'
            ? roleBinding(namespace, step.name, step.roleKind, step.role, step.subjects)
            : clusterRoleBinding(step.name, step.role, step.subjects, step.roleKind);
        index.upsert(resource, object as never);
        model.set(key, { kind: step.kind, namespace, name: step.name, object: object as never });
      }

      expect(access.counts().bindings).toBe(model.size);
      for (const b of model.values()) expect(access.binding(b.kind, b.namespace, b.name)?.object).toBe(b.object);
      for (const kind of ['RoleBinding', 'ClusterRoleBinding'] as const) for (const ns of ['', ...NAMESPACES]) for (const name of ['b0', 'b1', 'b2', 'b3']) {
        if (!model.has(id({ kind, namespace: ns, name }))) expect(access.binding(kind, ns, name)).toBeUndefined();
      }
      for (const subjectKey of KEYS) {
        const naming = [...model.values()].filter((b) => b.object.subjects.some((s: Subject) => fileSubject(s, b.namespace).some((f) => f.key === subjectKey)));
        expect(ids(access.bindingsNaming([subjectKey]))).toEqual(naming.map(id).sort());
      }
      const roleKeys = [clusterRoleKey('r0'), clusterRoleKey('r1'), ...NAMESPACES.flatMap((ns) => [roleKey(ns, 'r0'), roleKey(ns, 'r1')])];
      for (const rk of roleKeys) {
        const referencing = [...model.values()].filter((b) => {
          const ref = b.object.roleRef;
          return ref.kind === 'ClusterRole' ? clusterRoleKey(ref.name) === rk : b.kind === 'RoleBinding' && roleKey(b.namespace, ref.name) === rk;
        });
        expect(ids(access.bindingsReferencing(rk))).toEqual(referencing.map(id).sort());
        for (const entry of access.bindingsReferencing(rk)) expect(entry.roleKey).toBe(rk);
      }
    }
  } finally {
    access.close();
  }
}

describe('the access index', () => {
  it('finds bindings by name, subject and role as a scan would, at every step of random writes', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 30 }), (steps) => check(steps)),
      { numRuns: 200 },
    );
  });
});
