import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RawClient, ServerProcess, startServerProcess } from './server-process';
import { runInFlight } from './client';
import { roleBinding } from './scale';

/**
 * What recording access history costs creates: one server process on the embedded store
 * holding BENCH_HISTORY_BINDINGS RoleBindings (default 20,000; the issue's figure is 110,000)
 * plus a tenth as many ClusterRoleBindings, restarted between phases with the access-history
 * controller off, on, and off again (`--controllers=*,-access-history`); each phase creates
 * BENCH_HISTORY_CREATES RoleBindings (default 3,000, 16 in flight) and reports creates per
 * second. With recording on it also reports how long after the last create its entry was
 * recorded (the controller's lag), and how fast entries were recorded overall.
 */
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const CHANGES = '/apis/access.platform.io/v1/accesschanges';
const CONCURRENCY = 16;
const PER_NAMESPACE = 50;
const OFF = ['--controllers=*,-access-history'];

/** `work(i)` for i < total with CONCURRENCY in flight; the rate. */
const inFlight = (total: number, work: (i: number) => Promise<void>): Promise<number> => runInFlight(total, CONCURRENCY, work);

export async function runAccessHistoryBench(): Promise<void> {
  const bindings = Number(process.env.BENCH_HISTORY_BINDINGS ?? 20_000);
  const creates = Number(process.env.BENCH_HISTORY_CREATES ?? 3000);
  const clusterBindings = Math.floor(bindings / 10);
  const namespaces = Math.ceil(bindings / PER_NAMESPACE);
  const work = mkdtempSync(join(tmpdir(), 'bench-history-'));
  console.log(`access history: ${bindings} RoleBindings in ${namespaces} namespaces + ${clusterBindings} ClusterRoleBindings, embedded PGlite; ${creates} creates per phase, ${CONCURRENCY} in flight`);
  let server: ServerProcess = await startServerProcess(work, OFF);
  try {
    let client: RawClient = server.client(CONCURRENCY);
    const preloadStarted = performance.now();
    await inFlight(namespaces, async (i) => void (await client.must('POST', '/api/v1/namespaces', { metadata: { name: `ns-${i}` } }, 201)));
    await inFlight(bindings, async (i) => void (await client.must('POST', `${RBAC}/namespaces/ns-${i % namespaces}/rolebindings`, roleBinding(`ns-${i % namespaces}`, `rb-${i}`), 201)));
    await inFlight(clusterBindings, async (i) => {
      const body = { ...roleBinding('', `crb-${i}`), metadata: { name: `crb-${i}` } };
      await client.must('POST', `${RBAC}/clusterrolebindings`, body, 201);
    });
    console.log(`  preload: ${((performance.now() - preloadStarted) / 1000).toFixed(0)} s`);

    const phase = async (label: string, flags: string[]): Promise<number> => {
      await server.stop();
      server = await startServerProcess(work, flags);
      client = server.client(CONCURRENCY);
      // Warm-up: compilation, connections, the first leader term's index.
      await inFlight(200, async (i) => void (await client.must('POST', `${RBAC}/namespaces/ns-${i % namespaces}/rolebindings`, roleBinding(`ns-${i % namespaces}`, `${label}-warm-${i}`), 201)));
      const started = performance.now();
      const rate = await inFlight(creates, async (i) => void (await client.must('POST', `${RBAC}/namespaces/ns-${i % namespaces}/rolebindings`, roleBinding(`ns-${i % namespaces}`, `${label}-${i}`), 201)));
      if (flags.length === 0) {
        const answered = performance.now();
        const last = `${label}-${creates - 1}`;
        for (;;) {
          const res = await client.must('GET', `${CHANGES}?fieldSelector=${encodeURIComponent(`subject=User:user-${last}`)}`, undefined, 200);
          if (res.items.length) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        const recorded = performance.now();
        console.log(
          `  ${label}: ${rate.toFixed(0)} creates/s; last entry recorded ${(recorded - answered).toFixed(0)} ms after the last create answered (${(creates / ((recorded - started) / 1000)).toFixed(0)} entries/s overall)`,
        );
      } else console.log(`  ${label}: ${rate.toFixed(0)} creates/s`);
      return rate;
    };
    const off1 = await phase('off', OFF);
    const on = await phase('on', []);
    const off2 = await phase('off-again', OFF);
    const off = (off1 + off2) / 2;
    console.log(`  recording on / off: ${(on / off).toFixed(3)} (cost ${((1 - on / off) * 100).toFixed(1)}% of create throughput; target <= 10%)`);
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
