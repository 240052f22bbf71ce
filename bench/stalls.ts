import * as fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FuzzRequest, fuzzRequest } from './fuzz-requests';
import { HEAVY_CONFIGMAPS, HEAVY_NAMESPACE, HEAVY_ROLES, HeavyInput, heavyInputs, PATCHED_CONFIGMAP } from './heavy-inputs';
import { livezFigures, LivezFigures, LivezSampler, samplesDuring, startLivezSampler, wallNow } from './livez-samples';
import { sleep } from './probed-process';
import { RawClient, startServerProcess } from './server-process';

/**
 * `npm run bench -- stalls`: how long one request holds the server's event loop, seen as a
 * liveness probe sees it. A server child process on a new embedded data directory; two
 * sampler processes of their own each ask every LIVEZ_INTERVAL_MS over one kept-alive
 * connection: `/livez/ping` (answered on the event loop's next turn: the loop's stall) and
 * `/livez` (every check, the store's round trip among them: what a kubelet sees).
 * - Each heavy input (bench/heavy-inputs.ts) is sent ALONE, ROUNDS times: the longest wait
 *   of each from its send to QUIET_MS after its answer (work the answer leaves behind counts
 *   too), against the floor: the longest wait over an idle window of the same run.
 * - Then a fuzz: FUZZ_REQUESTS hostile requests (bench/fuzz-requests.ts, the fuzz e2e test's)
 *   with the heavy inputs among them, CONCURRENCY at a time: p50, p99 and worst while it runs
 *   (target /livez p99 <= 100 ms), against the idle floor.
 */
const LIVEZ_INTERVAL_MS = 10;
const PROBES = ['/livez/ping', '/livez'];
const ROUNDS = Number(process.env.BENCH_STALL_ROUNDS ?? 3);
const FLOOR_MS = Number(process.env.BENCH_STALL_FLOOR_MS ?? 3000);
const QUIET_MS = 250;
const FUZZ_REQUESTS = Number(process.env.BENCH_FUZZ_REQUESTS ?? 400);
const FUZZ_SEED = 20240612;
const CONCURRENCY = 8;
/** One heavy input among this many fuzz requests. */
const HEAVY_EVERY = 20;

const ms = (x: number) => `${x.toFixed(0)} ms`;

/** A heavy input's answer as the benchmark expects it (status and Status reason), or why not. */
export function checkHeavyAnswer(input: HeavyInput, res: { status: number; text: string }): void {
  if (res.status !== input.status) throw new Error(`${input.label}: ${res.status}, not ${input.status}: ${res.text.slice(0, 300)}`);
  if (input.reason && JSON.parse(res.text).reason !== input.reason) throw new Error(`${input.label}: reason is not ${input.reason}: ${res.text.slice(0, 300)}`);
}

/** What the heavy inputs need in place: their namespace and the ConfigMap the JSON patch tests. */
export async function prepareHeavyInputs(client: RawClient): Promise<void> {
  await client.must('POST', '/api/v1/namespaces', { metadata: { name: HEAVY_NAMESPACE } }, 201);
  await client.must('POST', HEAVY_CONFIGMAPS, { metadata: { name: PATCHED_CONFIGMAP }, data: { k: 'v' } }, 201);
}

/** Deletes the Roles the heavy inputs create, so a next round creates them again. */
export async function deleteHeavyRoles(client: RawClient): Promise<void> {
  const list = await client.must('GET', HEAVY_ROLES, undefined, 200);
  for (const role of list.items as Array<{ metadata: { name: string } }>) await client.must('DELETE', `${HEAVY_ROLES}/${role.metadata.name}`, undefined, 200);
}

/** The fuzz requests with the heavy inputs spread among them, as the crowd sends them. */
export function fuzzWithHeavyInputs(count: number, seed: number): Array<FuzzRequest & { accept?: string }> {
  const requests: Array<FuzzRequest & { accept?: string }> = fc.sample(fuzzRequest, { seed, numRuns: count });
  const heavy = heavyInputs();
  for (let i = 0, h = 0; i < requests.length; i += HEAVY_EVERY, h++) requests.splice(i, 0, heavy[h % heavy.length]);
  return requests;
}

