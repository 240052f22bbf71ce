import 'reflect-metadata';
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { resolveRequestInfo } from '../src/endpoints/request/request-info';
import { requestKindOf, requestMetricLabels } from '../src/endpoints/request/request-metric-labels';
import { recordAuthentication } from '../src/metrics/authentication-metrics';
import { recordRequest, recordRequestStarted } from '../src/metrics/request-metrics';
import { prepareReviewServer, REVIEW_HEADERS, REVIEWS_PATH, review } from './access-reviews';
import { LoadResult, runLoad } from './load';
import { startBaseline, startBenchServer } from './servers';

/**
 * The cost of the request metrics per request: the SubjectAccessReview benchmark against
 * two servers in the same run, one recording the request metrics and one not (the
 * `requestMetrics` option), each as a ratio of the bare Nest + Express baseline; the
 * three alternate round by round so a slow spell of the machine hits them alike.
 *
 * Throughput on a shared machine swings with the neighbours' load, so two steadier figures
 * come with it: the servers' main-thread busy time per review (event loop utilization while
 * each one alone is under load; the load comes from a worker thread), and the CPU time of the
 * metrics' own work per request measured in a loop.
 *
 * Run alone with `npm run bench -- metrics-cost`.
 */
const CONNECTIONS = 50;
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const WARMUP_MS = 10_000;

export async function runMetricsCostBench(): Promise<void> {
  const withMetrics = await startBenchServer(undefined, { authorizationModes: ['Node', 'RBAC'] });
  const without = await startBenchServer(undefined, { authorizationModes: ['Node', 'RBAC'], requestMetrics: false });
  const m = withMetrics.running.material;
  const baseline = await startBaseline({ key: m.servingKeyPem, cert: m.servingCertPem, ca: m.caCertPem });
  try {
    const tlsWith = await prepareReviewServer(withMetrics);
    const tlsWithout = await prepareReviewServer(without);
    const busyUs: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const load = async (url: string, path: string, tls: { ca: string; cert?: string; key?: string }, durationMs: number, side?: 'on' | 'off') => {
      const before = performance.eventLoopUtilization();
      const result = await runLoad({ url, method: 'POST', path, body: review, headers: REVIEW_HEADERS, tls, connections: CONNECTIONS, durationMs, expectStatus: 201, warmupMs: side ? 0 : undefined });
      const used = performance.eventLoopUtilization(before);
      if (side && result.requests) busyUs[side].push((used.active * 1000) / result.requests);
      return result;
    };
    await load(withMetrics.running.url, REVIEWS_PATH, tlsWith, WARMUP_MS);
    await load(without.running.url, REVIEWS_PATH, tlsWithout, WARMUP_MS);
    await load(baseline.url, '/baseline', { ca: m.caCertPem }, WARMUP_MS / 2);
    const rounds: Array<{ base: LoadResult; on: LoadResult; off: LoadResult }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const base = await load(baseline.url, '/baseline', { ca: m.caCertPem }, DURATION_MS);
      const on = await load(withMetrics.running.url, REVIEWS_PATH, tlsWith, DURATION_MS, 'on');
      const off = await load(without.running.url, REVIEWS_PATH, tlsWithout, DURATION_MS, 'off');
      if (on.errors || off.errors) throw new Error(`review errors: ${on.errors + off.errors} (${on.firstError ?? off.firstError})`);
      console.log(
        `  round ${round + 1}: baseline ${base.perSecond.toFixed(0)}/s, with metrics ${on.perSecond.toFixed(0)}/s (${(on.perSecond / base.perSecond).toFixed(3)}), without ${off.perSecond.toFixed(0)}/s (${(off.perSecond / base.perSecond).toFixed(3)})`,
      );
      rounds.push({ base, on, off });
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const ratioOn = median(rounds.map((r) => r.on.perSecond / r.base.perSecond));
    const ratioOff = median(rounds.map((r) => r.off.perSecond / r.base.perSecond));
    const onOff = median(rounds.map((r) => r.on.perSecond / r.off.perSecond));
    const usOn = 1e6 / median(rounds.map((r) => r.on.perSecond));
    const usOff = 1e6 / median(rounds.map((r) => r.off.perSecond));
    console.log(`SubjectAccessReview / baseline with request metrics: ${ratioOn.toFixed(3)}; without: ${ratioOff.toFixed(3)} (medians of ${ROUNDS} rounds, ${CONNECTIONS} connections)`);
    console.log(`with / without metrics (throughput): ${onOff.toFixed(3)}; wall time per request ${usOn.toFixed(1)} us with, ${usOff.toFixed(1)} us without`);
    const busyOn = median(busyUs.on);
    const busyOff = median(busyUs.off);
    console.log(`main-thread busy time per review: ${busyOn.toFixed(1)} us with metrics, ${busyOff.toFixed(1)} us without (without / with = ${(busyOff / busyOn).toFixed(3)})`);
    const micro = metricsWorkMicroseconds();
    console.log(`the metrics' own work per request (loop of 200,000): ${micro.toFixed(2)} us CPU = ${((100 * micro) / busyOff).toFixed(1)}% of a review's busy time without metrics`);
  } finally {
    await baseline.close();
    await withMetrics.close();
    await without.close();
  }
}

/**
 * CPU time of what the metrics add to one review request: the in-flight count, the labels,
 * the counter and histograms, the authentication metrics, the close listener.
 */
export function metricsWorkMicroseconds(iterations = 200_000): number {
  const path = REVIEWS_PATH;
  const info = resolveRequestInfo('POST', path, {});
  const served = true;
  const run = (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = new EventEmitter();
      const end = recordRequestStarted(requestKindOf('POST', info));
      recordAuthentication('success', 0.0001);
      res.once('close', () => {
        end();
        const labels = requestMetricLabels({ info, method: 'POST', path, contentType: 'application/json', dryRun: undefined, served, code: 201 });
        recordRequest(labels, 201, 0.002, 0);
      });
      res.emit('close');
    }
  };
  run(20_000);
  const started = process.cpuUsage();
  run(iterations);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / iterations;
}
