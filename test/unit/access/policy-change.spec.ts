import fc from 'fast-check';
import { AccessIndex } from '../../../src/access/access-index';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { PolicyChangeAnalyzer } from '../../../src/access/policy-change-analyzer';
import { PermissionChange, PolicyChangeItem, PolicyChangeStatus } from '../../../src/access/policy-change-types';
import {
  CLUSTER_ROLE_BINDINGS_RESOURCE,
  CLUSTER_ROLES_RESOURCE,
  PolicyIndex,
  RbacKind,
  RbacResource,
  ROLE_BINDINGS_RESOURCE,
  ROLES_RESOURCE,
} from '../../../src/authorization/rbac/policy-index';
import { diffOfCommittedChange } from '../../../src/access/access-history';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import { PolicyRule, Subject } from '../../../src/apis/rbac/types';
import { UserInfo } from '../../../src/apimachinery/user-info';
import { AuthorizationAttributes } from '../../../src/authorization/authorizer';
import { CompiledGuardrail, decideWithGuardrails } from '../../../src/access/guardrails/compiled-guardrail';
import { GuardrailAuthorizer } from '../../../src/access/guardrails/guardrail-authorizer';
import { GuardrailState } from '../../../src/access/guardrails/guardrail-state.service';
import { AccessGuardrail } from '../../../src/access/guardrails/guardrail-types';
import { clusterRole, clusterRoleBinding, G, indexOf, Objects, req, role, roleBinding, U, url, user } from '../authorization/rbac-fixtures';

/**
 * PolicyChangeReview's diff is exact: for random policies and changes, a request is covered
 * by a gained entry exactly when a SubjectAccessReview of it is denied before and allowed
 * after (and the reverse for lost), over every verb, group, resource, name, namespace, URL
 * and subject the policies can tell apart, plus values none of them name.
 */

const ADMIN: UserInfo = user('admin', 'system:masters');

const VERBS = ['get', 'list', 'create', '*'];
const GROUPS = ['', 'apps', '*'];
const RESOURCES = ['pods', 'pods/log', '*/log', 'secrets', 'deployments', '*'];
const NAMES: string[][] = [[], ['a'], ['a', 'b']];
const URLS = ['/healthz', '/api*', '/api/v1', '*'];
const NAMESPACES = ['n1', 'n2'];
const SUBJECTS: Subject[] = [U('alice'), U('bob'), G('devs')];

const ruleArb: fc.Arbitrary<PolicyRule> = fc.oneof(
  { weight: 4, arbitrary: fc.record({
    verbs: fc.uniqueArray(fc.constantFrom(...VERBS), { minLength: 1, maxLength: 2 }),
    apiGroups: fc.uniqueArray(fc.constantFrom(...GROUPS), { minLength: 1, maxLength: 2 }),
    resources: fc.uniqueArray(fc.constantFrom(...RESOURCES), { minLength: 1, maxLength: 2 }),
    resourceNames: fc.constantFrom(...NAMES),
  }) },
  { weight: 1, arbitrary: fc.record({ verbs: fc.uniqueArray(fc.constantFrom(...VERBS), { minLength: 1, maxLength: 2 }), nonResourceURLs: fc.uniqueArray(fc.constantFrom(...URLS), { minLength: 1, maxLength: 2 }) }) },
);
const rulesArb = fc.array(ruleArb, { minLength: 0, maxLength: 3 });
const subjectsArb = fc.uniqueArray(fc.constantFrom(...SUBJECTS), { minLength: 1, maxLength: 2, selector: (s) => `${s.kind}/${s.name}` });
const roleNameArb = fc.constantFrom('r0', 'r1', 'r2');

