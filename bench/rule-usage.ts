import 'reflect-metadata';
import { cpus, loadavg } from 'node:os';
import { KubeObject } from '../src/apimachinery/types';
import { DEFAULT_USAGE_LIMITS, UsageMemory } from '../src/access/least-privilege/usage-memory';
import { AuthorizationAttributes } from '../src/authorization/authorizer';
import { AuthorizerChain } from '../src/authorization/authorizer-chain';
import { BindingUsageRecorder } from '../src/authorization/binding-usage-recorder';
import { PolicyIndex, RbacResource } from '../src/authorization/rbac/policy-index';
import { RbacAuthorizer } from '../src/authorization/rbac/rbac-authorizer';
import { resourceAttributes } from '../src/authorization/request-attributes';
import { question, worldObjects } from './binding-usage';

/**
 * `npm run bench -- rule-usage`: what recording rule-level usage and refusals adds to an RBAC
 * decision, in process, in alternating paired rounds (as `-- usage` does): the chain with the
 * binding usage recorder alone, and with the rule-level memory attached (what the server runs);
 * and the heap that 10,000 distinct recorded attributes take. The cost per HTTPS request is
 * `-- usage`'s comparison, whose recording side now includes the rule-level records.
 */
const ROUNDS = 10;
const PER_ROUND = 100_000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function policyIndex(): PolicyIndex {
  const lists = new Map<RbacResource, KubeObject[]>();
  for (const { resource, object } of worldObjects()) lists.set(resource, [...(lists.get(resource) ?? []), object]);
  const policy = new PolicyIndex();
  policy.replaceAll([...lists].map(([resource, items]) => ({ resource, items })));
  return policy;
}

export async function benchRuleUsageInProcess(): Promise<{ bindingOnly: number; withRules: number; pairedNs: number; percent: number }> {
  const policy = policyIndex();
  const chainOf = (recorder: BindingUsageRecorder) => {
    const chain = new AuthorizerChain(recorder);
    chain.replace([new RbacAuthorizer('rbac', policy)]);
    return chain;
  };
  const bindingRecorder = new BindingUsageRecorder(true);
  bindingRecorder.startClock();
  const ruleRecorder = new BindingUsageRecorder(true);
  ruleRecorder.startClock();
  const memory = new UsageMemory(policy);
  ruleRecorder.attach(memory);
  const chains = { bindingOnly: chainOf(bindingRecorder), withRules: chainOf(ruleRecorder) };
  const questions = Array.from({ length: 10_000 }, (_, i) => question(i * 7));
  const round = async (chain: AuthorizerChain, n: number) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const result = await chain.authorize(questions[i % questions.length]);
      if (result.decision !== 'Allow') throw new Error('not allowed');
    }
    return Number(process.hrtime.bigint() - started) / n;
  };
  await round(chains.bindingOnly, 20_000);
  await round(chains.withRules, 20_000);
  const ns = { bindingOnly: [] as number[], withRules: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const which of r % 2 ? (['withRules', 'bindingOnly'] as const) : (['bindingOnly', 'withRules'] as const)) {
      global.gc?.();
      ns[which].push(await round(chains[which], PER_ROUND));
    }
    // As a flush does, so the memory holds one interval's records.
    memory.take();
    bindingRecorder.take();
    ruleRecorder.take();
  }
  bindingRecorder.stopClock();
  ruleRecorder.stopClock();
  // The rule-level record alone, without the decision around it (as `-- usage` measures the
  // binding's): what the paired rounds' difference is made of once the machine's noise is out.
  const traced = await Promise.all(questions.map((q) => chains.bindingOnly.authorize(q, { trace: [] })));
  const alone = new UsageMemory(policy);
  const record = (n: number) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) alone.allowed(traced[i % traced.length], questions[i % questions.length], 1_700_000_000_000);
    return Number(process.hrtime.bigint() - started) / n;
  };
  const firstNs = record(questions.length);
  const heldNs = median(Array.from({ length: 5 }, () => record(2_000_000)));
  console.log(`recording one decision's rule-level record alone: ${heldNs.toFixed(0)} ns when held (median of 5 rounds of 2,000,000 over ${questions.length} bindings), ${firstNs.toFixed(0)} ns for a new one`);
  const pairedNs = median(ns.withRules.map((x, i) => x - ns.bindingOnly[i]));
  const figures = { bindingOnly: median(ns.bindingOnly), withRules: median(ns.withRules), pairedNs, percent: (pairedNs / median(ns.bindingOnly)) * 100 };
  console.log(
    `RBAC decision through the chain, in process (median of ${ROUNDS} rounds of ${PER_ROUND}): binding usage only ${figures.bindingOnly.toFixed(0)} ns, with rule-level usage ${figures.withRules.toFixed(0)} ns` +
      ` (median of the rounds' differences ${pairedNs.toFixed(0)} ns per decision, ${figures.percent.toFixed(1)}%)`,
  );
  return figures;
}

