import fc from 'fast-check';
import { AccessAnalyzer } from '../../../src/access/access-analyzer';
import { AccessIndex } from '../../../src/access/access-index';
import { ReverseEscalationSearch } from '../../../src/access/escalation-paths/escalation-path-reverse';
import { EscalationPathSearch } from '../../../src/access/escalation-paths/escalation-path-search';
import { PolicyRule, Subject } from '../../../src/apis/rbac/types';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import { clusterRole, clusterRoleBinding, G, indexOf, RBAC, roleBinding, SA, U } from '../authorization/rbac-fixtures';

/**
 * The question about every subject (`--all`, searched backwards from the target) agrees with
 * the question about each subject (searched forward): for random policies of capabilities,
 * the same subjects reach cluster-admin, by paths of the same length. With constrained
 * impersonation and group impersonation, whose impersonated identity `--all` follows only along
 * its own shortest continuation, every path it gives is still one the forward search finds no
 * shorter.
 */

const AUTHN = 'authentication.platform.io';
const CAPABILITIES: Record<string, PolicyRule[]> = {
  'impersonate-u1': [{ verbs: ['impersonate'], apiGroups: [''], resources: ['users'], resourceNames: ['u1'] }],
  'impersonate-users': [{ verbs: ['impersonate'], apiGroups: [''], resources: ['users'] }],
  'impersonate-s1': [{ verbs: ['impersonate'], apiGroups: [''], resources: ['serviceaccounts'], resourceNames: ['s1'] }],
  'mint-tokens': [{ verbs: ['create'], apiGroups: [''], resources: ['serviceaccounts/token'] }],
  'create-pods': [{ verbs: ['create'], apiGroups: [''], resources: ['pods'] }],
  binder: [
    { verbs: ['create'], apiGroups: [RBAC], resources: ['clusterrolebindings'] },
    { verbs: ['bind'], apiGroups: [RBAC], resources: ['clusterroles'], resourceNames: ['cluster-admin'] },
  ],
  'root-editor': [
    { verbs: ['update'], apiGroups: [RBAC], resources: ['clusterrolebindings'], resourceNames: ['root'] },
    { verbs: ['bind'], apiGroups: [RBAC], resources: ['clusterroles'] },
  ],
  'read-secrets': [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }],
};
const IMPERSONATING: Record<string, PolicyRule[]> = {
  'impersonate-devs': [
    { verbs: ['impersonate'], apiGroups: [''], resources: ['groups'], resourceNames: ['devs'] },
    { verbs: ['impersonate'], apiGroups: [''], resources: ['users'], resourceNames: ['u3'] },
  ],
  'constrained-s2': [
    { verbs: ['impersonate:serviceaccount'], apiGroups: [AUTHN], resources: ['serviceaccounts'], resourceNames: ['s2'] },
    { verbs: ['impersonate-on:serviceaccount:create'], apiGroups: ['', RBAC], resources: ['serviceaccounts/token', 'clusterrolebindings', 'pods'] },
  ],
  'constrained-users': [
    { verbs: ['impersonate:user-info'], apiGroups: [AUTHN], resources: ['users'] },
    { verbs: ['impersonate-on:user-info:create', 'impersonate-on:user-info:update'], apiGroups: ['', RBAC], resources: ['*'] },
  ],
};

const SUBJECTS: Subject[] = [U('u1'), U('u2'), U('u3'), G('devs'), SA('s1', 'a'), SA('s2', 'b')];
const subjectsArb = fc.uniqueArray(fc.constantFrom(...SUBJECTS), { minLength: 1, maxLength: 2, selector: (s) => `${s.kind}/${s.namespace}/${s.name}` });

function worldArb(roles: Record<string, PolicyRule[]>) {
  const names = Object.keys(roles);
  return fc.record({
    cluster: fc.array(fc.tuple(fc.constantFrom(...names), subjectsArb), { maxLength: 4 }),
    namespaced: fc.array(fc.tuple(fc.constantFrom('a', 'b'), fc.constantFrom(...names), subjectsArb), { maxLength: 4 }),
    admins: fc.uniqueArray(fc.constantFrom(...SUBJECTS), { maxLength: 1, selector: (s) => `${s.kind}/${s.namespace}/${s.name}` }),
  });
}

type World = { cluster: Array<[string, Subject[]]>; namespaced: Array<[string, string, Subject[]]>; admins: Subject[] };

async function bothWays(roles: Record<string, PolicyRule[]>, world: World) {
  const policy = indexOf({
    clusterRoles: [clusterRole('cluster-admin', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), ...Object.entries(roles).map(([name, rules]) => clusterRole(name, rules))],
    clusterRoleBindings: [
      // An admin binding to edit (root-editor), with a subject that is nobody here when none is drawn.
      clusterRoleBinding('root', 'cluster-admin', world.admins.length ? world.admins : [U('nobody')]),
      ...world.cluster.map(([role, subjects], i) => clusterRoleBinding(`c${i}`, role, subjects)),
    ],
    roleBindings: world.namespaced.map(([ns, role, subjects], i) => roleBinding(ns, `r${i}`, 'ClusterRole', role, subjects)),
  });
  const chain = new AuthorizerChain();
  chain.replace([new RbacAuthorizer('rbac', policy)]);
  const limits = { maxSteps: 4, maxIdentities: 2000, maxPaths: 10, maxDecisions: 1_000_000 };
  const search = () => new EscalationPathSearch({ chain, policy, secrets: () => [], pods: () => [] }, { verb: '*', group: '*', resource: '*' }, limits);
  const analyzer = new AccessAnalyzer(chain, policy, new AccessIndex(policy));
  const reverse = await new ReverseEscalationSearch(search(), chain, (attrs) => analyzer.whoCan(attrs)).run();
  const backwards = new Map(reverse.reaching.map((r) => [r.subject.label, r.path.steps.length]));
  const forwards = new Map<string, number | undefined>();
  let incomplete = reverse.incomplete;
  for (const s of search().subjects()) {
    const found = await search().from(s.user, s.label);
    incomplete ||= found.incomplete;
    forwards.set(s.label, found.paths.length ? found.paths[0].steps.length : undefined);
  }
  return { forwards, backwards, incomplete };
}

describe('escalation paths: --all (backwards) and one subject (forwards) agree', () => {
  it('on the same subjects, by paths of the same length', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb(CAPABILITIES), async (world) => {
        const { forwards, backwards, incomplete } = await bothWays(CAPABILITIES, world);
        if (incomplete) return;
        for (const [label, length] of forwards) {
          if (backwards.get(label) !== length) throw new Error(`${label}: forwards ${length}, backwards ${backwards.get(label)}`);
        }
      }),
      { numRuns: 120 },
    );
  });

  it('with impersonated groups and constrained impersonation, never by a path shorter than the shortest', async () => {
    const roles = { ...CAPABILITIES, ...IMPERSONATING };
    await fc.assert(
      fc.asyncProperty(worldArb(roles), async (world) => {
        const { forwards, backwards, incomplete } = await bothWays(roles, world);
        if (incomplete) return;
        for (const [label, length] of backwards) {
          const shortest = forwards.get(label);
          if (shortest === undefined || length < shortest) throw new Error(`${label}: backwards ${length}, forwards ${shortest}`);
        }
      }),
      { numRuns: 120 },
    );
  });
});
