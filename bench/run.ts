import 'reflect-metadata';
import { Client } from 'pg';
import { objectKey } from '../src/apimachinery/store-key';
import { ServerOptions } from '../src/config/options';
import { roleType } from '../src/rbac/kinds/kinds';
import { OBJECT_STORE, ObjectStore } from '../src/storage/object-store';
import { runAccessReviewBench } from './access-reviews';
import { runMetricsCostBench } from './metrics-cost';
import { runAuditStagesBench } from './audit-stages';
import { runAuthnBench } from './authn';
import { runAccessBench } from './access';
import { runUsageBench } from './binding-usage';
import { BenchClient, percentile } from './client';
import { runCodecBench } from './codecs';
import { runProcessBench } from './process';
import { runRbacBench } from './rbac-authorization';
import { runWatchMemoryBench } from './watch-memory';
import { BenchServer, startBaseline, startBenchServer } from './servers';

/**
 * `npm run bench`: list paging, watch fan-out and create throughput, each against a bare
 * Nest + Express HTTPS endpoint measured in the same run where a baseline makes sense.
 * Figures go to stdout; the issue notes quote them. `npm run bench -- codecs` runs only the
 * in-process encode/decode figures of the response formats (bench/codecs.ts); `-- creates`
 * only create throughput on the embedded store, with and without fsync per commit; `-- metrics-cost`
 * only the SubjectAccessReview benchmark with and without request metrics (bench/metrics-cost.ts);
 * `-- watch-memory` only the memory left by watchers cut off for not reading (bench/watch-memory.ts);
 * `-- memory` (or `-- idle`, `-- startup`) only whole-process start-up, idle RSS and idle CPU (bench/process.ts).
 */
const ROLE = (name: string) => ({ metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] });
const RBAC = '/apis/rbac.authorization.platform.io/v1';
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

