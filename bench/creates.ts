import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ServerOptions } from '../src/config/options';
import { BenchClient } from './client';
import { startCreateFloor } from './create-floor';
import { describeEngineCalls, engineCallBuckets, EngineCalls, engineCallsBetween } from './engine-calls';
import { metricsRegistry } from '../src/metrics/registry';
import { createScratchDatabase, startBenchServer } from './servers';

/**
 * Create throughput against its floor (bench/create-floor.ts: the same SQL in one transaction
 * behind a bare Nest endpoint, same engine and settings), in alternating rounds after a
 * warm-up; the figures are medians of the rounds, CPU is the whole process's (client included,
 * the same client for both) per create.
 */
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const ROLE = (name: string) => ({ metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] });
const CONCURRENCY = 16;

export interface CreateBenchEngine {
  label: string;
  url?: string;
  overrides?: Partial<ServerOptions>;
}

interface Round {
  perSecond: number;
  cpuMsPerCreate: number;
  /** How late the event loop's timers ran during the round (ms): how long something held it. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(total: number, create: (i: number) => Promise<void>): Promise<Round> {
  let next = 0;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) await create(next++);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  loop.disable();
  return {
    perSecond: total / seconds,
    cpuMsPerCreate: (used.user + used.system) / 1000 / total,
    loopDelayP99Ms: loop.percentile(99) / 1e6,
    loopDelayMaxMs: loop.max / 1e6,
  };
}

export async function runCreatesBench(engines: CreateBenchEngine[]): Promise<void> {
  const total = Number(process.env.BENCH_CREATES ?? 2000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  for (const engine of engines) {
    const server = await startBenchServer(engine.url, engine.overrides);
    const scratch = engine.url ? await createScratchDatabase(engine.url) : undefined;
    const m = server.running.material;
    const floor = await startCreateFloor(
      { key: m.servingKeyPem, cert: m.servingCertPem },
      { databaseUrl: scratch?.url, fsync: engine.overrides?.embeddedFsync ?? true },
    );
    const ours = server.client(CONCURRENCY);
    const floorClient = new BenchClient(floor.url, { ca: m.caCertPem }, CONCURRENCY);
    try {
      const ns = await ours.request('POST', '/api/v1/namespaces', { metadata: { name: 'bench-create' } });
      if (ns.status !== 201) throw new Error(`namespace: ${ns.status}`);
      let serial = 0;
      const createOurs = async () => {
        const name = `c-${serial++}`;
        const res = await ours.request('POST', `${RBAC}/namespaces/bench-create/roles`, ROLE(name));
        if (res.status !== 201 || res.body.metadata.name !== name) throw new Error(`create ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      };
      const createFloor = async () => {
        const name = `f-${serial++}`;
        const res = await floorClient.request('POST', '/floor', ROLE(name));
        if (res.status !== 201 || res.body.metadata.name !== name) throw new Error(`floor ${name}: ${res.status}`);
      };
      // Warm-up: JIT, connections, the engine's caches.
      await measure(Math.min(300, total), createFloor);
      await measure(Math.min(300, total), createOurs);
      const results: Array<{ floor: Round; ours: Round }> = [];
      // The embedded engine's calls during the server's rounds, timed in the engine's thread.
      const engineCalls: EngineCalls[] = [];
      const measureOurs = async () => {
        const before = await engineCallBuckets(metricsRegistry);
        const round = await measure(total, createOurs);
        const after = await engineCallBuckets(metricsRegistry);
        if (before && after) engineCalls.push(engineCallsBetween(before, after));
        return round;
      };
      for (let r = 0; r < rounds; r++) {
        // Alternating order, so drift in the machine's load does not favour one side.
        const first = r % 2 === 0;
        const a = first ? await measure(total, createFloor) : await measureOurs();
        const b = first ? await measureOurs() : await measure(total, createFloor);
        results.push(first ? { floor: a, ours: b } : { floor: b, ours: a });
      }
      const floorRate = median(results.map((r) => r.floor.perSecond));
      const ourRate = median(results.map((r) => r.ours.perSecond));
      console.log(
        `creates (${engine.label}): floor ${floorRate.toFixed(0)}/s at ${median(results.map((r) => r.floor.cpuMsPerCreate)).toFixed(2)} ms CPU each; ` +
          `server ${ourRate.toFixed(0)}/s at ${median(results.map((r) => r.ours.cpuMsPerCreate)).toFixed(2)} ms CPU each`,
      );
      console.log(
        `creates (${engine.label}) / floor = ${median(results.map((r) => r.ours.perSecond / r.floor.perSecond)).toFixed(2)} ` +
          `(median of ${rounds} alternating rounds of ${total}; each round: ${results.map((r) => (r.ours.perSecond / r.floor.perSecond).toFixed(2)).join(', ')})`,
      );
      const calls = engineCalls.reduce(
        (sum, c) => ({
          count: sum.count + c.count,
          longestUpToMs: Math.max(sum.longestUpToMs, c.longestUpToMs),
          overMs: Object.fromEntries(Object.entries(c.overMs).map(([k, v]) => [k, v + (sum.overMs[k] ?? 0)])),
        }),
        { count: 0, longestUpToMs: 0, overMs: {} } as EngineCalls,
      );
      if (!engine.url) console.log(`creates (${engine.label}): ${describeEngineCalls(calls, `in the server's ${rounds} rounds`)}`);
      const loopDelay = (side: 'floor' | 'ours') =>
        `p99 ${median(results.map((r) => r[side].loopDelayP99Ms)).toFixed(1)} ms, longest ${Math.max(...results.map((r) => r[side].loopDelayMaxMs)).toFixed(1)} ms`;
      console.log(`creates (${engine.label}): event loop delay (bench process) during the server's rounds ${loopDelay('ours')}; during the floor's ${loopDelay('floor')}`);
    } finally {
      floorClient.close();
      await floor.close();
      await server.close();
      await scratch?.drop();
    }
  }
}
