import fc from 'fast-check';
import { AccessAnalyzer } from '../../../src/access/access-analyzer';
import { AccessIndex } from '../../../src/access/access-index';
import { CompiledGuardrail, decideWithGuardrails } from '../../../src/access/guardrails/compiled-guardrail';
import { GuardrailAuthorizer } from '../../../src/access/guardrails/guardrail-authorizer';
import { GuardrailState } from '../../../src/access/guardrails/guardrail-state.service';
import { AccessGuardrail, AccessGuardrailSpec } from '../../../src/access/guardrails/guardrail-types';
import { ALL_AUTHENTICATED, UserInfo } from '../../../src/apimachinery/user-info';
import { PolicyRule, Subject } from '../../../src/apis/rbac/types';
import { AuthorizationAttributes } from '../../../src/authorization/authorizer';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { ruleAllows } from '../../../src/authorization/rbac/rule-matching';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import { compileMatchCondition, matchConditionEnvironment } from '../../../src/authorization/webhook/match-conditions';
import { CelEnvironment } from '../../../src/cel';
import { clusterRole, clusterRoleBinding, G, indexOf, Objects, req, roleBinding, U, url } from '../authorization/rbac-fixtures';

/**
 * Guardrails, for random policies, guardrails and requests: a SubjectAccessReview allows
 * exactly when RBAC allows and no guardrail matches the request (its subjects name the caller,
 * no exception does, and its condition is true, or errors under failurePolicy Deny); and
 * who-can (ResourceAccessReview) agrees with the reviews: every user and group it lists is
 * allowed, every blocked one is denied, and every identity allowed is listed (itself or through
 * system:authenticated).
 */

const VERBS = ['get', 'list', 'create', '*'];
const GROUPS = ['', 'apps', '*'];
const RESOURCES = ['pods', 'pods/log', 'secrets', '*'];
const NAMES: string[][] = [[], ['a']];
const URLS = ['/healthz', '/api*'];
const NAMESPACES = ['n1', 'n2'];
const SUBJECTS: Subject[] = [U('alice'), U('bob'), G('devs'), G(ALL_AUTHENTICATED)];

/** Conditions with what they say of a request, so the model does not need CEL. */
const CONDITIONS: Array<{ expression?: string; holds: (u: UserInfo) => boolean | 'error' }> = [
  { holds: () => true },
  { expression: "request.user == 'alice'", holds: (u) => u.username === 'alice' },
  { expression: "'devs' in request.groups", holds: (u) => u.groups.includes('devs') },
  // A key no request carries: evaluating it always fails.
  { expression: "request.extra['absent'][0] == 'x'", holds: () => 'error' },
];

const pick = <T>(values: readonly T[], max = 2) => fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: max });
const ruleArb: fc.Arbitrary<PolicyRule> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ verbs: pick(VERBS), apiGroups: pick(GROUPS), resources: pick(RESOURCES), resourceNames: fc.constantFrom(...NAMES) }) },
  { weight: 1, arbitrary: fc.record({ verbs: pick(VERBS), nonResourceURLs: pick(URLS) }) },
);
const subjectsArb = fc.uniqueArray(fc.constantFrom(...SUBJECTS), { minLength: 1, maxLength: 2, selector: (s) => `${s.kind}/${s.name}` });
const policyArb: fc.Arbitrary<Objects> = fc.record({
  clusterRoles: fc.tuple(fc.array(ruleArb, { maxLength: 2 }), fc.array(ruleArb, { maxLength: 2 })).map((rs) => rs.map((rules, i) => clusterRole(`r${i}`, rules))),
  clusterRoleBindings: fc.array(fc.tuple(fc.constantFrom('r0', 'r1'), subjectsArb), { maxLength: 2 }).map((bs) => bs.map(([r, s], i) => clusterRoleBinding(`crb${i}`, r, s))),
  roleBindings: fc
    .array(fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom('r0', 'r1'), subjectsArb), { maxLength: 2 })
    .map((bs) => bs.map(([ns, r, s], i) => roleBinding(ns, `rb${i}`, 'ClusterRole', r, s))),
});

