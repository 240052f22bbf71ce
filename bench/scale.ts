import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, runInFlight } from './client';
import { samplesDuring, startLivezSampler, wallNow } from './livez-samples';
import { RawClient, startServerProcess } from './server-process';

/**
 * The server holding many bindings (the issue's load: RoleBindings in many namespaces plus
 * ClusterRoleBindings), in a process of its own:
 * - creates per second at the start and at the end of the writes (16 in flight);
 * - a full list of every RoleBinding against its floor, a bare Node HTTPS server sending the
 *   same JSON bytes from memory in the same run; /livez's delay while the list is written;
 * - a paged walk in pages of 500 (each page's p99, the whole walk against the full list) and
 *   an informer's list + watch until synced;
 * - SubjectAccessReview p99 with few bindings and with all of them; ResourceAccessReview p99 (who-can, thousands of subjects);
 * - resident memory after the writes and after a restart, and the restart until /readyz is 200.
 * BENCH_SCALE_BINDINGS sets the RoleBindings (default 100,000; ClusterRoleBindings are a tenth of them);
 * BENCH_SCALE_LISTS_ONLY=1 measures only the writes, the full list and the paged walk (BENCH_SCALE_WALKS
 * walks, default 1: each is told, the best against the faster of the two full lists);
 * with DATABASE_URL, the server uses that PostgreSQL database (give it an empty one).
 */
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const SAR = '/apis/authorization.platform.io/v1/subjectaccessreviews';
const RAR = '/apis/access.platform.io/v1/resourceaccessreviews';
const CONCURRENCY = 16;
const PER_NAMESPACE = 50;
/** How long the server is left idle before its resident memory is read again. */
const SETTLE_MS = 30_000;

export const roleBinding = (namespace: string, name: string) => ({
  metadata: { name, namespace },
  roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
  subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: `user-${name}` }],
});
const clusterRoleBinding = (name: string) => ({
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
  subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.platform.io', name: `group-${name}` }],
});

/** `work(i)` for i < total with CONCURRENCY in flight; the rate. */
const inFlight = (total: number, work: (i: number) => Promise<void>): Promise<number> => runInFlight(total, CONCURRENCY, work);

/**
 * who-can over HTTPS: every subject that may get pods in ns-0 (its RoleBindings' users and
 * every ClusterRoleBinding's group). Each round is timed until the answer's last byte, as the
 * lists are: parsing 2 MiB of JSON is the client's own work (15 ms and more here), and the
 * count of subjects is read from the last answer outside the timed part.
 */
async function rarP99(client: RawClient, rounds = 100): Promise<{ p99: number; subjects: number }> {
  const body = JSON.stringify({ apiVersion: 'access.platform.io/v1', kind: 'ResourceAccessReview', spec: { resourceAttributes: { namespace: 'ns-0', verb: 'get', resource: 'pods' } } });
  const times: number[] = [];
  let last = '';
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const res = await client.send({ method: 'POST', path: RAR, body });
    times.push(performance.now() - started);
    if (res.status !== 201) throw new Error(`POST ${RAR}: ${res.status} ${res.text.slice(0, 300)}`);
    last = res.text;
  }
  const review = JSON.parse(last);
  return { p99: percentile(times.sort((a, b) => a - b), 99), subjects: (review.status.users?.length ?? 0) + (review.status.groups?.length ?? 0) };
}

async function sarP99(client: RawClient, rounds = 300): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await client.must('POST', SAR, { apiVersion: 'authorization.platform.io/v1', kind: 'SubjectAccessReview', spec: { user: `user-rb-${i}`, resourceAttributes: { namespace: 'ns-0', verb: 'get', resource: 'pods' } } }, 201);
    times.push(performance.now() - started);
  }
  return percentile(times.sort((a, b) => a - b), 99);
}

