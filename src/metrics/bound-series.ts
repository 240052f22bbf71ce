/**
 * The part of a metric on a hot path that binds label sets: `series(labels)` makes a label
 * set's series on first use and hands the same one out afterwards, so observing it costs no
 * label validation or hashing (prom-client's metrics do both on every call, even through
 * `labels()`). Subclasses say what a series holds and how the metric renders, as prom-client's
 * own metrics do, so the registry reads them alike.
 */
export abstract class BoundSeriesMetric<L extends string, S> {
  readonly aggregator = 'sum';
  private readonly bound = new Map<string, S>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
  ) {}

  /** The series of `labels` (every label name given), made on first use and kept. */
  series(labels: Record<L, string>): S {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let series = this.bound.get(key);
    if (series === undefined) {
      // The labels in the declared order (prom-client renders them in the order given).
      series = this.makeSeries(Object.fromEntries(this.labelNames.map((name) => [name, labels[name]])));
      this.bound.set(key, series);
    }
    return series;
  }

  /** A new series for a label set. */
  protected abstract makeSeries(labels: Record<string, string>): S;

  /** Every series bound so far, in the order they were bound. */
  protected boundSeries(): IterableIterator<S> {
    return this.bound.values();
  }
}
