import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RawClient, ServerProcess, startServerProcess } from './server-process';
import { runInFlight } from './client';
import { roleBinding } from './scale';

/**
 * What recording access history costs creates: one server process on the embedded store
 * holding BENCH_HISTORY_BINDINGS RoleBindings (default 20,000; the issue's figure is 100,000
 * plus the ClusterRoleBindings, 110,000) plus a tenth as many ClusterRoleBindings, restarted
 * between phases with the access-history controller off and on, alternating
 * (`--controllers=*,-access-history`; off, on, off, ... BENCH_HISTORY_PAIRS recording phases,
 * default 3, each compared with the mean of the phases on either side); each phase creates BENCH_HISTORY_CREATES RoleBindings
 * (default 3,000, 16 in flight) and reports creates per second and the server's CPU time per
 * create (all its threads: the figure a loaded machine moves least). With recording on, the
 * timed creates start once the recorder has caught up with the warm-up (its first term lists
 * every RBAC object, once per leader, reported apart), and the phase reports how long after
 * the last create its entry was recorded (the controller's lag). Each phase ends with the
 * server's heap and RSS after garbage collection.
 *
 * BENCH_HISTORY_DATA_DIR: start from a copy of a data directory an earlier run seeded (the
 * same layout: RoleBindings `rb-<i>` in `ns-<i % namespaces>` with 50 per namespace, subject
 * User `user-rb-<i>`, ClusterRole view; ClusterRoleBindings `crb-<i>` with Group
 * `group-crb-<i>`), recorded with history off, instead of seeding over HTTP (5 to 25 minutes
 * at 110,000). It is copied into the bench's own directory, never changed.
 * BENCH_HISTORY_SHARED_BUFFERS: the embedded store's page cache in every phase
 * (`--embedded-shared-buffers`, default the server's 16MB): at 110,000 bindings the entries'
 * pages push the creates' index pages out of 16MB, and each create then reads them back.
 */
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const CHANGES = '/apis/access.platform.io/v1/accesschanges';
const CONCURRENCY = 16;
const PER_NAMESPACE = 50;
/** Recording phases, each between two phases without (BENCH_HISTORY_PAIRS, default 3). */
const PAIRS = Number(process.env.BENCH_HISTORY_PAIRS ?? 3);
const SHARED_BUFFERS = process.env.BENCH_HISTORY_SHARED_BUFFERS ? [`--embedded-shared-buffers=${process.env.BENCH_HISTORY_SHARED_BUFFERS}`] : [];
const ON = [...SHARED_BUFFERS];
const OFF = ['--controllers=*,-access-history', ...SHARED_BUFFERS];
/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** `work(i)` for i < total with CONCURRENCY in flight; the rate. */
const inFlight = (total: number, work: (i: number) => Promise<void>): Promise<number> => runInFlight(total, CONCURRENCY, work);

/** CPU time (user + system, every thread) the process has used, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/**
 * Polls until the entry of the create that committed at `revision` is recorded (its name is
 * `r<revision>-0`: one subject, one namespace); the ms it took. A get by name: a list with a
 * field selector would read every entry recorded so far on each poll.
 */