/** Sends `requests` `concurrency` at a time; answers the statuses seen (a 5xx is counted, not thrown). */
export async function sendCrowd(client: RawClient, requests: Array<FuzzRequest & { accept?: string }>, concurrency: number): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const res = await client.send(requests[next++]);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

const describe = (f: LivezFigures) => `worst ${ms(f.worstMs)}, p99 ${ms(f.p99Ms)}, p50 ${ms(f.p50Ms)} over ${f.samples} samples${f.failed ? `, ${f.failed} NOT 200` : ''}`;

export async function runStallsBench(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-stalls-'));
  const server = await startServerProcess(work);
  let samplers: LivezSampler[] = [];
  try {
    const client = server.client(CONCURRENCY);
    await prepareHeavyInputs(client);
    samplers = await Promise.all(PROBES.map((path) => startLivezSampler({ url: server.url, ...server.tls, path, intervalMs: LIVEZ_INTERVAL_MS })));
    const floorStart = wallNow();
    await sleep(FLOOR_MS);
    const floorWindow = [floorStart, wallNow()];
    const inputs = heavyInputs();
    const windows = new Map<string, Array<[number, number]>>(inputs.map((i) => [i.label, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const input of inputs) {
        const started = wallNow();
        checkHeavyAnswer(input, await client.send(input));
        await sleep(QUIET_MS);
        windows.get(input.label)!.push([started, wallNow()]);
      }
      await deleteHeavyRoles(client);
    }
    const fuzz = fuzzWithHeavyInputs(FUZZ_REQUESTS, FUZZ_SEED);
    const fuzzStart = wallNow();
    const statuses = await sendCrowd(client, fuzz, CONCURRENCY);
    const fuzzWindow = [fuzzStart, wallNow()];
    const [ping, livez] = await Promise.all(samplers.map((s) => s.report()));
    samplers = [];

    const floor = [ping, livez].map((samples) => livezFigures(samplesDuring(samples, floorWindow[0], floorWindow[1])));
    console.log(`stalls: /livez/ping and /livez asked every ${LIVEZ_INTERVAL_MS} ms from processes of their own; each input alone, ${ROUNDS} rounds, window up to ${QUIET_MS} ms after its answer`);
    console.log(`  floor (idle ${FLOOR_MS} ms): /livez/ping ${describe(floor[0])}; /livez ${describe(floor[1])}`);
    for (const input of inputs) {
      const worst = [ping, livez].map((samples) => {
        const perRound = windows.get(input.label)!.map(([from, to]) => livezFigures(samplesDuring(samples, from, to)));
        const failed = perRound.reduce((sum, f) => sum + f.failed, 0);
        return `${ms(Math.max(...perRound.map((f) => f.worstMs)))} (rounds: ${perRound.map((f) => f.worstMs.toFixed(0)).join(', ')})${failed ? `, ${failed} NOT 200` : ''}`;
      });
      console.log(`  ${input.label} (${input.status}): worst wait /livez/ping ${worst[0]}; /livez ${worst[1]}`);
    }
    const answered = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ');
    console.log(`  fuzz: ${fuzz.length} requests ${CONCURRENCY} at a time in ${((fuzzWindow[1] - fuzzWindow[0]) / 1000).toFixed(1)} s (${answered}):`);
    const [pingFuzz, livezFuzz] = [ping, livez].map((samples) => livezFigures(samplesDuring(samples, fuzzWindow[0], fuzzWindow[1])));
    console.log(`    /livez/ping ${describe(pingFuzz)} (floor p99 ${ms(floor[0].p99Ms)})`);
    console.log(`    /livez ${describe(livezFuzz)} (target p99 <= 100 ms; floor p99 ${ms(floor[1].p99Ms)})`);
  } finally {
    samplers.forEach((s) => s.stop());
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
