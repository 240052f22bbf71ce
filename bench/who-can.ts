import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { storageResource } from '../src/apimachinery/store-key';
import { KubeObject } from '../src/apimachinery/types';
import { CLUSTER_ROLE_BINDINGS_RESOURCE, ROLE_BINDINGS_RESOURCE } from '../src/authorization/rbac/policy-index';
import { RbacIndex } from '../src/authorization/rbac/rbac-index.service';
import { defaultOptions } from '../src/config/options';
import { startServer } from '../src/server/start';
import { OBJECT_STORE, ObjectStore } from '../src/storage/mvcc/object-store';
import { percentile, runInFlight } from './client';
import { seedObjects } from './rbac-authorization';
import { roleBinding } from './scale';
import { RawClient, startServerProcess } from './server-process';

/**
 * `npm run bench -- who-can`: the scale bench's ResourceAccessReview alone (who may get pods in
 * ns-0, over HTTPS, one client, sequential rounds) on a server process holding the scale
 * layout: BENCH_SCALE_BINDINGS RoleBindings (default 100,000; 50 per namespace, ClusterRole
 * view to User user-rb-<i>) plus a tenth as many ClusterRoleBindings (view to Group
 * group-crb-<i>). The bindings are bulk-loaded into the store's tables (seconds instead of the
 * scale bench's minutes of creates); BENCH_WHOCAN_DATA_DIR keeps the seeded data directory
 * there and starts later runs from a copy of it.
 *
 * Reports p50/p99 and the server main thread's CPU per answer after a restart, then again
 * after BENCH_WHOCAN_WRITES creates over HTTPS (default 5,000), as the scale bench asks
 * right after its writes. BENCH_WHOCAN_ROUNDS=0 only seeds.
 */
const RAR = '/apis/access.platform.io/v1/resourceaccessreviews';
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const PER_NAMESPACE = 50;
const GROUP = 'rbac.authorization.platform.io';

const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}), uid: `${namespace ?? ''}-${name}`, creationTimestamp: '2026-01-01T00:00:00Z' });

function* scaleObjects(bindings: number): Generator<{ resource: string; object: KubeObject }> {
  const namespaces = Math.ceil(bindings / PER_NAMESPACE);
  for (let i = 0; i < namespaces; i++) yield { resource: storageResource({ group: '', plural: 'namespaces' }), object: { apiVersion: 'v1', kind: 'Namespace', metadata: meta(`ns-${i}`), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } } as KubeObject };
  for (let i = 0; i < bindings; i++) {
    const namespace = `ns-${i % namespaces}`;
    yield { resource: ROLE_BINDINGS_RESOURCE, object: { apiVersion: `${GROUP}/v1`, kind: 'RoleBinding', ...roleBinding(namespace, `rb-${i}`), metadata: meta(`rb-${i}`, namespace) } as KubeObject };
  }
  for (let i = 0; i < Math.floor(bindings / 10); i++) {
    const object = {
      apiVersion: `${GROUP}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: meta(`crb-${i}`),
      roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'Group', apiGroup: GROUP, name: `group-crb-${i}` }],
    };
    yield { resource: CLUSTER_ROLE_BINDINGS_RESOURCE, object: object as KubeObject };
  }
}

/** Seeds `dataDir` with the scale layout through a server in this process (the bulk load needs its database). */
async function seed(dataDir: string, bindings: number): Promise<void> {
  const running = await startServer(defaultOptions({ securePort: 0, dataDir }), { logLevels: ['error'] });
  try {
    await seedObjects(running.app.get(DataSource), scaleObjects(bindings));
    const store = running.app.get<ObjectStore>(OBJECT_STORE);
    if (!(await running.app.get(RbacIndex).waitForRevision(await store.currentRevision(), 900_000))) throw new Error('the RBAC index did not catch up');
  } finally {
    await running.close();
  }
}

/** CPU time of a process's main thread in ms (the scheduler's nanosecond counter). */
const mainThreadCpuMs = (pid: number) => Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;

async function measure(label: string, client: RawClient, pid: number, rounds: number): Promise<void> {
  const body = JSON.stringify({ apiVersion: 'access.platform.io/v1', kind: 'ResourceAccessReview', spec: { resourceAttributes: { namespace: 'ns-0', verb: 'get', resource: 'pods' } } });
  const ask = async () => {
    const res = await client.send({ method: 'POST', path: RAR, body });
    if (res.status !== 201) throw new Error(`${RAR}: ${res.status} ${res.text.slice(0, 300)}`);
    return res.text;
  };
  for (let i = 0; i < 10; i++) await ask();
  const times: number[] = [];
  let bytes = 0;
  let subjects = 0;
  const cpuBefore = mainThreadCpuMs(pid);
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const text = await ask();
    const review = JSON.parse(text);
    times.push(performance.now() - started);
    bytes = Buffer.byteLength(text);
    subjects = (review.status.users?.length ?? 0) + (review.status.groups?.length ?? 0);
  }
  const cpu = (mainThreadCpuMs(pid) - cpuBefore) / rounds;
  times.sort((a, b) => a - b);
  console.log(
    `  ${label}: ${subjects} subjects, ${(bytes / 2 ** 20).toFixed(2)} MiB; p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms; server main thread ${cpu.toFixed(1)} ms CPU per answer; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

export async function runWhoCanBench(): Promise<void> {
  const bindings = Number(process.env.BENCH_SCALE_BINDINGS ?? 100_000);
  const writes = Number(process.env.BENCH_WHOCAN_WRITES ?? 5000);
  const rounds = Number(process.env.BENCH_WHOCAN_ROUNDS ?? 100);
  const keptDir = process.env.BENCH_WHOCAN_DATA_DIR;
  const namespaces = Math.ceil(bindings / PER_NAMESPACE);
  const work = mkdtempSync(join(tmpdir(), 'bench-who-can-'));
  const dataDir = join(work, 'data');
  console.log(`who-can: ${bindings} RoleBindings in ${namespaces} namespaces + ${Math.floor(bindings / 10)} ClusterRoleBindings, embedded PGlite, ${rounds} rounds`);
  try {
    if (keptDir && existsSync(join(keptDir, 'admin.kubeconfig'))) cpSync(keptDir, dataDir, { recursive: true, preserveTimestamps: true });
    else {
      const started = performance.now();
      await seed(dataDir, bindings);
      console.log(`  seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      if (keptDir) cpSync(dataDir, keptDir, { recursive: true, preserveTimestamps: true });
    }
    if (rounds <= 0) return; // only seeding the kept directory
    const server = await startServerProcess(work);
    try {
      const client = server.client(16);
      await measure('after a restart', client, server.process.pid, rounds);
      if (writes > 0) {
        await runInFlight(writes, 16, async (i) => {
          const namespace = `ns-${i % namespaces}`;
          await client.must('POST', `${RBAC}/namespaces/${namespace}/rolebindings`, roleBinding(namespace, `written-${i}`), 201);
        });
        await measure(`after ${writes} creates`, client, server.process.pid, rounds);
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