interface GuardrailCase {
  spec: AccessGuardrailSpec;
  condition: (typeof CONDITIONS)[number];
}
const guardrailArb: fc.Arbitrary<GuardrailCase> = fc
  .record({
    rule: ruleArb,
    namespaces: fc.constantFrom<string[]>([], ['n1']),
    subjects: fc.constantFrom<Subject[]>([], [U('alice')], [G('devs')], [U('bob'), G('devs')]),
    exceptions: fc.constantFrom<Subject[]>([], [U('bob')], [G('devs')]),
    condition: fc.constantFrom(...CONDITIONS),
    failurePolicy: fc.constantFrom<'Deny' | 'NoOpinion' | undefined>(undefined, 'Deny', 'NoOpinion'),
  })
  .map(({ rule, namespaces, subjects, exceptions, condition, failurePolicy }) => ({
    condition,
    spec: {
      match: { ...rule, ...(rule.resources && namespaces.length ? { namespaces } : {}) },
      subjects,
      exceptions,
      ...(condition.expression ? { condition: condition.expression } : {}),
      ...(failurePolicy ? { failurePolicy } : {}),
      message: 'no',
    },
  }));

const IDENTITIES: UserInfo[] = [
  { username: 'alice', groups: [ALL_AUTHENTICATED] },
  { username: 'bob', groups: [ALL_AUTHENTICATED] },
  { username: 'carol', groups: [ALL_AUTHENTICATED] },
  { username: 'alice', groups: ['devs', ALL_AUTHENTICATED] },
  { username: 'bob', groups: ['devs', ALL_AUTHENTICATED] },
  { username: '', groups: ['devs', ALL_AUTHENTICATED] },
];

type Question = { verb: string; apiGroup?: string; resource?: string; subresource?: string; name?: string; namespace?: string; path?: string };
const questionArb: fc.Arbitrary<Question> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      verb: fc.constantFrom('get', 'list', 'create', 'delete'),
      apiGroup: fc.constantFrom('', 'apps'),
      resource: fc.constantFrom('pods', 'secrets', 'deployments'),
      subresource: fc.constantFrom('', 'log'),
      name: fc.constantFrom('', 'a', 'b'),
      namespace: fc.constantFrom('', 'n1', 'n2'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ verb: fc.constantFrom('get', 'post'), path: fc.constantFrom('/healthz', '/api/v1', '/other') }) },
);
const attrsOf = (who: UserInfo, q: Question): AuthorizationAttributes =>
  q.path !== undefined ? url(who, q.verb, q.path) : req(who, q.verb, q.apiGroup!, q.resource!, { ns: q.namespace, name: q.name, sub: q.subresource });

/** The rule for one guardrail, written from its words: match, subjects and exceptions, condition, failure policy. */
function modelDenies(g: GuardrailCase, attrs: AuthorizationAttributes): boolean {
  const match = g.spec.match!;
  // "verbs, API groups, resources (with subresources), resource names ... with RBAC's matching rules"
  if (!ruleAllows({ verbs: match.verbs!, apiGroups: match.apiGroups, resources: match.resources, resourceNames: match.resourceNames, nonResourceURLs: match.nonResourceURLs }, attrs)) return false;
  // A namespace list: the request's namespace, or a collection read across all of them.
  if (attrs.isResourceRequest && match.namespaces?.length) {
    const ns = attrs.namespace;
    if (ns === '' ? !['list', 'watch', 'deletecollection'].includes(attrs.verb) : !match.namespaces.includes(ns)) return false;
  }
  const names = (s: Subject) => (s.kind === 'User' ? attrs.user.username === s.name : attrs.user.groups.includes(s.name));
  if (g.spec.exceptions!.some(names)) return false;
  if (g.spec.subjects!.length && !g.spec.subjects!.some(names)) return false;
  const holds = g.condition.holds(attrs.user);
  return holds === 'error' ? g.spec.failurePolicy !== 'NoOpinion' : holds;
}

let env: CelEnvironment;
beforeAll(async () => {
  env = await matchConditionEnvironment(false);
});

/** The users and groups a guardrail's exceptions name. */
const exceptionsOf = (g: GuardrailCase | undefined): Array<{ kind: string; name: string }> => (g?.spec.exceptions ?? []).filter((e) => e.kind === 'User' || e.kind === 'Group');

