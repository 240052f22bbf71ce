import 'reflect-metadata';
import { cpus, loadavg } from 'node:os';
import { DataSource } from 'typeorm';
import { KubeObject } from '../src/apimachinery/types';
import { AuthorizationAttributes } from '../src/authorization/authorizer';
import { AuthorizerChain } from '../src/authorization/authorizer-chain';
import { BindingUsageRecorder } from '../src/authorization/binding-usage-recorder';
import { CLUSTER_ROLE_BINDINGS_RESOURCE, CLUSTER_ROLES_RESOURCE, PolicyIndex, RbacResource, ROLE_BINDINGS_RESOURCE } from '../src/authorization/rbac/policy-index';
import { RbacAuthorizer } from '../src/authorization/rbac/rbac-authorizer';
import { RbacIndex } from '../src/authorization/rbac/rbac-index.service';
import { resourceAttributes } from '../src/authorization/request-attributes';
import { OBJECT_STORE, ObjectStore } from '../src/storage/mvcc/object-store';
import { BenchClient } from './client';
import { seedObjects } from './rbac-authorization';
import { BenchServer, startBenchServer } from './servers';

/**
 * `npm run bench -- usage`: what counting binding usage costs a SubjectAccessReview, measured
 * in one run with recording on and off (`--binding-usage-recording=false`), in alternating
 * rounds so drift on a shared machine hits both alike. In process: one RBAC decision through
 * the authorizer chain. Over HTTPS: two servers in this process, the same 11,000 bindings in
 * each, SubjectAccessReviews that RBAC allows (so each is counted), 16 at a time. Fails when
 * the HTTPS throughput with recording is more than 3% below the throughput without.
 */
const GROUP = 'rbac.authorization.platform.io';
const API_VERSION = `${GROUP}/v1`;
const NAMESPACES = 100;
const ROLE_BINDINGS_PER_NAMESPACE = 100;
const CLUSTER_ROLE_BINDINGS = 1000;
const USERS = 2000;
const ROUNDS = 10;
const HTTPS_ROUNDS = 16;
const LIMIT_PERCENT = 3;

const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}), uid: `${namespace ?? ''}-${name}`, creationTimestamp: '2026-01-01T00:00:00Z' });
const user = (name: string) => ({ kind: 'User', apiGroup: GROUP, name });

export function* worldObjects(): Generator<{ resource: RbacResource; object: KubeObject }> {
  const resources = ['pods', 'secrets', 'configmaps', 'services', 'serviceaccounts'];
  for (const [i, resource] of resources.entries()) {
    const rules = [{ apiGroups: [''], resources: [resource], verbs: ['get', 'list', 'watch'] }];
    yield { resource: CLUSTER_ROLES_RESOURCE, object: { apiVersion: API_VERSION, kind: 'ClusterRole', metadata: meta(`reader-${i}`), rules } as KubeObject };
  }
  const binding = (kind: string, name: string, role: string, subject: string, namespace?: string) =>
    ({ apiVersion: API_VERSION, kind, metadata: meta(name, namespace), roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: role }, subjects: [user(subject)] }) as KubeObject;
  for (let n = 0; n < NAMESPACES; n++) {
    for (let b = 0; b < ROLE_BINDINGS_PER_NAMESPACE; b++) {
      const i = n * ROLE_BINDINGS_PER_NAMESPACE + b;
      yield { resource: ROLE_BINDINGS_RESOURCE, object: binding('RoleBinding', `rb-${b}`, `reader-${b % 5}`, `user-${i % USERS}`, `ns-${n}`) };
    }
  }
  for (let i = 0; i < CLUSTER_ROLE_BINDINGS; i++) {
    yield { resource: CLUSTER_ROLE_BINDINGS_RESOURCE, object: binding('ClusterRoleBinding', `crb-${i}`, `reader-${i % 5}`, `user-${i % USERS}`) };
  }
}

