import 'reflect-metadata';
import { prepareReviewServer, REVIEW_HEADERS, REVIEWS_PATH, review } from './access-reviews';
import { LoadResult, runLoad } from './load';
import { startBaseline, startBenchServer } from './servers';

/**
 * The cost of the request metrics per request: the SubjectAccessReview benchmark against
 * two servers in the same run, one recording the request metrics and one not (the
 * `requestMetrics` option), each as a ratio of the bare Nest + Express baseline; the
 * three alternate round by round so a slow spell of the machine hits them alike.
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
    const load = (url: string, path: string, tls: { ca: string; cert?: string; key?: string }, durationMs: number) =>
      runLoad({ url, method: 'POST', path, body: review, headers: REVIEW_HEADERS, tls, connections: CONNECTIONS, durationMs, expectStatus: 201 });
    await load(withMetrics.running.url, REVIEWS_PATH, tlsWith, WARMUP_MS);
    await load(without.running.url, REVIEWS_PATH, tlsWithout, WARMUP_MS);
    await load(baseline.url, '/baseline', { ca: m.caCertPem }, WARMUP_MS / 2);
    const rounds: Array<{ base: LoadResult; on: LoadResult; off: LoadResult }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const base = await load(baseline.url, '/baseline', { ca: m.caCertPem }, DURATION_MS);
      const on = await load(withMetrics.running.url, REVIEWS_PATH, tlsWith, DURATION_MS);
      const off = await load(without.running.url, REVIEWS_PATH, tlsWithout, DURATION_MS);
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
    console.log(`with / without metrics: ${onOff.toFixed(3)}; server time per request ${usOn.toFixed(1)} us with, ${usOff.toFixed(1)} us without (${(usOn - usOff).toFixed(1)} us for the metrics)`);
  } finally {
    await baseline.close();
    await withMetrics.close();
    await without.close();
  }
}
