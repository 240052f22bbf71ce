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
 * `npm run bench -- access-requests`: how long an approval takes to become access. Two
 * replicas on one PostgreSQL (the access request controller runs on whichever leads); each
 * round a request is made and approved through replica A, and replica B is asked a
 * SubjectAccessReview for the requester, back to back, until it allows: the time from
 * sending the approving write to that first allow, p50 and p99.
 */
const PG_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const ROUNDS = Number(process.env.BENCH_ACCESS_REQUEST_ROUNDS ?? 100);
const GROUP = 'rbac.authorization.platform.io';
const ACCESS = '/apis/access.platform.io/v1';
const NS = 'bench';
const SAR = '/apis/authorization.platform.io/v1/subjectaccessreviews';
/** A round that has not granted by then is a failure, not a slow figure. */
const ROUND_TIMEOUT_MS = 30_000;

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
  client(user: string, groups: string[]): BenchClient;
  close(): Promise<void>;
}

async function startReplica(databaseUrl: string): Promise<Replica> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-access-'));
  const running = await startServer(defaultOptions({ securePort: 0, dataDir, databaseUrl, writeAdminKubeconfig: false }), { logLevels: ['error'] });
  const m = running.material;
  const clients: BenchClient[] = [];
  return {
    running,
    client(user, groups) {
      const cert = issueClientCertificate(m.clientCaPems[0], m.caKeyPem!, user, groups);
      const client = new BenchClient(running.url, { ca: m.caCertPem, cert: cert.certPem, key: cert.keyPem }, 4);
      clients.push(client);
      return client;
    },
    async close() {
      clients.forEach((c) => c.close());
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function expectStatus(res: Promise<{ status: number; body: any }>, status: number, what: string): Promise<any> {
  const answered = await res;
  if (answered.status !== status) throw new Error(`${what}: ${answered.status} ${JSON.stringify(answered.body)}`);
  return answered.body;
}

async function measure(a: Replica, b: Replica): Promise<number[]> {
  const admin = a.client('bench-admin', ['system:masters']);
  const requester = a.client('requester', ['devs']);
  const approver = a.client('approver', ['leads']);
  const reviewer = b.client('bench-admin', ['system:masters']);
  const clusterRole = (name: string) => ({ apiGroup: GROUP, kind: 'ClusterRole', name });
  await expectStatus(admin.request('POST', '/api/v1/namespaces', { metadata: { name: NS } }), 201, 'namespace');
  for (const [name, role, subject] of [
    ['requesters', 'access-requester', { kind: 'Group', apiGroup: GROUP, name: 'devs' }],
    ['approvers', 'access-approver', { kind: 'Group', apiGroup: GROUP, name: 'leads' }],
  ] as const) {
    await expectStatus(admin.request('POST', `/apis/${GROUP}/v1/clusterrolebindings`, { metadata: { name }, roleRef: clusterRole(role), subjects: [subject] }), 201, name);
  }
  await expectStatus(
    admin.request('POST', `/apis/${GROUP}/v1/namespaces/${NS}/rolebindings`, { metadata: { name: 'leads-edit' }, roleRef: clusterRole('edit'), subjects: [{ kind: 'Group', apiGroup: GROUP, name: 'leads' }] }),
    201,
    'approver binding',
  );
  await expectStatus(
    admin.request('POST', `${ACCESS}/accessrequestpolicies`, {
      metadata: { name: 'bench' },
      spec: { roles: [{ kind: 'ClusterRole', names: ['edit'] }], namespaces: [NS], requesters: [{ kind: 'Group', apiGroup: GROUP, name: 'devs' }], approvers: [{ kind: 'Group', apiGroup: GROUP, name: 'leads' }] },
    }),
    201,
    'policy',
  );
  const allowed = async () =>
    (
      await expectStatus(
        reviewer.request('POST', SAR, { apiVersion: 'authorization.platform.io/v1', kind: 'SubjectAccessReview', spec: { user: 'requester', resourceAttributes: { namespace: NS, verb: 'create', resource: 'configmaps' } } }),
        201,
        'review',
      )
    ).status.allowed === true;
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const path = `${ACCESS}/namespaces/${NS}/accessrequests/round-${i}`;
    const made = await expectStatus(requester.request('POST', `${ACCESS}/namespaces/${NS}/accessrequests`, { metadata: { name: `round-${i}` }, spec: { roleRef: clusterRole('edit'), duration: '1h' } }), 201, 'request');
    if (await allowed()) throw new Error('the requester had the access before the approval');
    const started = performance.now();
    await expectStatus(approver.request('PUT', `${path}/approval`, { ...made, status: { ...made.status, approvals: [{}] } }), 200, 'approval');
    while (!(await allowed())) {
      if (performance.now() - started > ROUND_TIMEOUT_MS) throw new Error(`round ${i}: no access ${ROUND_TIMEOUT_MS} ms after the approval`);
    }
    times.push(performance.now() - started);
    // Revoked again, so the next round starts without the access (no resourceVersion: the controller may write in between).
    const approved = await expectStatus(approver.request('GET', path), 200, 'read');
    await expectStatus(approver.request('PUT', `${path}/approval`, { ...approved, metadata: { ...approved.metadata, resourceVersion: undefined }, status: { ...approved.status, revocation: {} } }), 200, 'revocation');
    while (await allowed()) {
      if (performance.now() - started > 2 * ROUND_TIMEOUT_MS) throw new Error(`round ${i}: access left after the revocation`);
    }
  }
  return times.sort((x, y) => x - y);
}

export async function runAccessRequestBench(): Promise<void> {
  if (!(await reachable(PG_URL))) {
    console.log(`access requests: skipped, no PostgreSQL at ${PG_URL}`);
    return;
  }
  const db = await createScratchDatabase(PG_URL);
  const a = await startReplica(db.url);
  const b = await startReplica(db.url);
  try {
    const times = await measure(a, b);
    console.log(
      `access requests on two replicas of one PostgreSQL, ${ROUNDS} rounds: approving write on A to the first allowed SubjectAccessReview on B` +
        ` p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms`,
    );
  } finally {
    await b.close();
    await a.close();
    await db.drop();
  }
}

if (require.main === module) {
  runAccessRequestBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