/** A GET whose body is read and dropped: the time until its last byte, and its size. */
function timedGet(url: string, tls: { ca: string; cert: string; key: string }): Promise<{ ms: number; bytes: number; text?: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    https
      .get(url, { ...tls, agent: false, headers: { Accept: 'application/json' } }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ ms: performance.now() - started, bytes }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

export async function runScaleBench(): Promise<void> {
  const bindings = Number(process.env.BENCH_SCALE_BINDINGS ?? 100_000);
  const listsOnly = process.env.BENCH_SCALE_LISTS_ONLY === '1';
  const walks = Math.max(1, Number(process.env.BENCH_SCALE_WALKS ?? 1));
  const clusterBindings = Math.floor(bindings / 10);
  const namespaces = Math.ceil(bindings / PER_NAMESPACE);
  const work = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  console.log(`scale: ${bindings} RoleBindings in ${namespaces} namespaces + ${clusterBindings} ClusterRoleBindings, ${process.env.DATABASE_URL ? `PostgreSQL (${new URL(process.env.DATABASE_URL).pathname.slice(1)})` : 'embedded PGlite'}`);
  let server = await startServerProcess(work);
  try {
    let client = server.client(CONCURRENCY);
    await inFlight(namespaces, async (i) => void (await client.must('POST', '/api/v1/namespaces', { metadata: { name: `ns-${i}` } }, 201)));
    await sarP99(client, 100); // warm-up: the first requests pay for compilation and connections
    const sarAtFew = listsOnly ? 0 : await sarP99(client);
    const firstRate = await inFlight(Math.min(1000, bindings), async (i) => void (await client.must('POST', `${RBAC}/namespaces/ns-${i % namespaces}/rolebindings`, roleBinding(`ns-${i % namespaces}`, `rb-${i}`), 201)));
    const started = performance.now();
    await inFlight(Math.max(0, bindings - 2000), async (j) => {
      const i = j + 1000;
      await client.must('POST', `${RBAC}/namespaces/ns-${i % namespaces}/rolebindings`, roleBinding(`ns-${i % namespaces}`, `rb-${i}`), 201);
    });
    const lastRate = await inFlight(Math.min(1000, Math.max(0, bindings - 1000)), async (j) => {
      const i = bindings - 1000 + j;
      await client.must('POST', `${RBAC}/namespaces/ns-${i % namespaces}/rolebindings`, roleBinding(`ns-${i % namespaces}`, `rb-${i}`), 201);
    });
    await inFlight(clusterBindings, async (i) => void (await client.must('POST', `${RBAC}/clusterrolebindings`, clusterRoleBinding(`crb-${i}`), 201)));
    console.log(`  writes: ${((performance.now() - started) / 1000).toFixed(0)} s; creates/s at the start ${firstRate.toFixed(0)}, at the end ${lastRate.toFixed(0)} (ratio ${(lastRate / firstRate).toFixed(2)}, target >= 0.9)`);
    if (!listsOnly) {
      const sarAtAll = await sarP99(client);
      console.log(`  SubjectAccessReview p99: ${sarAtFew.toFixed(2)} ms with few bindings, ${sarAtAll.toFixed(2)} ms with all (ratio ${(sarAtAll / sarAtFew).toFixed(2)}, target <= 1.3)`);
      const rar = await rarP99(client);
      console.log(`  ResourceAccessReview over HTTPS, ${rar.subjects} subjects in the answer: p99 ${rar.p99.toFixed(1)} ms (target <= 50)`);
    }

    // The full list, with /livez sampled while it is written, and its floor.
    const listUrl = `${server.url}${RBAC}/rolebindings`;
    const sampler = await startLivezSampler({ url: server.url, ...server.tls, path: '/livez', intervalMs: 10 });
    const listFrom = wallNow();
    const full = await timedGet(listUrl, server.tls);
    const listTo = wallNow();
    // The same list again: each object's encoding was kept with it by the first.
    const again = await timedGet(listUrl, server.tls);
    const samples = samplesDuring(await sampler.report(), listFrom, listTo);
    const livezWorst = Math.max(0, ...samples.map((s) => s.answeredAt - s.sentAt));
    const body = (await client.send({ method: 'GET', path: `${RBAC}/rolebindings` })).text;
    const serving = { key: readFileSync(join(work, 'data', 'pki', 'apiserver.key'), 'utf8'), cert: readFileSync(join(work, 'data', 'pki', 'apiserver.crt'), 'utf8') };
    const floor = await bareFloor(body, serving, server.tls);
    console.log(
      `  full list: ${full.ms.toFixed(0)} ms, ${(full.bytes / 2 ** 20).toFixed(1)} MiB; floor ${floor.toFixed(0)} ms (ratio ${(full.ms / floor).toFixed(2)}, target <= 3); /livez worst ${livezWorst.toFixed(0)} ms during it (${samples.length} samples, target <= 100); the same list again ${again.ms.toFixed(0)} ms (ratio ${(again.ms / floor).toFixed(2)})`,
    );

    // A paged walk, as every informer lists.
    let walk = await pagedWalk(client);
    for (let n = 1; n < walks; n++) {
      const next = await pagedWalk(client);
      console.log(`  paged walk ${n + 1}: ${next.ms.toFixed(0)} ms, page mean ${next.meanMs.toFixed(2)} ms, p99 ${next.p99Ms.toFixed(1)} ms`);
      if (next.ms < walk.ms) walk = next;
    }
    const { ms: walkMs, listRevision } = walk;
    // The informer's watch from the list's revision: synced once its stream is open.
    const watchStarted = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = https.get(`${listUrl}?watch=1&resourceVersion=${listRevision}&allowWatchBookmarks=true`, { ...server.tls, agent: false }, (res) => {
        res.destroy();
        resolve();
      });
      req.on('error', reject);
    });
    const informerSyncMs = walkMs + (performance.now() - watchStarted);
    console.log(
      `  paged walk: ${walk.pages} pages in ${walkMs.toFixed(0)} ms (ratio to the faster full list ${(walkMs / Math.min(full.ms, again.ms)).toFixed(2)}, target <= 1.5), page mean ${walk.meanMs.toFixed(2)} ms, p99 ${walk.p99Ms.toFixed(1)} ms (target <= 20); informer synced in ${(informerSyncMs / 1000).toFixed(1)} s (target <= 5)`,
    );
    if (listsOnly) return;

    const afterWrites = (await server.process.probe()).rssMiB;
    // What the lists and reviews left behind is garbage until V8 collects it (its memory reducer
    // acts once allocation has been quiet a while): resident memory again once the server was idle.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const settled = (await server.process.probe()).rssMiB;
    await server.stop();
    server = await startServerProcess(work);
    client = server.client(1);
    const afterRestart = (await server.process.probe()).rssMiB;
    const total = bindings + clusterBindings;
    console.log(
      `  restart until /readyz 200: ${(server.process.readyMs / 1000).toFixed(1)} s (target <= 10); resident memory after the writes ${afterWrites.toFixed(0)} MiB (${settled.toFixed(0)} MiB after ${SETTLE_MS / 1000} s idle), after a restart ${afterRestart.toFixed(0)} MiB (${((afterWrites * 1024) / total).toFixed(1)} / ${((afterRestart * 1024) / total).toFixed(1)} KiB per binding; target <= 600 MiB)`,
    );
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Every RoleBinding in pages of 500, one after another on one kept-alive connection: each page
 * timed until its last byte, as the full list is, its metadata (which comes before its items)
 * read for the next page's token. BENCH_SCALE_PARSE_PAGES=1 parses every page whole, as an informer does.
 */
async function pagedWalk(client: RawClient): Promise<{ ms: number; pages: number; meanMs: number; p99Ms: number; listRevision: string }> {
  const parseWhole = process.env.BENCH_SCALE_PARSE_PAGES === '1';
  const pages: number[] = [];
  const started = performance.now();
  let token: string | undefined;
  let listRevision = '';
  do {
    const pageStarted = performance.now();
    const res = await client.send({ method: 'GET', path: `${RBAC}/rolebindings?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}` });
    if (res.status !== 200) throw new Error(`paged walk: ${res.status} ${res.text.slice(0, 300)}`);
    const metadata = parseWhole ? JSON.parse(res.text).metadata : listMetadata(res.text);
    pages.push(performance.now() - pageStarted);
    token = metadata.continue;
    listRevision ||= metadata.resourceVersion;
  } while (token);
  const ms = performance.now() - started;
  return { ms, pages: pages.length, meanMs: ms / pages.length, p99Ms: percentile(pages.sort((a, b) => a - b), 99), listRevision };
}

/** The metadata of a list's JSON, which is written before its items. */
function listMetadata(text: string): { continue?: string; resourceVersion: string } {
  const itemsAt = text.indexOf('"items":[');
  return JSON.parse(`${text.slice(0, itemsAt)}"items":[]}`).metadata;
}

/** The floor of a full list: a bare Node HTTPS server sending the same bytes from memory. */
async function bareFloor(body: string, serving: { key: string; cert: string }, tls: { ca: string; cert: string; key: string }): Promise<number> {
  const bytes = Buffer.from(body, 'utf8');
  // The server's own serving certificate, so the client's TLS work is the same.
  const bare = https.createServer({ key: serving.key, cert: serving.cert }, (_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(bytes);
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const { port } = bare.address() as { port: number };
  try {
    const { ms } = await timedGet(`https://127.0.0.1:${port}/`, tls);
    return ms;
  } finally {
    await new Promise<void>((resolve) => bare.close(() => resolve()));
  }
}