/** Questions RBAC allows: user-i reads what rb-(i mod 100) grants in ns-(i / 100). */
export function question(i: number): AuthorizationAttributes {
  const k = i % (NAMESPACES * ROLE_BINDINGS_PER_NAMESPACE);
  const namespace = `ns-${Math.floor(k / ROLE_BINDINGS_PER_NAMESPACE)}`;
  const resource = ['pods', 'secrets', 'configmaps', 'services', 'serviceaccounts'][k % ROLE_BINDINGS_PER_NAMESPACE % 5];
  return resourceAttributes({ user: { username: `user-${k % USERS}`, groups: [] }, verb: 'get', apiGroup: '', apiVersion: 'v1', resource, namespace, name: 'x' });
}

/** A decision traced (so not counted): its result names the granting binding. */
const tracedAnswer = (chain: AuthorizerChain, attrs: AuthorizationAttributes) => chain.authorize(attrs, { trace: [] });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentBelow = (on: number, off: number) => ((off - on) / off) * 100;

/** Nanoseconds per decision through the chain, recording on and off, alternating rounds. */
export async function benchUsageInProcess(): Promise<{ on: number; off: number; pairedNs: number }> {
  const lists = new Map<RbacResource, KubeObject[]>();
  for (const { resource, object } of worldObjects()) lists.set(resource, [...(lists.get(resource) ?? []), object]);
  const policy = new PolicyIndex();
  policy.replaceAll([...lists].map(([resource, items]) => ({ resource, items })));
  const chainOf = (recorder: BindingUsageRecorder) => {
    const chain = new AuthorizerChain(recorder);
    chain.replace([new RbacAuthorizer('rbac', policy)]);
    return chain;
  };
  const recording = new BindingUsageRecorder(true);
  // As the server runs it: the clock read once a second.
  recording.startClock();
  const on = chainOf(recording);
  const off = chainOf(new BindingUsageRecorder(false));
  const questions = Array.from({ length: 10_000 }, (_, i) => question(i * 7));
  const round = async (chain: AuthorizerChain, n: number) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const result = await chain.authorize(questions[i % questions.length]);
      if (result.decision !== 'Allow') throw new Error(`not allowed: ${JSON.stringify(questions[i % questions.length])}`);
    }
    return Number(process.hrtime.bigint() - started) / n;
  };
  await round(on, 20_000);
  await round(off, 20_000);
  const perOn: number[] = [];
  const perOff: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which goes first, as over HTTPS.
    for (const which of r % 2 ? ['off', 'on'] : ['on', 'off']) {
      global.gc?.();
      if (which === 'on') perOn.push(await round(on, 100_000));
      else perOff.push(await round(off, 100_000));
    }
  }
  const figures = { on: median(perOn), off: median(perOff), pairedNs: median(perOn.map((ns, i) => ns - perOff[i])) };
  // The recording alone, without the decision around it: the part of the difference that is not noise.
  const recorder = new BindingUsageRecorder(true);
  recorder.startClock();
  const allows = questions.map((q) => tracedAnswer(on, q));
  const results = await Promise.all(allows);
  const n = 10_000_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) recorder.record(results[i % results.length]);
  const recordNs = Number(process.hrtime.bigint() - started) / n;
  console.log(`recording one grant alone: ${recordNs.toFixed(1)} ns (${recorder.take().size} bindings counted)`);
  recorder.stopClock();
  recording.stopClock();
  console.log(
    `RBAC decision through the chain, in process (median of ${ROUNDS} rounds of 100,000): recording on ${figures.on.toFixed(0)} ns, off ${figures.off.toFixed(0)} ns` +
      ` (median of the rounds' differences ${figures.pairedNs.toFixed(0)} ns per decision)`,
  );
  return figures;
}

async function seeded(recording: boolean): Promise<BenchServer> {
  const server = await startBenchServer(undefined, { authorizationModes: ['RBAC'], bindingUsage: { recording, flushIntervalMs: 10_000 } });
  const store = server.running.app.get<ObjectStore>(OBJECT_STORE);
  await seedObjects(server.running.app.get(DataSource), worldObjects());
  if (!(await server.running.app.get(RbacIndex).waitForRevision(await store.currentRevision(), 300_000))) throw new Error('the RBAC index did not catch up');
  return server;
}