const policyArb = fc.record({
  clusterRoles: fc.tuple(rulesArb, rulesArb, rulesArb).map((rs) => rs.map((rules, i) => clusterRole(`r${i}`, rules))),
  roles: fc.tuple(rulesArb, rulesArb).map(([a, b]) => [role('n1', 'r0', a), role('n2', 'r1', b)]),
  clusterRoleBindings: fc.array(fc.tuple(roleNameArb, subjectsArb), { maxLength: 2 }).map((bs) => bs.map(([r, s], i) => clusterRoleBinding(`crb${i}`, r, s))),
  roleBindings: fc
    .array(fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom('Role', 'ClusterRole'), roleNameArb, subjectsArb), { maxLength: 3 })
    .map((bs) => bs.map(([ns, kind, r, s], i) => roleBinding(ns, `rb${i}`, kind, r, s))),
});

/** One change: a role or binding replaced, created or deleted. */
const changeArb: fc.Arbitrary<PolicyChangeItem> = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 3 }), rulesArb).map(([i, rules]) => ({ object: { ...clusterRole(`r${i}`, rules) } })),
  fc.tuple(fc.constantFrom(...NAMESPACES), roleNameArb, rulesArb).map(([ns, r, rules]) => ({ object: { ...role(ns, r, rules) } })),
  fc.tuple(fc.integer({ min: 0, max: 2 }), roleNameArb, subjectsArb).map(([i, r, s]) => ({ object: { ...clusterRoleBinding(`crb${i}`, r, s) } })),
  fc
    .tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom(...NAMESPACES), fc.constantFrom('Role', 'ClusterRole'), roleNameArb, subjectsArb)
    .map(([i, ns, kind, r, s]) => ({ object: { ...roleBinding(ns, `rb${i}`, kind, r, s) } })),
  fc.tuple(fc.integer({ min: 0, max: 2 }), fc.constantFrom(...NAMESPACES)).map(([i, ns]) => ({ delete: true, object: { ...roleBinding(ns, `rb${i}`, 'Role', 'x', []) } })),
  fc.integer({ min: 0, max: 2 }).map((i) => ({ delete: true, object: { ...clusterRole(`r${i}`, []) } })),
);
const changesArb = fc.uniqueArray(changeArb, {
  minLength: 1,
  maxLength: 3,
  selector: (c) => `${String(c.object!.kind)}/${String(c.object!.metadata?.namespace ?? '')}/${String(c.object!.metadata?.name)}`,
});

/** The policy with the changes applied, as the store would hold it. */
function applied(objects: Objects, changes: PolicyChangeItem[]): PolicyIndex {
  const lists: Record<string, Array<{ metadata: { name: string; namespace?: string } }>> = {
    Role: [...(objects.roles ?? [])],
    ClusterRole: [...(objects.clusterRoles ?? [])],
    RoleBinding: [...(objects.roleBindings ?? [])],
    ClusterRoleBinding: [...(objects.clusterRoleBindings ?? [])],
  };
  for (const change of changes) {
    const o = change.object! as { kind: string; metadata: { name: string; namespace?: string } };
    const list = lists[o.kind].filter((x) => !(x.metadata.name === o.metadata.name && (x.metadata.namespace ?? '') === (o.metadata.namespace ?? '')));
    if (!change.delete) list.push(o);
    lists[o.kind] = list;
  }
  return indexOf({ roles: lists.Role, clusterRoles: lists.ClusterRole, roleBindings: lists.RoleBinding, clusterRoleBindings: lists.ClusterRoleBinding } as Objects);
}

// Requests: every value the policies name, and values none of them do.
const Q_VERBS = ['get', 'list', 'create', 'patch'];
const Q_GROUPS = ['', 'apps', 'batch'];
const Q_RESOURCES: Array<[string, string]> = [['pods', ''], ['pods', 'log'], ['pods', 'exec'], ['jobs', 'log'], ['secrets', ''], ['deployments', ''], ['jobs', ''], ['jobs', 'exec']];
const Q_NAMES = ['', 'a', 'b', 'zzz'];
const Q_NAMESPACES = ['', 'n1', 'n2', 'n3'];
const Q_URLS = ['/healthz', '/api', '/api/v1', '/apis/x', '/other'];

