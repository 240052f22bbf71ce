import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as YAML from 'yaml';
import { BenchClient } from './client';
import { freePort, ProbedProcess, rssMiB, sleep, startProbedProcess } from './probed-process';
import type { ProbeFigures } from './process-probe';

/**
 * Memory under writes, in a server child process on a new embedded data directory (so nothing
 * of the benchmark is counted), its heap and RSS read after garbage collection:
 * - `npm run bench -- soak`: SOAK_WRITES writes (default 100,000) cycling over a pool of Roles,
 *   each worker creating, updating and deleting its own keys in turn; heap and RSS at the start
 *   and after each quarter must not grow from the middle on (past every warm-up and the fill of
 *   the change window, kept small for that);
 * - part of `-- memory`: RSS and heap after ROLE_BINDINGS RoleBindings (default 20,000; target
 *   at most 320 MiB on the embedded store).
 */
const SOAK_WRITES = Number(process.env.BENCH_SOAK_WRITES ?? 100_000);
const ROLE_BINDINGS = Number(process.env.BENCH_ROLE_BINDINGS ?? 20_000);
/**
 * The soak server's --watch-cache-size-bytes: the change window grows until it holds this
 * much, by design; a small one fills early in the run, so what grows after it is a leak.
 */
const SOAK_WINDOW_BYTES = Number(process.env.BENCH_SOAK_WINDOW_BYTES ?? 4 * 1024 * 1024);
const CONCURRENCY = 16;
/** Keys each worker cycles over (create all, update all, delete all, again). */
const KEYS_PER_WORKER = 32;
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const NAMESPACE = 'bench-soak';

const mib = (f: ProbeFigures) => `heap ${f.heapMiB.toFixed(1)} MiB, RSS ${f.rssMiB.toFixed(0)} MiB`;

/** The server with the admin credential it wrote into its data directory. */
async function startServer(work: string, flags: string[] = []): Promise<{ server: ProbedProcess; client: BenchClient }> {
  const port = await freePort();
  const dataDir = join(work, 'data');
  const args = [join(__dirname, '..', 'src', 'main.js'), `--secure-port=${port}`, '--bind-address=127.0.0.1', `--data-dir=${dataDir}`, ...flags];
  const server = await startProbedProcess('server', args, port, join(work, 'probe.json'));
  const config = YAML.parse(readFileSync(join(dataDir, 'admin.kubeconfig'), 'utf8'));
  const pem = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
  const client = new BenchClient(
    `https://127.0.0.1:${port}`,
    {
      ca: pem(config.clusters[0].cluster['certificate-authority-data']),
      cert: pem(config.users[0].user['client-certificate-data']),
      key: pem(config.users[0].user['client-key-data']),
    },
    CONCURRENCY,
  );
  const res = await client.request('POST', '/api/v1/namespaces', { metadata: { name: NAMESPACE } });
  if (res.status !== 201) throw new Error(`namespace: ${res.status}`);
  return { server, client };
}

async function must(client: BenchClient, method: string, path: string, body: unknown, status: number): Promise<void> {
  const res = await client.request(method, path, body);
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
}

const role = (name: string, verb: string) => ({ metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', verb] }] });

/** `writes` writes from CONCURRENCY workers, each cycling its own keys: create, update, delete. */
async function cycleWrites(client: BenchClient, offset: number, writes: number): Promise<void> {
  const roles = `${RBAC}/namespaces/${NAMESPACE}/roles`;
  const perWorker = Math.ceil(writes / CONCURRENCY);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      for (let done = 0; done < perWorker; ) {
        // One pass: every key of the worker goes through one step; the step follows the pass number.
        const step = Math.floor((offset + done) / KEYS_PER_WORKER) % 3;
        for (let k = 0; k < KEYS_PER_WORKER && done < perWorker; k++, done++) {
          const name = `soak-${worker}-${k}`;
          if (step === 0) await must(client, 'POST', roles, role(name, 'list'), 201);
          else if (step === 1) await must(client, 'PUT', `${roles}/${name}`, role(name, `watch`), 200);
          else await must(client, 'DELETE', `${roles}/${name}`, undefined, 200);
        }
      }
    }),
  );
}

