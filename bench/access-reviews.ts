import 'reflect-metadata';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditOptions, defaultAuditOptions } from '../src/config/options';
import { issueClientCertificate } from '../src/server/certificates';
import { runLoad } from './load';
import { describeCost, median, runMeasuredLoad } from './main-thread-cost';
import { ThreadProfile } from './profile';
import { BenchServer, startBaseline, startBenchServer } from './servers';

/**
 * SubjectAccessReview throughput over HTTPS, against a bare Nest + Express endpoint with the
 * same TLS material measured in the same run (targets: at least 0.85 of its requests/s, at
 * most 1.15x its main-thread CPU per request, a p99 within 1.3x its p99, at 50 connections),
 * with the GC time and heap bytes allocated per request of both. The load comes from a worker thread.
 *
 * The caller is an ordinary user allowed to create reviews through `system:auth-delegator`
 * (as an authenticating proxy or webhook would be); the question is answered by RBAC from a
 * few bindings of the subject, with the default policy in place.
 *
 * Run alone with `npm run bench -- reviews`; `npm run bench -- reviews audit` runs it with
 * every request audited at Metadata level through the log backend (blocking mode, JSON lines
 * to a file), so the two ratios give the cost of auditing.
 */
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const CONNECTIONS = 50;
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const WARMUP_MS = 10_000;
const PROFILE_PREFIX = process.env.BENCH_PROFILE;
const REVIEWS = '/apis/authorization.platform.io/v1/subjectaccessreviews';

export const REVIEWS_PATH = REVIEWS;
export const REVIEW_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' };

export const review = JSON.stringify({
  apiVersion: 'authorization.platform.io/v1',
  kind: 'SubjectAccessReview',
  spec: {
    user: 'alice',
    groups: ['devs', 'system:authenticated'],
    resourceAttributes: { namespace: 'team-a', verb: 'get', group: '', resource: 'pods', name: 'web-0' },
  },
});

/** The bindings the review needs, and the TLS identity of the delegating caller. */
export async function prepareReviewServer(server: BenchServer): Promise<{ ca: string; cert: string; key: string }> {
  const admin = server.client(4);
  const must = async (method: string, path: string, body: unknown) => {
    const res = await admin.request(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  await must('POST', '/api/v1/namespaces', { metadata: { name: 'team-a' } });
  await must('POST', `${RBAC}/clusterrolebindings`, {
    metadata: { name: 'bench-delegator' },
    roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
    subjects: [{ kind: 'User', name: 'bench-delegator' }],
  });
  await must('POST', `${RBAC}/namespaces/team-a/rolebindings`, {
    metadata: { name: 'devs-view' },
    roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'Group', name: 'devs' }],
  });
  const m = server.running.material;
  const delegator = issueClientCertificate(m.clientCaPems[0], m.caKeyPem!, 'bench-delegator', []);
  return { ca: m.caCertPem, cert: delegator.certPem, key: delegator.keyPem };
}

