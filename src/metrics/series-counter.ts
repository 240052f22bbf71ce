import { BoundSeriesMetric } from './bound-series';

/** One label set's counter: incrementing costs one addition. */
export interface CounterSeries {
  inc(amount?: number): void;
}

/** What the registry reads of a metric (prom-client's shape for a counter's values). */
interface CounterValues {
  name: string;
  help: string;
  type: 'counter';
  aggregator: 'sum';
  values: Array<{ value: number; labels: Record<string, string> }>;
}

interface Series extends CounterSeries {
  labels: Record<string, string>;
  value: number;
  /** prom-client shows a series from its first increment on, not from when it is bound. */
  counted: boolean;
}

/**
 * A counter whose label sets are bound once (`series(labels)`), for counts made on every
 * request: prom-client's `labels()` only binds the arguments, so each increment still
 * validates the labels and builds their hash string (with the histograms of the same
 * request, ~4 KiB allocated per request). It renders as prom-client's Counter does
 * (registered in the same registry, read by the same text format): a series appears at its
 * first increment, in the order of first increments.
 */
export class SeriesCounter<L extends string> extends BoundSeriesMetric<L, CounterSeries> {
  readonly type = 'counter';
  /** Series in the order of their first increment (prom-client's order). */
  private readonly counted: Series[] = [];

  protected makeSeries(labels: Record<string, string>): Series {
    const counted = this.counted;
    const made: Series = {
      labels,
      value: 0,
      counted: false,
      inc(amount = 1) {
        if (!made.counted) {
          made.counted = true;
          counted.push(made);
        }
        made.value += amount;
      },
    };
    return made;
  }

  async get(): Promise<CounterValues> {
    return { help: this.help, name: this.name, type: this.type, values: this.counted.map((s) => ({ value: s.value, labels: s.labels })), aggregator: this.aggregator };
  }

  /** Hides every series until it is counted again (the registry's resetMetrics); series handed out stay bound. */
  reset(): void {
    for (const s of this.counted) {
      s.value = 0;
      s.counted = false;
    }
    this.counted.length = 0;
  }
}