function chainOf(objects: Objects, guardrails: GuardrailCase[]) {
  const live = indexOf(objects);
  const compiled = guardrails.map((g, i) => new CompiledGuardrail({ metadata: { name: `g${i}` }, spec: g.spec } as AccessGuardrail, (e) => compileMatchCondition(env, e)));
  const state = {
    all: compiled,
    namespaceNames: () => NAMESPACES,
    decide: (attrs: AuthorizationAttributes, gs: readonly CompiledGuardrail[] = compiled) => decideWithGuardrails(gs, attrs, () => undefined, false),
  } as unknown as GuardrailState;
  const chain = new AuthorizerChain();
  const rbac = new RbacAuthorizer('rbac', live);
  chain.replace([new GuardrailAuthorizer('guardrail', state), rbac]);
  return { chain, rbac, analyzer: new AccessAnalyzer(chain, live, new AccessIndex(live)) };
}

const guardrailsArb = fc.array(guardrailArb, { minLength: 0, maxLength: 3 });

describe('guardrails (property)', () => {
  it('a SubjectAccessReview allows exactly when RBAC allows and no guardrail matches', async () => {
    await fc.assert(
      fc.asyncProperty(policyArb, guardrailsArb, fc.array(questionArb, { minLength: 1, maxLength: 8 }), async (objects, guardrails, questions) => {
        const { chain, rbac } = chainOf(objects, guardrails);
        for (const who of IDENTITIES) {
          for (const q of questions) {
            const attrs = attrsOf(who, q);
            const result = await chain.authorize(attrs);
            const expected = rbac.authorize(attrs).decision === 'Allow' && !guardrails.some((g) => modelDenies(g, attrs));
            if ((result.decision === 'Allow') !== expected) throw new Error(`${JSON.stringify(who)} ${JSON.stringify(q)}: ${result.decision}, expected allowed=${expected}`);
            // A guardrail's denial is a Deny (the review says denied: true), never a mere no opinion.
            const denier = guardrails.findIndex((g) => modelDenies(g, attrs));
            if (denier >= 0 && (result.decision !== 'Deny' || result.guardrail !== `g${denier}`)) throw new Error(`${JSON.stringify(q)}: ${JSON.stringify(result)}, expected Deny by g${denier}`);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('who-can agrees with the reviews: listed subjects are allowed, blocked ones denied, and every allowed identity is listed', async () => {
    await fc.assert(
      fc.asyncProperty(policyArb, guardrailsArb, questionArb.filter((q) => q.path === undefined), async (objects, guardrails, q) => {
        const { chain, analyzer } = chainOf(objects, guardrails);
        const who = analyzer.whoCan(attrsOf({ username: '', groups: [] }, q));
        const allowed = async (u: UserInfo) => (await chain.authorize(attrsOf(u, q))).decision === 'Allow';
        const fail = (what: string) => {
          throw new Error(`${what}: ${JSON.stringify(q)} ${JSON.stringify(who)}`);
        };
        for (const name of who.users) if (!(await allowed({ username: name, groups: [ALL_AUTHENTICATED] }))) fail(`listed user ${name} is denied`);
        for (const group of who.groups) {
          if (group !== 'system:masters' && !(await allowed({ username: '', groups: group === ALL_AUTHENTICATED ? [group] : [group, ALL_AUTHENTICATED] }))) fail(`listed group ${group} is denied`);
        }
        for (const b of who.blocked ?? []) {
          const identity = b.kind === 'User' ? { username: b.name, groups: [ALL_AUTHENTICATED] } : { username: '', groups: [b.name, ALL_AUTHENTICATED] };
          if (await allowed(identity)) fail(`blocked ${b.kind} ${b.name} is allowed`);
        }
        for (const identity of IDENTITIES) {
          if (!(await allowed(identity))) continue;
          const listed = who.users.includes(identity.username) || identity.groups.some((g) => who.groups.includes(g));
          // who-can judges each subject as bindings name it: a blocked user without the groups it
          // may have, a blocked group without who its members are. A request is spared by an
          // exception naming its user or one of its groups, which who-can cannot know.
          const sparedInRequest = (who.blocked ?? []).some(
            (b) =>
              (b.kind === 'User' ? b.name === identity.username : identity.groups.includes(b.name)) &&
              exceptionsOf(guardrails[Number(b.guardrail.slice(1))]).some((e) => (e.kind === 'User' ? e.name === identity.username : identity.groups.includes(e.name))),
          );
          if (!listed && !sparedInRequest) fail(`${JSON.stringify(identity)} is allowed and not listed`);
        }
      }),
      { numRuns: 150 },
    );
  });
});