/** Heap per 10,000 distinct recorded attributes (allowed and refused), measured with gc around the filling. */
export async function benchRuleUsageMemory(): Promise<{ allowedBytes: number; deniedBytes: number }> {
  if (!global.gc) throw new Error('run with --expose-gc');
  const policy = policyIndex();
  const recorder = new BindingUsageRecorder(true, () => 1_700_000_000_000);
  const memory = new UsageMemory(policy, { ...DEFAULT_USAGE_LIMITS, maxRuleUsesPerBinding: 10_000, maxDenialsPerUser: 10_000 });
  recorder.attach(memory);
  const chain = new AuthorizerChain(recorder);
  chain.replace([new RbacAuthorizer('rbac', policy)]);
  // Allowed: one user's binding, 10,000 distinct (verb, resource) pairs is not possible with
  // its rules; distinct namespaces through a ClusterRoleBinding are: crb-0 grants user-0 everywhere.
  const allowed = Array.from({ length: 10_000 }, (_, i) =>
    resourceAttributes({ user: { username: 'user-0', groups: [] }, verb: 'get', apiGroup: '', apiVersion: 'v1', resource: 'pods', namespace: `namespace-${i}`, name: 'x' }),
  );
  const denied: AuthorizationAttributes[] = Array.from({ length: 10_000 }, (_, i) =>
    resourceAttributes({ user: { username: 'nobody', groups: [] }, verb: 'get', apiGroup: '', apiVersion: 'v1', resource: 'pods', namespace: `namespace-${i}`, name: 'x' }),
  );
  const heapAfter = async (batch: AuthorizationAttributes[]) => {
    global.gc!();
    const before = process.memoryUsage().heapUsed;
    for (const attrs of batch) await chain.authorize(attrs);
    global.gc!();
    return process.memoryUsage().heapUsed - before;
  };
  // Warm the chain's own caches first, then measure each kind of record.
  await chain.authorize(allowed[0]);
  memory.take();
  const allowedBytes = await heapAfter(allowed);
  const deniedBytes = await heapAfter(denied);
  console.log(
    `memory per 10,000 distinct recorded attributes: allowed ${(allowedBytes / 1024 / 1024).toFixed(2)} MiB (${(allowedBytes / 10_000).toFixed(0)} B each; ${memory.size.uses} held),` +
      ` refused ${(deniedBytes / 1024 / 1024).toFixed(2)} MiB (${(deniedBytes / 10_000).toFixed(0)} B each; ${memory.size.denials} held)`,
  );
  return { allowedBytes, deniedBytes };
}

export async function runRuleUsageBench(): Promise<void> {
  await benchRuleUsageMemory();
  await benchRuleUsageInProcess();
  console.log(`load average while measuring: ${loadavg().map((l) => l.toFixed(1)).join(', ')} on ${cpus().length} CPUs`);
}

if (require.main === module) {
  runRuleUsageBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
