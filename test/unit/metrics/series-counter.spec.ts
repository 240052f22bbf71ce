import { Counter, Registry } from 'prom-client';
import { SeriesCounter } from '../../../src/metrics/series-counter';

const LABELS = ['verb', 'code'] as const;
type Labels = Record<(typeof LABELS)[number], string>;

/** The same increments into prom-client's Counter and a SeriesCounter, each in its own registry. */
async function bothTexts(increments: Array<[Labels, number?]>): Promise<[string, string]> {
  const theirs = new Registry();
  const counter = new Counter({ name: 'c_total', help: 'requests', labelNames: [...LABELS], registers: [theirs] });
  const ours = new Registry();
  const series = new SeriesCounter('c_total', 'requests', LABELS);
  ours.registerMetric(series as never);
  for (const [labels, amount] of increments) {
    counter.inc(labels, amount);
    series.series(labels).inc(amount);
  }
  return [await theirs.metrics(), await ours.metrics()];
}

describe('SeriesCounter', () => {
  it("renders exactly as prom-client's Counter for the same increments", async () => {
    const get = { verb: 'GET', code: '200' };
    const post = { verb: 'POST', code: '201' };
    const [theirs, ours] = await bothTexts([[get], [post, 3], [get], [{ verb: 'GET', code: '404' }], [post, 0.5]]);
    expect(ours).toBe(theirs);
    expect(ours).toContain('c_total{verb="GET",code="200"} 2');
    expect(ours).toContain('c_total{verb="POST",code="201"} 3.5');
  });

  it('shows a series from its first increment on, not from when it is bound', async () => {
    const counter = new SeriesCounter('c_total', 'requests', LABELS);
    const failures = counter.series({ verb: 'GET', code: '500' });
    expect((await counter.get()).values).toEqual([]);
    failures.inc();
    expect((await counter.get()).values).toEqual([{ value: 1, labels: { verb: 'GET', code: '500' } }]);
  });

  it('binds a label set once, and after a reset hides series until they count again', async () => {
    const counter = new SeriesCounter('c_total', 'requests', LABELS);
    const a = counter.series({ verb: 'GET', code: '200' });
    expect(counter.series({ code: '200', verb: 'GET' })).toBe(a);
    const b = counter.series({ verb: 'PUT', code: '200' });
    a.inc();
    b.inc();
    counter.reset();
    expect((await counter.get()).values).toEqual([]);
    b.inc(2);
    expect((await counter.get()).values).toEqual([{ value: 2, labels: { verb: 'PUT', code: '200' } }]);
  });
});