export async function runSoakBench(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-soak-'));
  try {
    const { server, client } = await startServer(work, [`--watch-cache-size-bytes=${SOAK_WINDOW_BYTES}`]);
    try {
      await sleep(5_000);
      const start = await server.probe();
      console.log(
        `soak (embedded, ${SOAK_WRITES} writes from ${CONCURRENCY} workers, create/update/delete cycling over ${CONCURRENCY * KEYS_PER_WORKER} Roles, ` +
          `change window ${(SOAK_WINDOW_BYTES / 1048576).toFixed(0)} MiB):`,
      );
      console.log(`  start: ${mib(start)}`);
      // Four quarters, each a whole number of create/update/delete passes, probed after each:
      // growth that levels off shows in the last quarter being smaller than the third.
      const pass = 3 * KEYS_PER_WORKER * CONCURRENCY;
      const quarter = Math.floor(SOAK_WRITES / 4 / pass) * pass;
      const probes = [start];
      const started = performance.now();
      let written = 0;
      for (let q = 1; q <= 4; q++) {
        const writes = q < 4 ? quarter : SOAK_WRITES - written;
        await cycleWrites(client, written / CONCURRENCY, writes);
        written += writes;
        const probe = await server.probe();
        probes.push(probe);
        const seconds = (performance.now() - started) / 1000;
        console.log(`  after ${written} writes (${(written / seconds).toFixed(0)} writes/s): ${mib(probe)}`);
      }
      const [, , middle, third, end] = probes;
      console.log(
        `  growth middle -> end: heap ${(end.heapMiB - middle.heapMiB).toFixed(1)} MiB, RSS ${(end.rssMiB - middle.rssMiB).toFixed(0)} MiB` +
          ` (third quarter ${(third.rssMiB - middle.rssMiB).toFixed(0)}, last ${(end.rssMiB - third.rssMiB).toFixed(0)});` +
          ` start -> end: heap ${(end.heapMiB - start.heapMiB).toFixed(1)} MiB, RSS ${(end.rssMiB - start.rssMiB).toFixed(0)} MiB`,
      );
    } finally {
      client.close();
      await server.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** RSS and heap of an embedded server holding ROLE_BINDINGS RoleBindings (kept in the RBAC index). */
export async function runRoleBindingsMemory(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-bindings-'));
  try {
    const { server, client } = await startServer(work);
    try {
      await sleep(5_000);
      const empty = await server.probe();
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let i = next++; i < ROLE_BINDINGS; i = next++) {
            await must(
              client,
              'POST',
              `${RBAC}/namespaces/${NAMESPACE}/rolebindings`,
              {
                metadata: { name: `binding-${i}` },
                roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
                subjects: [{ kind: 'User', name: `user-${i}` }],
              },
              201,
            );
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      await sleep(5_000);
      const full = await server.probe();
      console.log(
        `${ROLE_BINDINGS} RoleBindings (embedded, created in ${seconds.toFixed(0)} s): RSS ${rssMiB(server.pid).toFixed(0)} MiB (target <= 320), heap ${full.heapMiB.toFixed(1)} MiB after GC` +
          ` (empty: RSS ${empty.rssMiB.toFixed(0)} MiB, heap ${empty.heapMiB.toFixed(1)} MiB); external ${empty.externalMiB.toFixed(0)} -> ${full.externalMiB.toFixed(0)} MiB,` +
          ` array buffers ${empty.arrayBuffersMiB.toFixed(0)} -> ${full.arrayBuffersMiB.toFixed(0)} MiB`,
      );
    } finally {
      client.close();
      await server.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
