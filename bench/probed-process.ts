import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as https from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { ProbeFigures } from './process-probe';

/** Child processes of the process benchmarks (bench/process.ts, bench/soak.ts): started, probed, stopped. */

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export function readyzStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, agent: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });
}

export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A process of the benchmark (the server or the bare app), with the probe preloaded. */
export interface ProbedProcess {
  pid: number;
  /** From spawn to the first GET /readyz 200. */
  readyMs: number;
  /** What the probe reports: modules loaded, heap and RSS after garbage collection. */
  probe(): Promise<ProbeFigures>;
  /** Starts the probe's window of embedded engine calls (until the next probe). */
  startEngineCallWindow(): void;
  stop(): Promise<void>;
}

/** Spawns `node --expose-gc -r process-probe.js <args>` and waits until GET /readyz on `port` is 200. */
export async function startProbedProcess(label: string, args: string[], port: number, probeFile: string): Promise<ProbedProcess> {
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, ['--expose-gc', '-r', join(__dirname, 'process-probe.js'), ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, BENCH_PROBE_FILE: probeFile },
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  };
  try {
    let readyMs = -1;
    while (readyMs < 0) {
      if (child.exitCode !== null) throw new Error(`${label} exited ${child.exitCode}: ${stderr}`);
      if ((await readyzStatus(port)) === 200) readyMs = performance.now() - started;
      else await sleep(20);
      if (performance.now() - started > 300_000) throw new Error(`${label}: not ready after 300 s: ${stderr}`);
    }
    const probe = async (): Promise<ProbeFigures> => {
      rmSync(probeFile, { force: true });
      child.kill('SIGUSR2');
      for (let waited = 0; !existsSync(probeFile); waited += 20) {
        if (waited > 30_000) throw new Error(`${label}: no answer from the probe`);
        await sleep(20);
      }
      await sleep(20); // the file is written in one call; let it land
      return JSON.parse(readFileSync(probeFile, 'utf8')) as ProbeFigures;
    };
    return { pid: child.pid!, readyMs, probe, startEngineCallWindow: () => child.kill('SIGWINCH'), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