interface Question {
  verb: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  namespace?: string;
  path?: string;
}

function* questions(): Generator<Question> {
  for (const verb of Q_VERBS) {
    for (const path of Q_URLS) yield { verb, path };
    for (const apiGroup of Q_GROUPS)
      for (const [resource, subresource] of Q_RESOURCES)
        for (const name of Q_NAMES) for (const namespace of Q_NAMESPACES) yield { verb, apiGroup, resource, subresource, name, namespace };
  }
}

const userOf = (s: Subject): UserInfo => (s.kind === 'Group' ? { username: '', groups: [s.name] } : { username: s.name, groups: [] });

/** Whether a rendered entry covers a request, reading `*` and except as the schema documents them. */
function covers(e: PermissionChange, s: Subject, q: Question): boolean {
  if (e.subject.kind !== s.kind || e.subject.name !== s.name) return false;
  const ex = e.except ?? {};
  const one = (pattern: string, value: string, except: string[] | undefined) => (pattern === '*' ? !(except ?? []).includes(value) : pattern === value);
  if (!one(e.verb, q.verb, ex.verbs)) return false;
  if (q.path !== undefined) {
    if (e.nonResourceURL === undefined) return false;
    const urlMatches = (p: string) => p === '*' || (p.endsWith('*') ? q.path!.startsWith(p.slice(0, -1)) : p === q.path);
    return urlMatches(e.nonResourceURL) && !(ex.nonResourceURLs ?? []).some(urlMatches);
  }
  if (e.resource === undefined) return false;
  if (e.namespace !== undefined ? e.namespace !== q.namespace : (e.exceptNamespaces ?? []).includes(q.namespace!)) return false;
  if (!one(e.apiGroup!, q.apiGroup!, ex.apiGroups)) return false;
  const resourceMatches = (label: string) => {
    const [r, sub] = label.includes('/') ? label.split('/') : [label, ''];
    if (label === '*') return q.subresource === '';
    if (label === '*/*') return q.subresource !== '';
    return (r === '*' || r === q.resource) && sub === q.subresource;
  };
  if (!resourceMatches(e.resource) || (ex.resources ?? []).some(resourceMatches)) return false;
  if (e.resourceName !== undefined) return e.resourceName === q.name;
  return !(ex.resourceNames ?? []).includes(q.name!);
}

function analyze(objects: Objects, changes: PolicyChangeItem[]): Promise<PolicyChangeStatus> {
  const live = indexOf(objects);
  const chain = new AuthorizerChain();
  chain.replace([new RbacAuthorizer('rbac', live)]);
  return new PolicyChangeAnalyzer(live, new AccessIndex(live), chain).answer({ changes }, ADMIN);
}