async function createThroughput(server: BenchServer, label: string, total: number): Promise<number> {
  const client = server.client(16);
  await ensureNamespace(client, 'bench-create');
  const seconds = await runConcurrent(total, 16, async (i) => {
    const res = await client.request('POST', `${RBAC}/namespaces/bench-create/roles`, ROLE(`c-${i}`));
    if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${JSON.stringify(res.body)}`);
  });
  const rate = total / seconds;
  console.log(`create throughput (${label}): ${total} creates in ${seconds.toFixed(2)} s = ${rate.toFixed(0)} creates/s`);
  return rate;
}

async function baselineThroughput(server: BenchServer, total: number): Promise<number> {
  const m = server.running.material;
  const baseline = await startBaseline({ key: m.servingKeyPem, cert: m.servingCertPem, ca: m.caCertPem });
  const client = new BenchClient(baseline.url, { ca: m.caCertPem }, 16);
  const seconds = await runConcurrent(total, 16, async () => {
    const res = await client.request('POST', '/baseline', ROLE('x'));
    if (res.status !== 201) throw new Error(`baseline: ${res.status}`);
  });
  client.close();
  await baseline.close();
  const rate = total / seconds;
  console.log(`baseline (bare Nest + Express HTTPS POST): ${total} requests in ${seconds.toFixed(2)} s = ${rate.toFixed(0)} requests/s`);
  return rate;
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

async function watchFanOut(server: BenchServer, label: string, watchers: number, writes: number): Promise<void> {
  const client = server.client(4);
  await ensureNamespace(client, 'bench-watch');
  const list = await client.request('GET', `${RBAC}/namespaces/bench-watch/roles`);
  const rv = list.body.metadata.resourceVersion;
  const arrivals = new Map<string, number[]>();
  const closers: Array<() => void> = [];
  const opened = Date.now();
  for (let i = 0; i < watchers; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, watchers - i) }, () =>
        client
          .stream(`${RBAC}/namespaces/bench-watch/roles?watch=1&resourceVersion=${rv}`, (line) => {
            const name = JSON.parse(line).object.metadata.name as string;
            const at = performance.now();
            const list = arrivals.get(name) ?? [];
            list.push(at);
            arrivals.set(name, list);
          })
          .then((close) => closers.push(close)),
      ),
    );
  }
  console.log(`watch fan-out (${label}): ${watchers} watchers open in ${((Date.now() - opened) / 1000).toFixed(1)} s`);
  const delays: number[] = [];
  for (let w = 0; w < writes; w++) {
    const name = `fan-${w}`;
    const t0 = performance.now();
    const res = await client.request('POST', `${RBAC}/namespaces/bench-watch/roles`, ROLE(name));
    if (res.status !== 201) throw new Error(`fan-out write: ${res.status}`);
    const deadline = Date.now() + 20000;
    while ((arrivals.get(name)?.length ?? 0) < watchers && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const got = arrivals.get(name) ?? [];
    if (got.length < watchers) throw new Error(`only ${got.length}/${watchers} watchers got ${name}`);
    delays.push(...got.map((t) => t - t0));
  }
  closers.forEach((c) => c());
  delays.sort((a, b) => a - b);
  console.log(
    `watch fan-out (${label}): ${writes} writes x ${watchers} watchers, delivery delay from write start: p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms, max ${delays[delays.length - 1].toFixed(1)} ms`,
  );
}

async function main() {
  // `npm run bench -- codecs`: only the in-process encode/decode figures.
  if (process.argv.includes('codecs')) return runCodecBench();
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
  // `npm run bench -- access`: only the access.platform.io figures (bench/access.ts).
  if (process.argv.includes('access')) return runAccessBench();
  // `npm run bench -- usage`: the cost of binding usage recording to SubjectAccessReviews (bench/binding-usage.ts).
  if (process.argv.includes('usage')) return runUsageBench();
  // `npm run bench -- memory` (or `idle`, `startup`): start-up time, idle RSS and idle CPU of
  // whole server processes next to a bare Nest app (bench/process.ts).
  if (['memory', 'idle', 'startup'].some((a) => process.argv.includes(a))) return runProcessBench();
  const creates = Number(process.env.BENCH_CREATES ?? 2000);
  // `npm run bench -- creates`: only create throughput, on the embedded store with and without fsync.
  const createsOnly = process.argv.includes('creates');
  const engines: Array<{ label: string; url?: string; overrides?: Partial<ServerOptions>; createsOnly?: boolean }> = [
    { label: 'embedded PGlite, fsync per commit (default)' },
    { label: 'embedded PGlite, --embedded-fsync=false', overrides: { embeddedFsync: false }, createsOnly: true },
  ];
  if (createsOnly) console.log('create throughput only (npm run bench -- creates)');
  else if (await postgresReachable()) engines.push({ label: 'PostgreSQL', url: PG_URL });
  else console.log(`PostgreSQL at ${PG_URL} does not answer: its figures are skipped`);
  // `npm run bench -- watch-memory`: only what stuck watchers leave behind (bench/watch-memory.ts).
  if (process.argv.includes('watch-memory')) {
    return runWatchMemoryBench(engines.filter((e) => !e.createsOnly));
  }

  const embeddedRates: number[] = [];
  for (const engine of engines) {
    const server = await startBenchServer(engine.url, engine.overrides);
    try {
      const baseline = await baselineThroughput(server, creates);
      const rate = await createThroughput(server, engine.label, creates);
      console.log(`create throughput (${engine.label}) / baseline = ${(rate / baseline).toFixed(3)}`);
      if (!engine.url) embeddedRates.push(rate);
      if (createsOnly || engine.createsOnly) continue;
      await listPaging(server, engine.label, 10_000, 500);
      await watchFanOut(server, engine.label, 1000, 5);
    } finally {
      await server.close();
    }
  }
  const [durable, fast] = embeddedRates;
  console.log(`embedded store: durable commits cost ${((1 - durable / fast) * 100).toFixed(1)}% of create throughput (${durable.toFixed(0)} vs ${fast.toFixed(0)} creates/s)`);
  if (createsOnly) return;
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
