import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createCertificateAuthority, issueServingCertificate } from '../src/server/certificates';
import { freePort, rssMiB, sleep, startProbedProcess } from './probed-process';
import { runRoleBindingsMemory } from './soak';
import type { ProbeFigures } from './process-probe';
import { describeEngineCalls } from './engine-calls';
import { createScratchDatabase, ScratchDatabase } from './scratch-database';

/**
 * `npm run bench -- memory` (also `-- idle`, `-- startup`): whole-process figures of the server
 * next to a bare Nest + Express HTTPS app (bench/bare-nest.ts) in the same run, each in its own
 * child process so that nothing of the benchmark is counted:
 * - start-up: from spawn to the first GET /readyz 200, on a new and on an existing embedded
 *   data directory (and on PostgreSQL when it answers);
 * - memory: resident set size once ready and settled;
 * - idle CPU: user+system CPU time per second of wall time while nothing happens, for the whole
 *   process and for its main thread;
 * - in the first round, the calls into the embedded engine while idle (each holds the event
 *   loop) and how long the longest took, from the server's own histogram;
 * - what is loaded: files in the module cache, Node's built-ins, and the heap after GC once settled;
 * - with `-- memory`, RSS and heap after 20,000 RoleBindings (bench/soak.ts).
 * Rounds alternate the processes; figures are medians, each also as a ratio to the bare app's.
 */
// V8's memory reducer runs its full collections some 15-40 s after a start (when depends on
// the start's last collections): the figures are of the settled server, after them.
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 60_000);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 30_000);
// After the CPU window, in the first round: how long the embedded engine's calls held the
// event loop while idle, over a window that holds a compaction (every minute by default).
const BLOCK_WINDOW_MS = Number(process.env.BENCH_BLOCK_WINDOW_MS ?? 65_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Figures {
  readyMs: number;
  rssMiB: number;
  cpuMsPerS: number;
  mainThreadCpuMsPerS: number;
  /** Files loaded (the CommonJS module cache) and Node's built-in modules loaded, once ready and settled. */
  modules: number;
  builtins: number;
  /** Heap used once ready and settled, after garbage collection. */
  heapMiB: number;
  /** Calls into the embedded engine during the first round's window (none on PostgreSQL or in later rounds). */
  engineCalls?: ProbeFigures['engineCalls'];
}

/** CPU time in ms a thread has run, from the scheduler's nanosecond counter. */
function threadCpuMs(pid: number, tid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return 0; // the thread ended
  }
}

/** CPU time in ms of every thread of a process, per thread id (threads may come and go). */
function threadsCpuMs(pid: number): Map<number, number> {
  return new Map(readdirSync(`/proc/${pid}/task`).map((t) => [Number(t), threadCpuMs(pid, Number(t))]));
}

/** CPU ms spent by all threads between two samples (a thread new in the second counts in full). */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [tid, ms] of after) sum += ms - (before.get(tid) ?? 0);
  return sum;
}

async function measure(label: string, args: string[], port: number, probeFile: string, blockWindow: boolean): Promise<Figures> {
  const child = await startProbedProcess(label, args, port, probeFile);
  try {
    await sleep(SETTLE_MS);
    const rss = rssMiB(child.pid);
    const pid = child.pid;
    const [p0, t0] = [threadsCpuMs(pid), performance.now()];
    await sleep(IDLE_MS);
    const [p1, t1] = [threadsCpuMs(pid), performance.now()];
    const seconds = (t1 - t0) / 1000;
    const main = (p1.get(pid) ?? 0) - (p0.get(pid) ?? 0);
    if (blockWindow) {
      child.startEngineCallWindow();
      await sleep(BLOCK_WINDOW_MS);
    }
    const probed = await child.probe();
    return {
      readyMs: child.readyMs,
      rssMiB: rss,
      cpuMsPerS: cpuBetween(p0, p1) / seconds,
      mainThreadCpuMsPerS: main / seconds,
      modules: probed.modules,
      builtins: probed.builtins,
      heapMiB: probed.heapMiB,
      engineCalls: blockWindow ? probed.engineCalls : undefined,
    };
  } finally {
    await child.stop();
  }
}

