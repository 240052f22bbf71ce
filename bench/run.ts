import 'reflect-metadata';
import { Client } from 'pg';
import { objectKey } from '../src/apimachinery/store-key';
import { ServerOptions } from '../src/config/options';
import { roleType } from '../src/rbac/kinds/kinds';
import { OBJECT_STORE, ObjectStore } from '../src/storage/mvcc/object-store';
import { runAccessReviewBench } from './access-reviews';
import { runDecisionConsistencyBench } from './decision-consistency';
import { runMetricsCostBench } from './metrics-cost';
import { runAuditStagesBench } from './audit-stages';
import { runAuthnBench } from './authn';
import { runOidcBench } from './oidc';
import { runAccessBench } from './access';
import { runPolicyChangeBench } from './policy-change';
import { runUsageBench } from './binding-usage';
import { runRuleUsageBench } from './rule-usage';
import { runAccessRequestBench } from './access-requests';
import { runGuardrailsBench } from './guardrails';
import { runEscalationPathsBench } from './escalation-paths';
import { runAccessMatrixBench } from './access-matrix';
import { runAccessHistoryBench } from './access-history';
import { BenchClient, percentile } from './client';
import { runCodecBench } from './codecs';
import { runProcessBench } from './process';
import { runRoleBindingsMemory, runSoakBench } from './soak';
import { runRbacBench } from './rbac-authorization';
import { runWatchMemoryBench } from './watch-memory';
import { runCreatesBench } from './creates';
import { runScaleBench } from './scale';
import { runWhoCanBench } from './who-can';
import { runStallsBench } from './stalls';
import { runFuzzMemoryBench } from './fuzz-memory';
import { runFailoverBench } from './failover';
import { runRevisionCounterBench } from './revision-counter';
import { BenchServer, startBareFanOut, startBenchServer } from './servers';
import { describeDelays, now as fanOutNow, openWatchers } from './watch-fan-out';
import { mainThreadCpuMs } from './main-thread-cost';
import { issueClientCertificate } from '../src/server/certificates';

/**
 * `npm run bench`: list paging, watch fan-out and create throughput, each against a bare
 * Nest + Express HTTPS endpoint measured in the same run where a baseline makes sense.
 * Figures go to stdout; the issue notes quote them. `npm run bench -- codecs` runs only the
 * in-process encode/decode figures of the response formats (bench/codecs.ts); `-- creates`
 * only create throughput against its floor (bench/creates.ts); `-- metrics-cost`
 * only the SubjectAccessReview benchmark with and without request metrics (bench/metrics-cost.ts);
 * `-- watch-memory` only the memory left by watchers cut off for not reading (bench/watch-memory.ts);
 * `-- fan-out` only the watch fan-out (bench/watch-fan-out.ts) on each engine;
 * `-- soak` only heap and RSS over 100,000 writes (bench/soak.ts);
 * `-- memory` (or `-- idle`, `-- startup`) only whole-process start-up, idle RSS and idle CPU (bench/process.ts);
 * `-- rolebindings` only the memory after 20,000 RoleBindings (bench/soak.ts);
 * `-- stalls` only how long single heavy requests and a fuzz hold the event loop (bench/stalls.ts);
 * `-- fuzz-memory` only the memory a fuzz leaves behind (bench/fuzz-memory.ts);
 * `-- failover` only the failover harness on Patroni, HAProxy and PgBouncer (bench/failover.ts);
 * `-- counter` only the single revision counter's creates per second (bench/revision-counter.ts).
 * `-- who-can` only the scale bench's ResourceAccessReview, on a bulk-loaded server (bench/who-can.ts).
 */
const ROLE = (name: string) => ({ metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] });
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const FAN_OUT_WATCHERS = Number(process.env.BENCH_FAN_OUT_WATCHERS ?? 1000);
const FAN_OUT_WRITES = Number(process.env.BENCH_FAN_OUT_WRITES ?? 20);
const PG_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