async function recorded(client: RawClient, revision: bigint): Promise<number> {
  const started = performance.now();
  for (;;) {
    const res = await client.send({ method: 'GET', path: `${CHANGES}/r${revision}-0` });
    if (res.status === 200) return performance.now() - started;
    if (res.status !== 404) throw new Error(`GET ${CHANGES}/r${revision}-0: ${res.status} ${res.text.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface PhaseFigures {
  rate: number;
  cpuPerCreateMs: number;
}

export async function runAccessHistoryBench(): Promise<void> {
  const bindings = Number(process.env.BENCH_HISTORY_BINDINGS ?? 20_000);
  const creates = Number(process.env.BENCH_HISTORY_CREATES ?? 3000);
  const seeded = process.env.BENCH_HISTORY_DATA_DIR;
  const clusterBindings = Math.floor(bindings / 10);
  const namespaces = Math.ceil(bindings / PER_NAMESPACE);
  const work = mkdtempSync(join(tmpdir(), 'bench-history-'));
  console.log(
    `access history: ${bindings} RoleBindings in ${namespaces} namespaces + ${clusterBindings} ClusterRoleBindings, embedded PGlite${seeded ? ' (a copy of a seeded data directory)' : ''}${SHARED_BUFFERS.length ? `, ${SHARED_BUFFERS[0]}` : ''}; ${creates} creates per phase, ${CONCURRENCY} in flight`,
  );
  let server: ServerProcess | undefined;
  try {
    if (seeded) cpSync(seeded, join(work, 'data'), { recursive: true, preserveTimestamps: true });
    else {
      server = await startServerProcess(work, OFF);
      const client = server.client(CONCURRENCY);
      const preloadStarted = performance.now();
      await inFlight(namespaces, async (i) => void (await client.must('POST', '/api/v1/namespaces', { metadata: { name: `ns-${i}` } }, 201)));
      await inFlight(bindings, async (i) => void (await client.must('POST', `${RBAC}/namespaces/ns-${i % namespaces}/rolebindings`, roleBinding(`ns-${i % namespaces}`, `rb-${i}`), 201)));
      await inFlight(clusterBindings, async (i) => {
        const body = { ...roleBinding('', `crb-${i}`), metadata: { name: `crb-${i}` } };
        await client.must('POST', `${RBAC}/clusterrolebindings`, body, 201);
      });
      console.log(`  preload: ${((performance.now() - preloadStarted) / 1000).toFixed(0)} s`);
    }

    const phase = async (label: string, flags: string[]): Promise<PhaseFigures> => {
      await server?.stop();
      server = await startServerProcess(work, flags);
      const client = server.client(CONCURRENCY);
      const recording = flags === ON;
      // Warm-up: compilation, connections, and with recording on the first leader term's index.
      const warmStarted = performance.now();
      // The newest revision a create committed: its entry is the last one the recorder writes.
      let newest = 0n;
      const create = async (name: string, namespace: string) => {
        const created = await client.must('POST', `${RBAC}/namespaces/${namespace}/rolebindings`, roleBinding(namespace, name), 201);
        const revision = BigInt(created.metadata.resourceVersion);
        if (revision > newest) newest = revision;
      };
      await inFlight(200, (i) => create(`${label}-warm-${i}`, `ns-${i % namespaces}`));
      if (recording) {
        await recorded(client, newest);
        console.log(`  ${label}: the recorder caught up with the warm-up ${((performance.now() - warmStarted) / 1000).toFixed(1)} s after it began (its index of every RBAC object)`);
      }
      const cpuBefore = cpuMs(server.process.pid);
      const started = performance.now();
      const rate = await inFlight(creates, (i) => create(`${label}-${i}`, `ns-${i % namespaces}`));
      let lag = '';
      if (recording) {
        const lagMs = await recorded(client, newest);
        lag = `; last entry recorded ${lagMs.toFixed(0)} ms after the last create answered (${(creates / ((performance.now() - started) / 1000)).toFixed(0)} entries/s overall)`;
      }
      const cpuPerCreateMs = (cpuMs(server.process.pid) - cpuBefore) / creates;
      const memory = await server.process.probe();
      console.log(
        `  ${label}: ${rate.toFixed(0)} creates/s, server CPU ${cpuPerCreateMs.toFixed(2)} ms per create${lag}; heap ${memory.heapMiB.toFixed(0)} MiB, RSS ${memory.rssMiB.toFixed(0)} MiB after GC`,
      );
      return { rate, cpuPerCreateMs };
    };
    // Phases alternate off, on, off, ... and each recording phase is compared with the mean of
    // the phases on either side of it: a loaded machine's throughput drifts by as much as the
    // cost being measured, and alternating cancels the drift; the figure is the mean over pairs.
    const offPhases = [await phase('off-1', OFF)];
    const costs: { rate: number; cpu: number }[] = [];
    for (let pair = 1; pair <= PAIRS; pair++) {
      const on = await phase(`on-${pair}`, ON);
      const after = await phase(`off-${pair + 1}`, OFF);
      const before = offPhases[offPhases.length - 1];
      offPhases.push(after);
      const offRate = (before.rate + after.rate) / 2;
      const offCpu = (before.cpuPerCreateMs + after.cpuPerCreateMs) / 2;
      costs.push({ rate: 1 - on.rate / offRate, cpu: on.cpuPerCreateMs / offCpu - 1 });
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
    console.log(
      `  recording on against the phases around it: cost ${costs.map((c) => percent(c.rate)).join(', ')} of create throughput, mean ${percent(mean(costs.map((c) => c.rate)))} (target <= 10%); CPU per create ${costs.map((c) => percent(c.cpu)).join(', ')} more, mean ${percent(mean(costs.map((c) => c.cpu)))}`,
    );
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
