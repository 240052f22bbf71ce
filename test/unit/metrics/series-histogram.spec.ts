import { Histogram, Registry } from 'prom-client';
import { SeriesHistogram } from '../../../src/metrics/series-histogram';

const BUCKETS = [1, 10, 100];
const LABELS = ['group', 'kind'] as const;

/** The same observations into prom-client's Histogram and a SeriesHistogram, each in its own registry. */
async function bothTexts(observations: Array<[Record<(typeof LABELS)[number], string>, number]>): Promise<[string, string]> {
  const theirs = new Registry();
  const histogram = new Histogram({ name: 'h', help: 'sizes', labelNames: [...LABELS], buckets: BUCKETS, registers: [theirs] });
  const ours = new Registry();
  const series = new SeriesHistogram('h', 'sizes', LABELS, BUCKETS);
  ours.registerMetric(series as never);
  for (const [labels, value] of observations) {
    histogram.observe(labels, value);
    series.series(labels).observe(value);
  }
  return [await theirs.metrics(), await ours.metrics()];
}

describe('SeriesHistogram', () => {
  it("renders exactly as prom-client's Histogram for the same observations", async () => {
    const a = { group: '', kind: 'Pod' };
    const b = { group: 'rbac', kind: 'Role' };
    const [theirs, ours] = await bothTexts([
      [a, 0.5],
      [a, 10],
      [b, 11],
      [a, 1000],
      [b, 100],
      [b, 2.5],
    ]);
    expect(ours).toBe(theirs);
    expect(ours).toContain('h_bucket{le="10",group="",kind="Pod"} 2');
    expect(ours).toContain('h_bucket{le="+Inf",group="",kind="Pod"} 3');
    expect(ours).toContain('h_sum{group="rbac",kind="Role"} 113.5');
  });

  it('binds a label set once: the same series for the same labels, whatever the object', () => {
    const series = new SeriesHistogram('h', 'sizes', LABELS, BUCKETS);
    expect(series.series({ group: 'g', kind: 'K' })).toBe(series.series({ kind: 'K', group: 'g' }));
    expect(series.series({ group: 'g', kind: 'K' })).not.toBe(series.series({ group: 'g', kind: 'L' }));
  });

  it('reports count and sum per label set, and zeroes them on reset while bound series keep counting', async () => {
    const histogram = new SeriesHistogram('h', 'sizes', LABELS, BUCKETS);
    const pods = histogram.series({ group: '', kind: 'Pod' });
    pods.observe(3);
    pods.observe(4);
    expect(histogram.totals()).toEqual([{ labels: { group: '', kind: 'Pod' }, count: 2, sum: 7 }]);
    histogram.reset();
    expect(histogram.totals()).toEqual([{ labels: { group: '', kind: 'Pod' }, count: 0, sum: 0 }]);
    pods.observe(50);
    const values = (await histogram.get()).values;
    expect(values.find((v) => v.metricName === 'h_bucket' && v.labels.le === 100)?.value).toBe(1);
    expect(values.find((v) => v.metricName === 'h_count')?.value).toBe(1);
  });
});