async function postgresReachable(): Promise<boolean> {
  const c = new Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

async function ensureNamespace(client: BenchClient, name: string) {
  const res = await client.request('POST', '/api/v1/namespaces', { metadata: { name } });
  if (res.status !== 201 && res.status !== 409) throw new Error(`namespace ${name}: ${res.status}`);
}

async function runConcurrent(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await task(next++);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function listPaging(server: BenchServer, label: string, items: number, page: number): Promise<void> {
  const store = server.running.app.get<ObjectStore>(OBJECT_STORE);
  const client = server.client(4);
  await ensureNamespace(client, 'bench-list');
  const seedStart = Date.now();
  await runConcurrent(items, 8, async (i) => {
    const name = `r-${String(i).padStart(6, '0')}`;
    await store.create(
      objectKey(roleType, 'bench-list', name),
      { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role', ...ROLE(name), metadata: { name, namespace: 'bench-list', uid: name, creationTimestamp: new Date().toISOString() } },
    );
  });
  console.log(`list (${label}): seeded ${items} Roles in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

  const measure = async (pageSize: number | undefined) => {
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 2);
    const started = process.hrtime.bigint();
    let count = 0;
    let pages = 0;
    let token: string | undefined;
    do {
      const q = pageSize ? `?limit=${pageSize}${token ? `&continue=${encodeURIComponent(token)}` : ''}` : '';
      const res = await client.request('GET', `${RBAC}/namespaces/bench-list/roles${q}`);
      if (res.status !== 200) throw new Error(`list: ${res.status}`);
      count += res.body.items.length;
      pages++;
      token = res.body.metadata.continue;
    } while (token);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    clearInterval(sampler);
    return { seconds, count, pages, peakMiB: (peak - before) / 1048576 };
  };
  const paged = await measure(page);
  const whole = await measure(undefined);
  console.log(
    `list (${label}): ${paged.count} Roles in ${paged.pages} pages of ${page}: ${paged.seconds.toFixed(2)} s, peak heap growth ${paged.peakMiB.toFixed(1)} MiB` +
      ` | unpaged: ${whole.seconds.toFixed(2)} s, peak heap growth ${whole.peakMiB.toFixed(1)} MiB (ratio paged/unpaged memory ${(paged.peakMiB / whole.peakMiB).toFixed(2)})`,
  );
}

/** Where a fan-out is measured: the watch to open (many times) and where a write goes. */
interface FanOutTarget {
  url: string;
  watchPath: string;
  writePath: string;
  tls: { ca: string; cert: string; key: string };
  client: BenchClient;
}

interface FanOutFigures {
  delays: number[];
  writeMs: number;
  firstMs: number;
  cpuUsPerDelivery: number;
}

async function measureFanOut(target: FanOutTarget, watchers: number, writes: number): Promise<FanOutFigures> {
  const fanOut = await openWatchers({ url: target.url, path: target.watchPath, tls: target.tls, watchers });
  const delays: number[] = [];
  const firsts: number[] = [];
  const writeMs: number[] = [];
  const warmup = 3;
  let cpuMs = 0;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  try {
    for (let w = 0; w < warmup + writes; w++) {
      const name = `fan-${w}`;
      const cpuBefore = mainThreadCpuMs() ?? 0;
      const t0 = fanOutNow();
      const res = await target.client.request('POST', target.writePath, ROLE(name));
      const answered = fanOutNow();
      if (res.status !== 201) throw new Error(`fan-out write: ${res.status}`);
      const at = await fanOut.expect(name, 20_000);
      if (w < warmup) continue;
      cpuMs += (mainThreadCpuMs() ?? 0) - cpuBefore;
      writeMs.push(answered - t0);
      firsts.push(Math.min(...at) - t0);
      delays.push(...at.map((t) => t - t0));
    }
  } finally {
    await fanOut.close();
  }
  return { delays, writeMs: median(writeMs), firstMs: median(firsts), cpuUsPerDelivery: (cpuMs * 1000) / (writes * watchers) };
}

/**
 * One write at a time to `watchers` watches (bench/watch-fan-out.ts), against its floor in the
 * same run: a bare Nest + Express HTTPS app writing each posted object to as many open streams.
 */
async function watchFanOut(server: BenchServer, label: string, watchers: number, writes: number): Promise<void> {
  const client = server.client(4);
  await ensureNamespace(client, 'bench-watch');
  const list = await client.request('GET', `${RBAC}/namespaces/bench-watch/roles`);
  const rv = list.body.metadata.resourceVersion;
  const m = server.running.material;
  const watcher = issueClientCertificate(m.clientCaPems[0], m.caKeyPem!, 'bench-watcher', ['system:masters']);
  const tls = { ca: m.caCertPem, cert: watcher.certPem, key: watcher.keyPem };
  const bare = await startBareFanOut({ key: m.servingKeyPem, cert: m.servingCertPem });
  const bareClient = new BenchClient(bare.url, { ca: m.caCertPem }, 4);
  const describe = (name: string, f: FanOutFigures) =>
    `${name}: ${describeDelays(f.delays)}; write answered ${f.writeMs.toFixed(1)} ms, first delivery ${f.firstMs.toFixed(1)} ms (medians); server thread CPU ${f.cpuUsPerDelivery.toFixed(1)} us per delivery`;
  try {
    const floor = await measureFanOut({ url: bare.url, watchPath: '/watch', writePath: '/watch', tls, client: bareClient }, watchers, writes);
    const ours = await measureFanOut(
      { url: server.running.url, watchPath: `${RBAC}/namespaces/bench-watch/roles?watch=1&resourceVersion=${rv}`, writePath: `${RBAC}/namespaces/bench-watch/roles`, tls, client },
      watchers,
      writes,
    );
    const p99 = (f: FanOutFigures) => percentile([...f.delays].sort((a, b) => a - b), 99);
    console.log(`watch fan-out (${label}): ${writes} writes x ${watchers} watchers (from a worker thread), every event delivered once to each; delay from the write's start:`);
    console.log(`  ${describe('floor (bare Nest, one Buffer to every stream)', floor)}`);
    console.log(`  ${describe('watch', ours)}`);
    console.log(`  p99 / floor p99: ${(p99(ours) / p99(floor)).toFixed(2)}; CPU per delivery / floor: ${(ours.cpuUsPerDelivery / floor.cpuUsPerDelivery).toFixed(2)} (target p99 <= 50 ms)`);
  } finally {
    bareClient.close();
    await bare.close();
  }
}

async function main() {
  // `npm run bench -- codecs`: only the in-process encode/decode figures.
  if (process.argv.includes('codecs')) return runCodecBench();
  // `npm run bench -- failover`: the server on Patroni-managed PostgreSQL, its primary killed under load (bench/failover.ts).
  if (process.argv.includes('failover')) return runFailoverBench();
  // `npm run bench -- counter`: creates per second through the single revision counter at 1, 8 and 32 writers (bench/revision-counter.ts).
  if (process.argv.includes('counter')) return runRevisionCounterBench();
  // `npm run bench -- scale`: reads, restart and memory with 100,000 bindings (bench/scale.ts; BENCH_SCALE_BINDINGS).
  if (process.argv.includes('scale')) return runScaleBench();
  // `npm run bench -- who-can`: the scale bench's ResourceAccessReview alone, on a bulk-loaded server (bench/who-can.ts).
  if (process.argv.includes('who-can')) return runWhoCanBench();
  // `npm run bench -- stalls`: how long single heavy requests and a fuzz hold the event loop, seen from /livez (bench/stalls.ts).
  if (process.argv.includes('stalls')) return runStallsBench();
  // `npm run bench -- fuzz-memory`: the memory a fuzz leaves behind, and after its objects are deleted (bench/fuzz-memory.ts).
  if (process.argv.includes('fuzz-memory')) return runFuzzMemoryBench();
  // `npm run bench -- consistency`: stale decisions across two replicas of one PostgreSQL, with and without --consistent-authorization (bench/decision-consistency.ts).
  if (process.argv.includes('consistency')) return runDecisionConsistencyBench();
  // `npm run bench -- rbac`: only the RBAC authorizer figures (bench/rbac-authorization.ts).
  if (process.argv.includes('rbac')) return runRbacBench();
  // `npm run bench -- reviews`: only the SubjectAccessReview figures (bench/access-reviews.ts);
  // `-- reviews audit`: the same with every request audited at Metadata level to a log file.
  if (process.argv.includes('reviews')) return runAccessReviewBench();
  if (process.argv.includes('metrics-cost')) return runMetricsCostBench();
  // `npm run bench -- audit-stages`: the CPU the audit stages add to a request (bench/audit-stages.ts).
  if (process.argv.includes('audit-stages')) return runAuditStagesBench();
  // `npm run bench -- authn`: only the authentication cost per method (bench/authn.ts).
  if (process.argv.includes('authn')) return runAuthnBench();
  // `npm run bench -- oidc`: only the cost of verifying OpenID Connect ID tokens (bench/oidc.ts).
  if (process.argv.includes('oidc')) return runOidcBench();
  // `npm run bench -- policy-change`: PolicyChangeReview latency on a change touching many subjects (bench/policy-change.ts).
  if (process.argv.includes('policy-change')) return runPolicyChangeBench();
  // `npm run bench -- access-history`: create throughput with access history recorded and not (bench/access-history.ts; BENCH_HISTORY_BINDINGS).
  if (process.argv.includes('access-history')) return runAccessHistoryBench();
  // `npm run bench -- access-requests`: from an approval to the access on another replica (bench/access-requests.ts).
  if (process.argv.includes('access-requests')) return runAccessRequestBench();
  // `npm run bench -- access`: only the access.platform.io figures (bench/access.ts).
  if (process.argv.includes('access')) return runAccessBench();
  // `npm run bench -- rule-usage`: what rule-level usage adds to a decision, and its memory (bench/rule-usage.ts).
  if (process.argv.includes('rule-usage')) return runRuleUsageBench();
  // `npm run bench -- usage`: the cost of binding usage recording to SubjectAccessReviews (bench/binding-usage.ts).
  if (process.argv.includes('usage')) return runUsageBench();
  // `npm run bench -- guardrails`: what the Guardrail authorizer adds to a review's decision (bench/guardrails.ts).
  if (process.argv.includes('guardrails')) return runGuardrailsBench();
  // `npm run bench -- matrix`: the access explorer's namespace matrix on 110,000 bindings (bench/access-matrix.ts).
  if (process.argv.includes('matrix')) return runAccessMatrixBench();
  // `npm run bench -- paths`: escalation path search on 110,000 bindings (bench/escalation-paths.ts).
  if (process.argv.includes('paths')) return runEscalationPathsBench();
  // `npm run bench -- memory` (or `idle`, `startup`): start-up time, idle RSS and idle CPU of
  // whole server processes next to a bare Nest app (bench/process.ts).
  if (['memory', 'idle', 'startup'].some((a) => process.argv.includes(a))) return runProcessBench();
  // `npm run bench -- rolebindings`: only RSS and heap after 20,000 RoleBindings (bench/soak.ts).
  if (process.argv.includes('rolebindings')) return runRoleBindingsMemory();
  // `npm run bench -- soak`: heap and RSS over 100,000 writes on the embedded store (bench/soak.ts).
  if (process.argv.includes('soak')) return runSoakBench();
  // `npm run bench -- creates`: only create throughput against its floor (bench/creates.ts), on the
  // embedded store with and without fsync and on PostgreSQL when it answers (`-- creates embedded`: not PostgreSQL).
  const createsOnly = process.argv.includes('creates');
  const engines: Array<{ label: string; url?: string; overrides?: Partial<ServerOptions>; createsOnly?: boolean }> = [
    { label: 'embedded PGlite, fsync per commit (default)' },
    { label: 'embedded PGlite, --embedded-fsync=false', overrides: { embeddedFsync: false }, createsOnly: true },
  ];
  if (createsOnly && process.argv.includes('embedded')) console.log('PostgreSQL skipped (npm run bench -- creates embedded)');
  else if (await postgresReachable()) engines.push({ label: 'PostgreSQL', url: PG_URL });
  else console.log(`PostgreSQL at ${PG_URL} does not answer: its figures are skipped`);
  // `npm run bench -- watch-memory`: only what stuck watchers leave behind (bench/watch-memory.ts).
  if (process.argv.includes('watch-memory')) {
    return runWatchMemoryBench(engines.filter((e) => !e.createsOnly));
  }
  // `npm run bench -- fan-out`: only the watch fan-out, on each engine (BENCH_FAN_OUT_WATCHERS, BENCH_FAN_OUT_WRITES).
  if (process.argv.includes('fan-out')) {
    for (const engine of engines.filter((e) => !e.createsOnly)) {
      const server = await startBenchServer(engine.url, engine.overrides);
      try {
        await watchFanOut(server, engine.label, FAN_OUT_WATCHERS, FAN_OUT_WRITES);
      } finally {
        await server.close();
      }
    }
    return;
  }

  // `-- creates postgres`: PostgreSQL only.
  await runCreatesBench(createsOnly && process.argv.includes('postgres') ? engines.filter((e) => e.url) : engines);
  if (createsOnly) return;
  for (const engine of engines.filter((e) => !e.createsOnly)) {
    const server = await startBenchServer(engine.url, engine.overrides);
    try {
      await listPaging(server, engine.label, 10_000, 500);
      await watchFanOut(server, engine.label, FAN_OUT_WATCHERS, FAN_OUT_WRITES);
    } finally {
      await server.close();
    }
  }
  await runRbacBench();
  await runAccessReviewBench();
  await runWatchMemoryBench(engines.filter((e) => !e.createsOnly));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
