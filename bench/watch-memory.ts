import 'reflect-metadata';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { issueClientCertificate } from '../src/server/certificates';
import { ChangeFeedService } from '../src/storage/changefeed/change-feed.service';
import { DEFAULT_WATCH_CACHE_SIZE_BYTES } from '../src/config/options';
import { metricsRegistry } from '../src/metrics/registry';
import { BenchServer, startBenchServer } from './servers';

/**
 * What the server keeps after watchers that never read are cut off. Each round opens
 * WATCHERS watches (from a child process, so the figures are the server's) on a namespace of
 * ConfigMaps and never reads them, then updates a ~900 KiB ConfigMap until the server has cut
 * every one of them off (kube's slow-watcher cut-off; `apiserver_terminated_watchers_total`).
 * RSS and heap are reported at start, at the peak of each round and after it (once the
 * stuck clients are gone and a garbage collection ran): the after figures must come back
 * near the start figure instead of growing round by round.
 *
 * The change window (--watch-cache-size-bytes) fills with the updates and may stay: its
 * size is printed with each round.
 *
 * Run alone with `npm run bench -- watch-memory` (`BENCH_WATCH_ROUNDS`, `BENCH_WATCHERS`,
 * `BENCH_WATCH_CACHE_BYTES`).
 */
const ROUNDS = Number(process.env.BENCH_WATCH_ROUNDS ?? 6);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 200);
const NAMESPACE = 'bench-watch-memory';
const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const VALUE_BYTES = 900 * 1024;
/** Updates per round at most: far more than the cut-off needs (about 4 MiB unread per watcher plus the socket buffers). */
const MAX_WRITES = 200;
/** The server's --watch-cache-size-bytes: what the change window may hold on top of the start figure. */
const WATCH_CACHE_BYTES = Number(process.env.BENCH_WATCH_CACHE_BYTES ?? DEFAULT_WATCH_CACHE_SIZE_BYTES);

const MiB = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MiB`;

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}

function memory(): Memory {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
}

/** Memory after collecting garbage twice (weak references and finalizers need a second pass). */
async function settledMemory(): Promise<Memory> {
  for (let i = 0; i < 2; i++) {
    global.gc?.();
    await new Promise((r) => setImmediate(r));
  }
  return memory();
}

const show = (m: Memory) => `RSS ${MiB(m.rss)}, heap ${MiB(m.heapUsed)}, external ${MiB(m.external)}`;

/** A watch metric's value for ConfigMaps: kube labels the watcher gauge by kind, the cut-off counter by resource. */
async function metricValue(name: 'apiserver_registered_watchers' | 'apiserver_terminated_watchers_total'): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric(name)?.get();
  const ours = name === 'apiserver_registered_watchers' ? (labels: Record<string, unknown>) => labels.kind === 'ConfigMap' : (labels: Record<string, unknown>) => labels.resource === 'configmaps';
  return (metric?.values ?? []).filter((v) => v.labels.group === '' && ours(v.labels)).reduce((sum, v) => sum + v.value, 0);
}

/** Opens `count` watches that never read, in a child process; resolves once all answered. */
async function openStuckWatchers(server: BenchServer, path: string, count: number): Promise<() => Promise<void>> {
  const m = server.running.material;
  const identity = issueClientCertificate(m.clientCaPems[0], m.caKeyPem!, 'bench-stuck-watcher', ['system:masters']);
  const child = fork(join(__dirname, 'idle-watchers.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const answer = await new Promise<{ opened?: number; error?: string }>((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the stuck watchers' process exited (${code})`)));
    child.send({ url: server.running.url, path, count, tls: { ca: m.caCertPem, cert: identity.certPem, key: identity.keyPem } });
  });
  if (answer.error) throw new Error(answer.error);
  return async () => {
    child.kill();
    await exited;
  };
}

async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Runs the rounds for each engine in a process of its own (with `--expose-gc`), so one
 * engine's figures do not carry what another left in the process.
 */
export async function runWatchMemoryBench(engines: Array<{ label: string; url?: string }>): Promise<void> {
  for (const engine of engines) {
    const child = fork(__filename, [engine.label, engine.url ?? ''], { execArgv: ['--expose-gc'], stdio: 'inherit' });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`watch memory (${engine.label}) exited with ${code}`);
  }
}

async function measureEngine(label: string, databaseUrl: string | undefined): Promise<void> {
  const server = await startBenchServer(databaseUrl, { watchCacheSizeBytes: WATCH_CACHE_BYTES });
  const feed = server.running.app.get(ChangeFeedService);
  try {
    const client = server.client(4);
    const must = async (method: string, path: string, body?: unknown) => {
      const res = await client.request(method, path, body);
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      return res.body;
    };
    await must('POST', '/api/v1/namespaces', { metadata: { name: NAMESPACE } });
    const big = () => ({ metadata: { name: 'big' }, data: { value: randomBytes(VALUE_BYTES / 2).toString('hex') } });
    await must('POST', CONFIGMAPS, big());
    const write = () => must('PUT', `${CONFIGMAPS}/big`, big());

    const start = await settledMemory();
    console.log(`watch memory (${label}): start: ${show(start)}`);
    const afters: Memory[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const registeredBefore = await metricValue('apiserver_registered_watchers');
      const terminatedBefore = await metricValue('apiserver_terminated_watchers_total');
      const list = await must('GET', CONFIGMAPS);
      const closeStuck = await openStuckWatchers(server, `${CONFIGMAPS}?watch=1&resourceVersion=${list.metadata.resourceVersion}`, WATCHERS);
      let peak = memory();
      let writes = 0;
      let cutOff = 0;
      // The stuck clients' process goes with the round, even one that fails.
      try {
        await until(async () => (await metricValue('apiserver_registered_watchers')) >= registeredBefore + WATCHERS, 30_000, 'the watches to register');
        const sampler = setInterval(() => {
          const now = memory();
          if (now.rss > peak.rss) peak = now;
        }, 20);
        try {
          while ((await metricValue('apiserver_registered_watchers')) > registeredBefore && writes < MAX_WRITES) {
            await write();
            writes++;
          }
          await until(async () => (await metricValue('apiserver_registered_watchers')) <= registeredBefore, 30_000, 'the cut-off of every stuck watcher');
        } finally {
          clearInterval(sampler);
        }
        cutOff = (await metricValue('apiserver_terminated_watchers_total')) - terminatedBefore;
      } finally {
        await closeStuck();
      }
      const after = await settledMemory();
      afters.push(after);
      const window = feed.windowStats();
      console.log(
        `watch memory (${label}): round ${round}: ${WATCHERS} stuck watchers, ${cutOff} cut off after ${writes} updates of ${VALUE_BYTES / 1024} KiB;` +
          ` peak ${show(peak)}; after ${show(after)}; change window ${window.changes} changes, ${MiB(window.bytes)} (bound ${MiB(WATCH_CACHE_BYTES)})`,
      );
    }
    const last = afters[afters.length - 1];
    console.log(
      `watch memory (${label}): after ${ROUNDS} rounds RSS is ${MiB(last.rss - start.rss)} above start (${MiB(start.rss)} -> ${MiB(last.rss)}), heap ${MiB(last.heapUsed - start.heapUsed)} above (${MiB(start.heapUsed)} -> ${MiB(last.heapUsed)})`,
    );
  } finally {
    await server.close();
  }
}

if (require.main === module) {
  measureEngine(process.argv[2], process.argv[3] || undefined).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
