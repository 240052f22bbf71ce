import 'reflect-metadata';
import { KubeObject } from '../src/apimachinery/types';
import { CompiledGuardrail, decideWithGuardrails } from '../src/access/guardrails/compiled-guardrail';
import { GuardrailAuthorizer } from '../src/access/guardrails/guardrail-authorizer';
import { GuardrailState } from '../src/access/guardrails/guardrail-state.service';
import { AccessGuardrail } from '../src/access/guardrails/guardrail-types';
import { AuthorizationAttributes } from '../src/authorization/authorizer';
import { AuthorizerChain } from '../src/authorization/authorizer-chain';
import { CLUSTER_ROLE_BINDINGS_RESOURCE, CLUSTER_ROLES_RESOURCE, PolicyIndex, RbacResource } from '../src/authorization/rbac/policy-index';
import { RbacAuthorizer } from '../src/authorization/rbac/rbac-authorizer';
import { resourceAttributes } from '../src/authorization/request-attributes';
import { compileMatchCondition, matchConditionEnvironment } from '../src/authorization/webhook/match-conditions';

/**
 * `npm run bench -- guardrails`: what the Guardrail authorizer adds to one decision of the
 * SubjectAccessReview path (the chain as a review asks it), in process, against a floor of
 * the same chain without it, in alternating paired rounds: with no guardrail (the default),
 * and with 50 guardrails of which 10 match the question's resource but spare its subject,
 * 5 of them through a CEL condition. Fails when the empty authorizer costs more than 5% of
 * the floor's decision.
 */
const GROUP = 'rbac.authorization.platform.io';
const ROUNDS = 10;
const PER_ROUND = 100_000;
const EMPTY_LIMIT_PERCENT = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function policy(): PolicyIndex {
  const index = new PolicyIndex();
  const lists = new Map<RbacResource, KubeObject[]>([
    [CLUSTER_ROLES_RESOURCE, [{ apiVersion: `${GROUP}/v1`, kind: 'ClusterRole', metadata: { name: 'reader', uid: 'r' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] }]],
    [
      CLUSTER_ROLE_BINDINGS_RESOURCE,
      Array.from({ length: 1000 }, (_, i) => ({
        apiVersion: `${GROUP}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: `b-${i}`, uid: `b-${i}` },
        roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: 'reader' },
        subjects: [{ kind: 'User', apiGroup: GROUP, name: `user-${i}` }],
      })),
    ],
  ]);
  index.replaceAll([...lists].map(([resource, items]) => ({ resource, items })));
  return index;
}

async function guardrails(): Promise<CompiledGuardrail[]> {
  const env = await matchConditionEnvironment(false);
  const compile = (e: string) => compileMatchCondition(env, e);
  return Array.from({ length: 50 }, (_, i) => {
    const matchesQuestion = i % 5 === 0;
    const object: AccessGuardrail = {
      apiVersion: 'access.platform.io/v1',
      kind: 'AccessGuardrail',
      metadata: { name: `g-${String(i).padStart(2, '0')}` },
      spec: {
        match: { verbs: ['get', 'list'], apiGroups: [''], resources: [matchesQuestion ? 'secrets' : `things-${i}`], namespaces: ['prod', 'kube-system'] },
        ...(matchesQuestion && i % 10 === 0 ? { condition: "request.user.startsWith('intruder-')" } : { subjects: [{ kind: 'Group', apiGroup: GROUP, name: 'contractors' }] }),
      },
    };
    return new CompiledGuardrail(object, compile);
  });
}

/** The Guardrail authorizer over a fixed set, as the server's state would hold it. */
function authorizerOver(set: CompiledGuardrail[]): GuardrailAuthorizer {
  const state = {
    all: set,
    decide: (attrs: AuthorizationAttributes) => (set.length ? decideWithGuardrails(set, attrs, () => undefined, false) : { decision: 'NoOpinion' as const, reason: '' }),
    followsStore: undefined,
  };
  return new GuardrailAuthorizer('guardrail', state as unknown as GuardrailState);
}

export async function runGuardrailsBench(): Promise<void> {
  const index = policy();
  const chain = (withGuardrails?: CompiledGuardrail[]) => {
    const c = new AuthorizerChain();
    c.replace([...(withGuardrails ? [authorizerOver(withGuardrails)] : []), new RbacAuthorizer('rbac', index)]);
    return c;
  };
  const floor = chain();
  const empty = chain([]);
  const fifty = chain(await guardrails());
  const questions = Array.from({ length: 1000 }, (_, i) =>
    resourceAttributes({ user: { username: `user-${i}`, groups: ['system:authenticated'] }, verb: 'get', apiGroup: '', apiVersion: 'v1', resource: 'secrets', namespace: 'prod', name: 'db' }),
  );
  const round = async (c: AuthorizerChain, n: number) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const result = await c.authorize(questions[i % questions.length], { trace: undefined });
      if (result.decision !== 'Allow') throw new Error(`not allowed: ${result.reason}`);
    }
    return Number(process.hrtime.bigint() - started) / n;
  };
  for (const c of [floor, empty, fifty]) await round(c, 20_000);
  const per = { floor: [] as number[], empty: [] as number[], fifty: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? (['fifty', 'empty', 'floor'] as const) : (['floor', 'empty', 'fifty'] as const);
    for (const which of order) {
      global.gc?.();
      per[which].push(await round({ floor, empty, fifty }[which], PER_ROUND));
    }
  }
  const paired = (xs: number[]) => median(xs.map((ns, i) => ns - per.floor[i]));
  const f = median(per.floor);
  console.log(`SubjectAccessReview decision through the chain, in process (median of ${ROUNDS} paired rounds of ${PER_ROUND}):`);
  console.log(`  floor (no Guardrail authorizer): ${f.toFixed(0)} ns`);
  console.log(`  Guardrail authorizer, no guardrail: ${median(per.empty).toFixed(0)} ns (paired difference ${paired(per.empty).toFixed(0)} ns)`);
  console.log(`  Guardrail authorizer, 50 guardrails (10 match the resource, 5 by condition): ${median(per.fifty).toFixed(0)} ns (paired difference ${paired(per.fifty).toFixed(0)} ns)`);
  const emptyPercent = (paired(per.empty) / f) * 100;
  if (emptyPercent > EMPTY_LIMIT_PERCENT) throw new Error(`an empty Guardrail authorizer costs ${emptyPercent.toFixed(1)}% of a decision (limit ${EMPTY_LIMIT_PERCENT}%)`);
}

if (require.main === module) {
  runGuardrailsBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
