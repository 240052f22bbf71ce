import { BoundSeriesMetric } from './bound-series';

/** One label set's histogram: observing costs a bucket search and three additions. */
export interface HistogramSeries {
  observe(value: number): void;
}

/** What the registry reads of a metric (prom-client's shape for a histogram's values). */
interface HistogramValues {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }>;
}

interface Series extends HistogramSeries {
  labels: Record<string, string>;
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * A histogram whose label sets are bound once (`series(labels)`), for observations made per
 * watcher per event: prom-client's Histogram validates and hashes the labels on every
 * observation, which in a fan-out to a thousand watchers cost more than writing the event.
 * It renders as prom-client's own histograms do (registered in the same registry, read by
 * the same text format): cumulative `_bucket` series with `le`, then `_sum` and `_count`.
 */
export class SeriesHistogram<L extends string> extends BoundSeriesMetric<L, HistogramSeries> {
  readonly type = 'histogram';

  constructor(
    name: string,
    help: string,
    labelNames: readonly L[],
    private readonly upperBounds: readonly number[],
  ) {
    super(name, help, labelNames);
  }

  protected makeSeries(labels: Record<string, string>): Series {
    const bounds = this.upperBounds;
    const made: Series = {
      labels,
      buckets: bounds.map(() => 0),
      sum: 0,
      count: 0,
      observe(value: number) {
        for (let i = 0; i < bounds.length; i++) {
          if (value <= bounds[i]) {
            made.buckets[i]++;
            break;
          }
        }
        made.sum += value;
        made.count++;
      },
    };
    return made;
  }

  private all(): Series[] {
    return [...this.boundSeries()] as Series[];
  }

  /** Observations so far per label set: count and sum (for metrics derived from this one). */
  totals(): Array<{ labels: Record<L, string>; count: number; sum: number }> {
    return this.all().map((s) => ({ labels: s.labels as Record<L, string>, count: s.count, sum: s.sum }));
  }

  async get(): Promise<HistogramValues> {
    const values: HistogramValues['values'] = [];
    for (const s of this.all()) {
      let cumulative = 0;
      this.upperBounds.forEach((le, i) => {
        cumulative += s.buckets[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { le, ...s.labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...s.labels }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...s.labels }, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...s.labels }, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Zeroes every series (the registry's resetMetrics); series handed out stay bound. */
  reset(): void {
    for (const s of this.all()) {
      s.buckets.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}