describe('PolicyChangeReview diff', () => {
  it('equals the difference of SubjectAccessReview answers before and after, request by request', async () => {
    await fc.assert(
      fc.asyncProperty(policyArb, changesArb, async (objects, changes) => {
        const status = await analyze(objects, changes);
        const before = new RbacAuthorizer('before', indexOf(objects));
        const after = new RbacAuthorizer('after', applied(objects, changes));
        for (const s of SUBJECTS) {
          const who = userOf(s);
          for (const q of questions()) {
            const attrs = q.path !== undefined ? url(who, q.verb, q.path) : req(who, q.verb, q.apiGroup!, q.resource!, { ns: q.namespace, name: q.name, sub: q.subresource });
            const was = before.authorize(attrs).decision === 'Allow';
            const is = after.authorize(attrs).decision === 'Allow';
            const gained = status.gained.some((e) => covers(e, s, q));
            const lost = status.lost.some((e) => covers(e, s, q));
            if (gained !== (is && !was) || lost !== (was && !is)) {
              throw new Error(`${JSON.stringify(s)} ${JSON.stringify(q)}: before ${was}, after ${is}, gained ${gained}, lost ${lost}\n${JSON.stringify(status, null, 1)}`);
            }
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('follows aggregation: a ClusterRole labelled for an aggregating role changes what its subjects may do', async () => {
    const view = { ...clusterRole('view', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'aggregate-to-view': 'true' } }] } };
    const viewPods = clusterRole('view-pods', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], { 'aggregate-to-view': 'true' });
    const status = await analyze({ clusterRoles: [view, viewPods], roleBindings: [roleBinding('n1', 'viewers', 'ClusterRole', 'view', [U('alice')])] }, [
      { object: { ...clusterRole('extra', [{ verbs: ['list'], apiGroups: [''], resources: ['secrets'] }], { 'aggregate-to-view': 'true' }) } },
    ]);
    expect(status.gained).toEqual([
      {
        subject: U('alice'),
        namespace: 'n1',
        verb: 'list',
        apiGroup: '',
        resource: 'secrets',
        via: [{ binding: { kind: 'RoleBinding', namespace: 'n1', name: 'viewers' }, role: { kind: 'ClusterRole', name: 'view' } }],
      },
    ]);
    expect(status.lost).toEqual([]);
  });
});

describe('PolicyChangeReview bounds', () => {
  const objects: Objects = {
    clusterRoles: [clusterRole('reader', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])],
    roleBindings: ['n1', 'n2', 'n3'].map((ns) => roleBinding(ns, 'readers', 'ClusterRole', 'reader', [U('alice'), U('bob')])),
  };
  const widened = { object: clusterRole('reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]) };
  const analyzer = (limits: { maxSubjectScopes: number; maxRuleChecks: number }) => {
    const live = indexOf(objects);
    const chain = new AuthorizerChain();
    chain.replace([new RbacAuthorizer('rbac', live)]);
    return new PolicyChangeAnalyzer(live, new AccessIndex(live), chain, limits);
  };

  it('refuses a change that touches more subject-namespace pairs than one answer may diff, saying how to narrow it', async () => {
    await expect(analyzer({ maxSubjectScopes: 3, maxRuleChecks: 1e6 }).answer({ changes: [widened] }, ADMIN)).rejects.toThrow(
      'the changes touch 8 subject-namespace pairs, more than the 3 one review answers: narrow spec.scope (namespaces, subjects)',
    );
    await expect(analyzer({ maxSubjectScopes: 100, maxRuleChecks: 5 }).answer({ changes: [widened] }, ADMIN)).rejects.toThrow('narrow spec.scope');
  });

  it('answers only for the namespaces and subjects of spec.scope', async () => {
    const status = await analyzer({ maxSubjectScopes: 3, maxRuleChecks: 1e6 }).answer({ changes: [widened], scope: { namespaces: ['n2'], subjects: [U('bob')] } }, ADMIN);
    expect(status.gained.map((e) => [e.subject.name, e.namespace, e.verb])).toEqual([['bob', 'n2', 'list']]);
  });
});

describe('PolicyChangeReview with a guardrail in the chain', () => {
  // A GuardrailState stand-in: the compiled guardrails decided by the authorizer's own code, no informer.
  function guardrailChain(live: PolicyIndex, spec: AccessGuardrail['spec']): AuthorizerChain {
    const compiled = [new CompiledGuardrail({ metadata: { name: 'g' }, spec } as AccessGuardrail, () => { throw new Error('no conditions here'); })];
    const state = {
      all: compiled,
      namespaceNames: () => ['n1', 'n2'],
      decide: (attrs: AuthorizationAttributes, gs: readonly CompiledGuardrail[] = compiled) => decideWithGuardrails(gs, attrs, () => undefined, false),
    } as unknown as GuardrailState;
    const chain = new AuthorizerChain();
    chain.replace([new GuardrailAuthorizer('guardrail', state), new RbacAuthorizer('rbac', live)]);
    return chain;
  }
  const grant = (objects: Objects, spec: AccessGuardrail['spec'], changes: PolicyChangeItem[]) => {
    const live = indexOf(objects);
    return new PolicyChangeAnalyzer(live, new AccessIndex(live), guardrailChain(live, spec)).answer({ changes }, ADMIN);
  };
  const readSecrets = clusterRole('reader', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);

  it('moves what the guardrail denies to blockedByGuardrails, keeps the rest', async () => {
    const status = await grant({ clusterRoles: [readSecrets] }, { match: { verbs: ['*'], apiGroups: [''], resources: ['secrets'] }, subjects: [U('alice')] }, [
      { object: roleBinding('n1', 'b', 'ClusterRole', 'reader', [U('alice'), U('bob')]) },
    ]);
    expect(status.gained.map((e) => e.subject.name)).toEqual(['bob']);
    expect(status.blockedByGuardrails).toEqual([expect.objectContaining({ direction: 'Gained', guardrail: 'g', entry: expect.objectContaining({ subject: U('alice'), namespace: 'n1', verb: 'get' }) })]);
    expect(status.incomplete).toBe(false);
  });

  it('keeps a cluster-wide entry a namespace-restricted guardrail denies in part, naming it', async () => {
    const status = await grant({ clusterRoles: [readSecrets] }, { match: { verbs: ['*'], apiGroups: [''], resources: ['secrets'], namespaces: ['n2'] }, subjects: [U('alice')] }, [
      { object: clusterRoleBinding('b', 'reader', [U('alice')]) },
    ]);
    expect(status.blockedByGuardrails).toBeUndefined();
    expect(status.gained).toEqual([expect.objectContaining({ subject: U('alice'), verb: 'get', restrictedByGuardrails: ['g'] })]);
  });
});

describe('PolicyChangeReview diff with guardrails in the chain (property)', () => {
  // Guardrails over the same values the policies name, for some subjects or everyone.
  const guardrailSpecArb: fc.Arbitrary<AccessGuardrail['spec']> = fc.record({
    match: fc.oneof(
      ruleArb.filter((r) => !r.nonResourceURLs).map((r): AccessGuardrail['spec']['match'] => ({ ...r })),
      fc.constant<AccessGuardrail['spec']['match']>({ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['n1'] }),
    ),
    subjects: fc.constantFrom<Subject[]>([], [U('alice')], [G('devs')]),
    exceptions: fc.constantFrom<Subject[]>([], [U('bob')]),
  });
  function chainWith(live: PolicyIndex, specs: AccessGuardrail['spec'][]): AuthorizerChain {
    const compiled = specs.map((spec, i) => new CompiledGuardrail({ metadata: { name: `g${i}` }, spec } as AccessGuardrail, () => { throw new Error('no conditions here'); }));
    const state = {
      all: compiled,
      namespaceNames: () => ['n1', 'n2', 'n3'],
      decide: (attrs: AuthorizationAttributes, gs: readonly CompiledGuardrail[] = compiled) => decideWithGuardrails(gs, attrs, () => undefined, false),
    } as unknown as GuardrailState;
    const chain = new AuthorizerChain();
    chain.replace([new GuardrailAuthorizer('guardrail', state), new RbacAuthorizer('rbac', live)]);
    return chain;
  }

  it('gained and lost are what SubjectAccessReviews through the guardrails change; what a guardrail keeps unchanged is listed as blocked', async () => {
    await fc.assert(
      fc.asyncProperty(policyArb, changesArb, fc.array(guardrailSpecArb, { minLength: 1, maxLength: 2 }), async (objects, changes, specs) => {
        const live = indexOf(objects);
        const status = await new PolicyChangeAnalyzer(live, new AccessIndex(live), chainWith(live, specs)).answer({ changes }, ADMIN);
        const before = chainWith(indexOf(objects), specs);
        const after = chainWith(applied(objects, changes), specs);
        for (const s of SUBJECTS) {
          const who = userOf(s);
          for (const q of questions()) {
            const attrs = q.path !== undefined ? url(who, q.verb, q.path) : req(who, q.verb, q.apiGroup!, q.resource!, { ns: q.namespace, name: q.name, sub: q.subresource });
            const was = (await before.authorize(attrs)).decision === 'Allow';
            const nowResult = await after.authorize(attrs);
            const is = nowResult.decision === 'Allow';
            const guarded = (await before.authorize(attrs)).guardrail !== undefined || nowResult.guardrail !== undefined;
            const problem = (what: string) => new Error(`${what}: ${JSON.stringify(s)} ${JSON.stringify(q)} before ${was}, after ${is}\n${JSON.stringify(status, null, 1)}`);
            const gained = status.gained.filter((e) => covers(e, s, q));
            const lost = status.lost.filter((e) => covers(e, s, q));
            if (is && !was && !gained.length) throw problem('gained access not listed');
            if (was && !is && !lost.length && !guarded) throw problem('lost access not listed');
            for (const e of gained) if (!(is && !was) && !(e.restrictedByGuardrails?.length && guarded)) throw problem('listed as gained, reviews do not change');
            for (const e of lost) if (!(was && !is) && !(e.restrictedByGuardrails?.length && guarded)) throw problem('listed as lost, reviews do not change');
            for (const b of status.blockedByGuardrails ?? []) if (covers(b.entry, s, q) && is !== was) throw problem(`blocked ${b.direction} entry, yet the review changes`);
          }
        }
      }),
      { numRuns: 40 },
    );
  });
});

/** The store resource of each RBAC kind, for applying a committed change to an index. */
const RESOURCE_OF: Record<string, RbacResource> = { Role: ROLES_RESOURCE, ClusterRole: CLUSTER_ROLES_RESOURCE, RoleBinding: ROLE_BINDINGS_RESOURCE, ClusterRoleBinding: CLUSTER_ROLE_BINDINGS_RESOURCE };

describe('access history over a sequence of committed changes', () => {
  it('records at each change exactly the difference of SubjectAccessReview answers before and after it', async () => {
    await fc.assert(
      fc.asyncProperty(policyArb, changesArb, changesArb, async (objects, first, second) => {
        const sequence = [...first, ...second];
        // The recorder's own index, moved one committed change at a time.
        const index = indexOf(objects);
        const access = new AccessIndex(index);
        for (const [i, item] of sequence.entries()) {
          const object = item.object as { kind: RbacKind; metadata: { name: string; namespace?: string } };
          const namespace = object.kind === 'Role' || object.kind === 'RoleBinding' ? (object.metadata.namespace ?? '') : '';
          const diff = diffOfCommittedChange(index, access, { kind: object.kind, namespace, name: object.metadata.name, object: item.delete ? null : (object as never) });
          if (item.delete) index.remove(RESOURCE_OF[object.kind], namespace, object.metadata.name);
          else index.upsert(RESOURCE_OF[object.kind], object as never);
          const before = new RbacAuthorizer('before', applied(objects, sequence.slice(0, i)));
          const after = new RbacAuthorizer('after', applied(objects, sequence.slice(0, i + 1)));
          for (const s of SUBJECTS) {
            const who = userOf(s);
            for (const q of questions()) {
              const attrs = q.path !== undefined ? url(who, q.verb, q.path) : req(who, q.verb, q.apiGroup!, q.resource!, { ns: q.namespace, name: q.name, sub: q.subresource });
              const was = before.authorize(attrs).decision === 'Allow';
              const is = after.authorize(attrs).decision === 'Allow';
              const gained = diff.gained.some((e) => covers(e, s, q));
              const lost = diff.lost.some((e) => covers(e, s, q));
              if (gained !== (is && !was) || lost !== (was && !is)) {
                throw new Error(`change ${i} ${JSON.stringify(item)}, ${JSON.stringify(s)} ${JSON.stringify(q)}: before ${was}, after ${is}, gained ${gained}, lost ${lost}`);
              }
            }
          }
        }
        access.close();
      }),
      { numRuns: 25 },
    );
  });
});