/** One round: requests per wall-clock second, and per CPU second of this process (client and both servers). */
async function reviewsPerSecond(client: BenchClient, first: number, count: number): Promise<{ wall: number; cpu: number }> {
  let next = 0;
  const cpuStart = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        const a = question(first + next++);
        const res = await client.request('POST', '/apis/authorization.platform.io/v1/subjectaccessreviews', {
          apiVersion: 'authorization.platform.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: a.user.username, resourceAttributes: { namespace: a.namespace, verb: a.verb, resource: a.resource, name: a.name } },
        });
        if (res.status !== 201 || !res.body.status.allowed) throw new Error(`SubjectAccessReview: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }),
  );
  const wall = count / (Number(process.hrtime.bigint() - started) / 1e9);
  const cpu = process.cpuUsage(cpuStart);
  return { wall, cpu: count / ((cpu.user + cpu.system) / 1e6) };
}

/**
 * SubjectAccessReviews per second over HTTPS on a server with recording and one without.
 * On a shared machine the wall clock mostly measures the neighbours, so the comparison is
 * per CPU second this process spent (what the throughput of a machine of its own would be).
 */
export async function benchUsageOverHttps(requests = Number(process.env.BENCH_USAGE_REQUESTS ?? 800)): Promise<{ on: number; off: number; below: number }> {
  const on = await seeded(true);
  const off = await seeded(false);
  try {
    const clients = { on: on.client(16), off: off.client(16) };
    await reviewsPerSecond(clients.on, 0, 300);
    await reviewsPerSecond(clients.off, 0, 300);
    const rates = { on: [] as Array<{ wall: number; cpu: number }>, off: [] as Array<{ wall: number; cpu: number }> };
    for (let r = 0; r < HTTPS_ROUNDS; r++) {
      // Alternate which goes first, so neither always follows the other's garbage.
      const order = r % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const which of order) {
        global.gc?.();
        rates[which].push(await reviewsPerSecond(clients[which], r * requests, requests));
      }
    }
    const cpu = { on: rates.on.map((x) => x.cpu), off: rates.off.map((x) => x.cpu) };
    const wall = { on: rates.on.map((x) => x.wall), off: rates.off.map((x) => x.wall) };
    // Each round of one server next to the same round of the other: the median of their
    // ratios cancels the drift of the machine's load, which moves both alike.
    const ratio = median(cpu.on.map((on, i) => on / cpu.off[i]));
    const figures = { on: median(cpu.on), off: median(cpu.off), below: (1 - ratio) * 100 };
    const counted = await on.client().request('GET', '/apis/access.platform.io/v1/bindingusages');
    const grants = (counted.body.items as Array<{ grants: number }>).reduce((sum, u) => sum + u.grants, 0);
    const list = (xs: number[]) => `[${xs.map((x) => x.toFixed(0)).join(', ')}]`;
    console.log(
      `SubjectAccessReview over HTTPS (16 concurrent, median of ${HTTPS_ROUNDS} rounds of ${requests}), per CPU second: recording on ${figures.on.toFixed(0)} req/s, off ${figures.off.toFixed(0)} req/s;` +
        ` median of the rounds' ratios ${figures.below.toFixed(1)}% below (limit ${LIMIT_PERCENT}%); rounds on ${list(cpu.on)}, off ${list(cpu.off)}`,
    );
    console.log(
      `  per wall-clock second: on ${median(wall.on).toFixed(0)} req/s, off ${median(wall.off).toFixed(0)} req/s (${percentBelow(median(wall.on), median(wall.off)).toFixed(1)}% below); rounds on ${list(wall.on)}, off ${list(wall.off)};` +
        ` ${grants} grants counted`,
    );
    console.log(`load average while measuring: ${loadavg().map((l) => l.toFixed(1)).join(', ')} on ${cpus().length} CPUs`);
    return figures;
  } finally {
    await on.close();
    await off.close();
  }
}

export async function runUsageBench(): Promise<void> {
  await benchUsageInProcess();
  const { below } = await benchUsageOverHttps();
  if (below > LIMIT_PERCENT) throw new Error(`SubjectAccessReview throughput with binding usage recording is ${below.toFixed(1)}% below the throughput without (limit ${LIMIT_PERCENT}%)`);
}

if (require.main === module) {
  runUsageBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
