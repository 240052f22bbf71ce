import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FUZZ_CONFIGMAPS, FUZZ_ROLES } from './fuzz-requests';
import { HEAVY_CONFIGMAPS, HEAVY_ROLES } from './heavy-inputs';
import { rssMiB, sleep } from './probed-process';
import type { ProbeFigures } from './process-probe';
import { RawClient, startServerProcess } from './server-process';
import { fuzzWithHeavyInputs, prepareHeavyInputs, sendCrowd } from './stalls';

/**
 * `npm run bench -- fuzz-memory`: what hostile input leaves behind. A server child process on
 * a new embedded data directory, settled; then the stall benchmark's fuzz (hostile requests
 * with the heavy inputs among them, CONCURRENCY at a time); then everything it created is
 * deleted. RSS before, after the fuzz, after the deletion (after a GC), and after SETTLE_MS
 * more (the codec threads end when idle, V8's memory reducer runs); with what holds it: the
 * main thread's heap after GC, memory outside the heap V8 knows of, and the largest mappings
 * of the process (the embedded engine's WebAssembly memory is one, and never shrinks: the
 * server starts a new engine once the store is idle when large inputs grew it, see
 * src/storage/engine/restarting-engine.ts). Target: the end within 1.5x of the start.
 */
const FUZZ_REQUESTS = Number(process.env.BENCH_FUZZ_REQUESTS ?? 400);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 30_000);
const FUZZ_SEED = 20240613;
/** Server flags to try (`BENCH_SERVER_FLAGS='--watch-cache-size-bytes=1048576'`: how much the change window holds). */
const SERVER_FLAGS = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
const CONCURRENCY = 8;

interface Mapping {
  name: string;
  start: number;
  end: number;
  perms: string;
  sizeMiB: number;
  rssMiB: number;
}

/** The process's mappings (from /proc/<pid>/smaps), in address order. */
function mappingsOf(pid: number): Mapping[] {
  const mappings: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const [start, end] = [parseInt(header[1], 16), parseInt(header[2], 16)];
      current = { name: header[4] || '[anonymous]', start, end, perms: header[3], sizeMiB: (end - start) / 1048576, rssMiB: 0 };
      mappings.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && current) current.rssMiB = Number(rss[1]) / 1024;
  }
  return mappings;
}

/**
 * WebAssembly memories: V8 maps each writable at the start of a reservation of several GiB whose
 * rest is inaccessible (the embedded engine's is the one of the server).
 */
function wasmMemories(mappings: Mapping[]): Mapping[] {
  return mappings.filter((m, i) => {
    const next = mappings[i + 1];
    return m.perms === 'rw-p' && m.name === '[anonymous]' && m.sizeMiB >= 1 && next?.perms === '---p' && next.start === m.end && next.sizeMiB >= 4096;
  });
}

function largestMappings(pid: number, count: number): Mapping[] {
  return mappingsOf(pid)
    .sort((a, b) => b.rssMiB - a.rssMiB)
    .slice(0, count);
}

const describeEngine = (pid: number) =>
  wasmMemories(mappingsOf(pid))
    .map((m) => `${m.rssMiB.toFixed(0)} MiB resident of ${m.sizeMiB.toFixed(0)} MiB`)
    .join(', ') || 'not found';

const describe = (f: ProbeFigures) =>
  `RSS ${f.rssMiB.toFixed(0)} MiB, heap ${f.heapMiB.toFixed(0)} MiB, outside the heap ${f.externalMiB.toFixed(0)} MiB (buffers ${f.arrayBuffersMiB.toFixed(0)})`;

const describeMappings = (pid: number) =>
  largestMappings(pid, 4)
    .map((m) => `${m.rssMiB.toFixed(0)} MiB in ${m.name} of ${m.sizeMiB >= 1024 ? `${(m.sizeMiB / 1024).toFixed(0)} GiB` : `${m.sizeMiB.toFixed(0)} MiB`}`)
    .join(', ');

/** Names in a collection, as a list answers them. */
async function names(client: RawClient, path: string): Promise<string[]> {
  const list = await client.must('GET', path, undefined, 200);
  return (list.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name);
}

export async function runFuzzMemoryBench(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-fuzz-memory-'));
  const server = await startServerProcess(work, SERVER_FLAGS);
  const pid = server.process.pid;
  try {
    const client = server.client(CONCURRENCY);
    const collections = [FUZZ_CONFIGMAPS, FUZZ_ROLES, HEAVY_CONFIGMAPS, HEAVY_ROLES];
    await prepareHeavyInputs(client);
    const existing = new Map(await Promise.all(collections.map(async (c) => [c, new Set(await names(client, c))] as const)));
    await sleep(SETTLE_MS);
    const before = await server.process.probe();
    console.log(`fuzz memory: ${FUZZ_REQUESTS} hostile requests with the heavy inputs among them, ${CONCURRENCY} at a time${SERVER_FLAGS.length ? ` (server flags: ${SERVER_FLAGS.join(' ')})` : ''}`);
    console.log(`  before (settled ${SETTLE_MS / 1000} s, after GC): ${describe(before)}`);
    console.log(`    largest mappings: ${describeMappings(pid)}; the engine's WebAssembly memory ${describeEngine(pid)}`);

    const statuses = await sendCrowd(client, fuzzWithHeavyInputs(FUZZ_REQUESTS, FUZZ_SEED), CONCURRENCY);
    const rawAfter = rssMiB(pid);
    const afterFuzz = await server.process.probe();
    const answered = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ');
    console.log(`  after the fuzz (${answered}): RSS ${rawAfter.toFixed(0)} MiB; after GC ${describe(afterFuzz)}`);
    console.log(`    largest mappings: ${describeMappings(pid)}; the engine's WebAssembly memory ${describeEngine(pid)}`);

    let deleted = 0;
    for (const collection of collections) {
      for (const name of await names(client, collection)) {
        if (existing.get(collection)!.has(name)) continue;
        const res = await client.send({ method: 'DELETE', path: `${collection}/${encodeURIComponent(name)}` });
        if (res.status !== 200 && res.status !== 404) throw new Error(`DELETE ${collection}/${name}: ${res.status} ${res.text.slice(0, 200)}`);
        deleted++;
      }
    }
    const afterDelete = await server.process.probe();
    console.log(`  after deleting the ${deleted} objects it created, after GC: ${describe(afterDelete)}; the engine's WebAssembly memory ${describeEngine(pid)}`);
    await sleep(SETTLE_MS);
    const settled = await server.process.probe();
    console.log(`  ${SETTLE_MS / 1000} s later, after GC: ${describe(settled)} (${(settled.rssMiB / before.rssMiB).toFixed(2)}x the start; target <= 1.5x)`);
    console.log(`    largest mappings: ${describeMappings(pid)}; the engine's WebAssembly memory ${describeEngine(pid)}`);
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