/** A Metadata-level policy for every request, logged to a file in a fresh directory. */
function metadataAudit(): { options: AuditOptions; logPath: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-audit-'));
  const policyFile = join(dir, 'policy.yaml');
  writeFileSync(policyFile, 'apiVersion: audit.platform.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  const logPath = join(dir, 'audit.log');
  return { options: { ...defaultAuditOptions(), policyFile, logPath }, logPath, dir };
}

export async function runAccessReviewBench(withAudit = process.argv.includes('audit')): Promise<void> {
  const audit = withAudit ? metadataAudit() : undefined;
  if (audit) console.log(`SubjectAccessReview with audit: Metadata level for every request, log backend (blocking, json) to ${audit.logPath}`);
  const server = await startBenchServer(undefined, { authorizationModes: ['Node', 'RBAC'], ...(audit ? { audit: audit.options } : {}) });
  try {
    const tls = await prepareReviewServer(server);
    const m = server.running.material;
    const headers = REVIEW_HEADERS;

    // Baseline and reviews alternate, so a slow spell of the machine hits both alike; the
    // figures are the medians of the rounds.
    const baseline = await startBaseline({ key: m.servingKeyPem, cert: m.servingCertPem, ca: m.caCertPem });
    const rounds: Array<{ base: Awaited<ReturnType<typeof runMeasuredLoad>>; ours: Awaited<ReturnType<typeof runMeasuredLoad>> }> = [];
    try {
      // A server runs for days: both sides first get load until their code is optimized.
      await runLoad({ url: server.running.url, method: 'POST', path: REVIEWS, body: review, headers, tls, connections: CONNECTIONS, durationMs: WARMUP_MS, expectStatus: 201 });
      await runLoad({ url: baseline.url, method: 'POST', path: '/baseline', body: review, headers, tls: { ca: m.caCertPem }, connections: CONNECTIONS, durationMs: WARMUP_MS / 2, expectStatus: 201 });
      if (PROFILE_PREFIX) {
        const profile = new ThreadProfile(PROFILE_PREFIX);
        await profile.start();
        await runLoad({ url: server.running.url, method: 'POST', path: REVIEWS, body: review, headers, tls, connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: 0, expectStatus: 201 });
        await profile.stop();
        console.log(`profile written: ${PROFILE_PREFIX}.cpuprofile, ${PROFILE_PREFIX}.heapprofile`);
      }
      for (let round = 0; round < ROUNDS; round++) {
        const base = await runMeasuredLoad({
          url: baseline.url, method: 'POST', path: '/baseline', body: review, headers, tls: { ca: m.caCertPem },
          connections: CONNECTIONS, durationMs: DURATION_MS, expectStatus: 201,
        });
        const ours = await runMeasuredLoad({
          url: server.running.url, method: 'POST', path: REVIEWS, body: review, headers, tls,
          connections: CONNECTIONS, durationMs: DURATION_MS, expectStatus: 201, expectBody: '"allowed":true',
        });
        if (ours.errors) throw new Error(`review errors: ${ours.errors} (${ours.firstError})`);
        console.log(
          `  round ${round + 1}: baseline ${base.perSecond.toFixed(0)} requests/s ${base.busyUs.toFixed(0)} us CPU, SubjectAccessReview ${ours.perSecond.toFixed(0)} requests/s ${ours.busyUs.toFixed(0)} us CPU` +
            ` (${(ours.perSecond / base.perSecond).toFixed(2)}, CPU ${(ours.busyUs / base.busyUs).toFixed(2)}x), p99 ${ours.p99Ms.toFixed(1)} ms vs ${base.p99Ms.toFixed(1)} ms`,
        );
        rounds.push({ base, ours });
      }
    } finally {
      await baseline.close();
    }
    const base = median(rounds.map((r) => r.base.perSecond));
    const ours = median(rounds.map((r) => r.ours.perSecond));
    const ratio = median(rounds.map((r) => r.ours.perSecond / r.base.perSecond));
    console.log(`baseline (bare Nest + Express HTTPS POST, ${CONNECTIONS} connections): ${base.toFixed(0)} requests/s, p99 ${median(rounds.map((r) => r.base.p99Ms)).toFixed(1)} ms`);
    console.log(`SubjectAccessReview (${CONNECTIONS} connections): ${ours.toFixed(0)} requests/s, p50 ${median(rounds.map((r) => r.ours.p50Ms)).toFixed(1)} ms, p99 ${median(rounds.map((r) => r.ours.p99Ms)).toFixed(1)} ms`);
    console.log(`SubjectAccessReview / baseline: ${ratio.toFixed(2)} (median of ${ROUNDS} alternating rounds' ratios; ratio of the medians ${(ours / base).toFixed(2)}; target >= 0.85)`);
    console.log(`CPU per request / baseline: ${median(rounds.map((r) => r.ours.busyUs / r.base.busyUs)).toFixed(2)} (target <= 1.15); p99 / baseline p99: ${median(rounds.map((r) => r.ours.p99Ms / r.base.p99Ms)).toFixed(2)} (target <= 1.3)`);
    console.log(describeCost('  baseline', rounds.map((r) => r.base)));
    console.log(describeCost('  SubjectAccessReview', rounds.map((r) => r.ours)));
    if (audit) console.log(`audit log written: ${(statSync(audit.logPath).size / 1024 / 1024).toFixed(1)} MiB`);
  } finally {
    await server.close();
    if (audit) rmSync(audit.dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runAccessReviewBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
