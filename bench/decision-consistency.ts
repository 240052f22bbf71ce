import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { defaultOptions } from '../src/config/options';
import { issueClientCertificate } from '../src/server/certificates';
import { RunningServer, startServer } from '../src/server/start';
import { BenchClient, percentile } from './client';
import { createScratchDatabase } from './scratch-database';

/**
 * `npm run bench -- consistency`: the reliability probe's "new enemy" test on two replicas of
 * one PostgreSQL. Each round creates a RoleBinding through replica A and, as soon as A
 * answered 201, asks replica B a SubjectAccessReview the binding allows; then deletes it
 * through A and asks B again. A stale answer is `allowed: false` after the create or
 * `allowed: true` after the delete. Run with --consistent-authorization (the default) and
 * without, in the same run, with the latency of B's reviews in each: the difference is what
 * consistency costs.
 */
const PG_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const ROUNDS = Number(process.env.BENCH_CONSISTENCY_ROUNDS ?? 500);
const RB = '/apis/rbac.authorization.platform.io/v1/namespaces/default/rolebindings';
const SAR = '/apis/authorization.platform.io/v1/subjectaccessreviews';

async function reachable(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

interface Replica {
  running: RunningServer;
  client: BenchClient;
  close(): Promise<void>;
}

async function startReplica(databaseUrl: string, consistentAuthorization: boolean): Promise<Replica> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-replica-'));
  const running = await startServer(defaultOptions({ securePort: 0, dataDir, databaseUrl, writeAdminKubeconfig: false, consistentAuthorization }), { logLevels: ['error'] });
  const m = running.material;
  const admin = issueClientCertificate(m.clientCaPems[0], m.caKeyPem!, 'bench-admin', ['system:masters']);
  const client = new BenchClient(running.url, { ca: m.caCertPem, cert: admin.certPem, key: admin.keyPem }, 4);
  return {
    running,
    client,
    async close() {
      client.close();
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface Outcome {
  staleAfterCreate: number;
  staleAfterDelete: number;
  reviewMs: number[];
}

async function rounds(a: Replica, b: Replica): Promise<Outcome> {
  const outcome: Outcome = { staleAfterCreate: 0, staleAfterDelete: 0, reviewMs: [] };
  const review = async (user: string): Promise<boolean> => {
    const started = performance.now();
    const res = await b.client.request('POST', SAR, {
      apiVersion: 'authorization.platform.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user, resourceAttributes: { namespace: 'default', verb: 'get', resource: 'configmaps' } },
    });
    outcome.reviewMs.push(performance.now() - started);
    if (res.status !== 201) throw new Error(`review: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.status.allowed === true;
  };
  for (let i = 0; i < ROUNDS; i++) {
    const user = `enemy-${i}`;
    const created = await a.client.request('POST', RB, {
      metadata: { name: user },
      roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: user }],
    });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    if (!(await review(user))) outcome.staleAfterCreate++;
    const deleted = await a.client.request('DELETE', `${RB}/${user}`);
    if (deleted.status !== 200) throw new Error(`delete: ${deleted.status}`);
    if (await review(user)) outcome.staleAfterDelete++;
  }
  return outcome;
}

export async function runDecisionConsistencyBench(): Promise<void> {
  if (!(await reachable(PG_URL))) {
    console.log(`decision consistency: skipped, no PostgreSQL at ${PG_URL}`);
    return;
  }
  const results: Array<{ consistent: boolean; outcome: Outcome }> = [];
  for (const consistent of [true, false]) {
    const db = await createScratchDatabase(PG_URL);
    const a = await startReplica(db.url, consistent);
    const b = await startReplica(db.url, consistent);
    try {
      results.push({ consistent, outcome: await rounds(a, b) });
    } finally {
      await b.close();
      await a.close();
      await db.drop();
    }
  }
  console.log(`decision consistency on two replicas of one PostgreSQL, ${ROUNDS} rounds each way (write through A, SubjectAccessReview on B):`);
  for (const { consistent, outcome } of results) {
    const sorted = [...outcome.reviewMs].sort((x, y) => x - y);
    console.log(
      `  --consistent-authorization=${consistent}: stale ${outcome.staleAfterCreate}/${ROUNDS} after create, ${outcome.staleAfterDelete}/${ROUNDS} after delete;` +
        ` review on B p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms`,
    );
  }
  const [on, off] = results.map((r) => [...r.outcome.reviewMs].sort((x, y) => x - y));
  console.log(`  added latency of consistency: p50 ${(percentile(on, 50) - percentile(off, 50)).toFixed(2)} ms, p99 ${(percentile(on, 99) - percentile(off, 99)).toFixed(2)} ms`);
}

if (require.main === module) {
  runDecisionConsistencyBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
