import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createCertificateAuthority, issueServingCertificate } from '../src/server/certificates';

/**
 * `npm run bench -- memory` (also `-- idle`, `-- startup`): whole-process figures of the server
 * next to a bare Nest + Express HTTPS app (bench/bare-nest.ts) in the same run, each in its own
 * child process so that nothing of the benchmark is counted:
 * - start-up: from spawn to the first GET /readyz 200, on a new and on an existing embedded
 *   data directory (and on PostgreSQL when it answers);
 * - memory: resident set size once ready and settled;
 * - idle CPU: user+system CPU time per second of wall time while nothing happens, for the whole
 *   process and for its main thread.
 * Rounds alternate the processes; figures are medians, each also as a ratio to the bare app's.
 */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 10_000);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Figures {
  readyMs: number;
  rssMiB: number;
  cpuMsPerS: number;
  mainThreadCpuMsPerS: number;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function readyzStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, agent: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });
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

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(label: string, args: string[], port: number): Promise<Figures> {
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    let readyMs = -1;
    while (readyMs < 0) {
      if (child.exitCode !== null) throw new Error(`${label} exited ${child.exitCode}: ${stderr}`);
      if ((await readyzStatus(port)) === 200) readyMs = performance.now() - started;
      else await sleep(20);
      if (performance.now() - started > 300_000) throw new Error(`${label}: not ready after 300 s: ${stderr}`);
    }
    await sleep(SETTLE_MS);
    const rss = rssMiB(child.pid!);
    const pid = child.pid!;
    const [p0, t0] = [threadsCpuMs(pid), performance.now()];
    await sleep(IDLE_MS);
    const [p1, t1] = [threadsCpuMs(pid), performance.now()];
    const seconds = (t1 - t0) / 1000;
    const main = (p1.get(pid) ?? 0) - (p0.get(pid) ?? 0);
    return { readyMs, rssMiB: rss, cpuMsPerS: cpuBetween(p0, p1) / seconds, mainThreadCpuMsPerS: main / seconds };
  } finally {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  }
}

async function scratchDatabase(url: string): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const admin = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return undefined;
  }
  const name = `platform_bench_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
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
  const results = new Map<string, Figures[]>();
  const record = (label: string, f: Figures) => {
    results.set(label, [...(results.get(label) ?? []), f]);
    console.log(
      `  ${label}: ready ${f.readyMs.toFixed(0)} ms, RSS ${f.rssMiB.toFixed(0)} MiB, idle CPU ${f.cpuMsPerS.toFixed(2)} ms/s (main thread ${f.mainThreadCpuMsPerS.toFixed(2)})`,
    );
  };
  const pgReachable = !!(await scratchDatabase(pgUrl).then(async (db) => (await db?.drop(), db)));
  console.log(`process figures: ${ROUNDS} rounds, settle ${SETTLE_MS} ms, idle window ${IDLE_MS} ms${pgReachable ? '' : ' (PostgreSQL does not answer: skipped)'}`);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      console.log(`round ${round + 1}`);
      let port = await freePort();
      record('bare Nest', await measure('bare Nest', [bareMain, String(port), join(work, 'tls.key'), join(work, 'tls.crt')], port));
      const dataDir = join(work, `data-${round}`);
      port = await freePort();
      record('embedded, new data dir', await measure('embedded (new)', serverArgs(port, dataDir), port));
      port = await freePort();
      record('embedded, existing data dir', await measure('embedded (existing)', serverArgs(port, dataDir), port));
      rmSync(dataDir, { recursive: true, force: true });
      if (pgReachable) {
        const db = (await scratchDatabase(pgUrl))!;
        try {
          port = await freePort();
          record('PostgreSQL, new database', await measure('PostgreSQL', serverArgs(port, join(work, `pg-${round}`), [`--database-url=${db.url}`]), port));
        } finally {
          await db.drop();
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
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
        `idle CPU ${cpu.toFixed(2)} ms/s (floor ${f0.cpu.toFixed(2)}), main thread ${mainCpu.toFixed(2)} ms/s`,
    );
  }
}