/** A scratch database on that server, or undefined when it does not answer. */
async function scratchDatabase(url: string): Promise<ScratchDatabase | undefined> {
  const probe = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await probe.connect();
    await probe.end();
  } catch {
    return undefined;
  }
  return createScratchDatabase(url, 'platform_bench');
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function runProcessBench(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-process-'));
  const pgUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const ca = createCertificateAuthority();
  const serving = issueServingCertificate(ca.certPem, ca.keyPem, '127.0.0.1');
  writeFileSync(join(work, 'tls.key'), serving.keyPem);
  writeFileSync(join(work, 'tls.crt'), serving.certPem);
  const serverMain = join(__dirname, '..', 'src', 'main.js');
  const bareMain = join(__dirname, 'bare-nest.js');
  const serverArgs = (port: number, dataDir: string, extra: string[] = []) => [
    serverMain,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    `--data-dir=${dataDir}`,
    ...extra,
  ];
  const probeFile = join(work, 'probe.json');
  const results = new Map<string, Figures[]>();
  const record = (label: string, f: Figures) => {
    results.set(label, [...(results.get(label) ?? []), f]);
    console.log(
      `  ${label}: ready ${f.readyMs.toFixed(0)} ms, RSS ${f.rssMiB.toFixed(0)} MiB, idle CPU ${f.cpuMsPerS.toFixed(2)} ms/s (main thread ${f.mainThreadCpuMsPerS.toFixed(2)}),` +
        (f.engineCalls ? ` ${describeEngineCalls(f.engineCalls, `in ${BLOCK_WINDOW_MS / 1000} s`)},` : '') +
        ` ${f.modules} files and ${f.builtins} built-ins loaded, heap ${f.heapMiB.toFixed(1)} MiB after GC`,
    );
  };
  const pgReachable = !!(await scratchDatabase(pgUrl).then(async (db) => (await db?.drop(), db)));
  console.log(`process figures: ${ROUNDS} rounds, settle ${SETTLE_MS} ms, idle window ${IDLE_MS} ms${pgReachable ? '' : ' (PostgreSQL does not answer: skipped)'}`);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      console.log(`round ${round + 1}`);
      let port = await freePort();
      record('bare Nest', await measure('bare Nest', [bareMain, String(port), join(work, 'tls.key'), join(work, 'tls.crt')], port, probeFile, round === 0));
      const dataDir = join(work, `data-${round}`);
      port = await freePort();
      record('embedded, new data dir', await measure('embedded (new)', serverArgs(port, dataDir), port, probeFile, round === 0));
      port = await freePort();
      record('embedded, existing data dir', await measure('embedded (existing)', serverArgs(port, dataDir), port, probeFile, round === 0));
      rmSync(dataDir, { recursive: true, force: true });
      if (pgReachable) {
        const db = (await scratchDatabase(pgUrl))!;
        try {
          port = await freePort();
          record('PostgreSQL, new database', await measure('PostgreSQL', serverArgs(port, join(work, `pg-${round}`), [`--database-url=${db.url}`]), port, probeFile, round === 0));
        } finally {
          await db.drop();
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (process.argv.includes('memory')) await runRoleBindingsMemory();
  const floor = results.get('bare Nest')!;
  const f0 = { readyMs: median(floor.map((f) => f.readyMs)), rssMiB: median(floor.map((f) => f.rssMiB)), cpu: median(floor.map((f) => f.cpuMsPerS)) };
  console.log('medians (ratio to the bare Nest app in the same run):');
  for (const [label, figures] of results) {
    const ready = median(figures.map((f) => f.readyMs));
    const rss = median(figures.map((f) => f.rssMiB));
    const cpu = median(figures.map((f) => f.cpuMsPerS));
    const mainCpu = median(figures.map((f) => f.mainThreadCpuMsPerS));
    console.log(
      `  ${label}: ready ${ready.toFixed(0)} ms (${(ready / f0.readyMs).toFixed(2)}x), RSS ${rss.toFixed(0)} MiB (${(rss / f0.rssMiB).toFixed(2)}x), ` +
        `idle CPU ${cpu.toFixed(2)} ms/s (floor ${f0.cpu.toFixed(2)}), main thread ${mainCpu.toFixed(2)} ms/s, ` +
        figures.filter((f) => f.engineCalls).map((f) => `${describeEngineCalls(f.engineCalls!, `in ${BLOCK_WINDOW_MS / 1000} s idle`)} (first round), `).join('') +
        `${median(figures.map((f) => f.modules))} files loaded (floor ${median(floor.map((f) => f.modules))}), start-up heap ${median(figures.map((f) => f.heapMiB)).toFixed(1)} MiB (floor ${median(floor.map((f) => f.heapMiB)).toFixed(1)})`,
    );
  }
}
