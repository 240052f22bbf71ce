import { Counter, CounterConfiguration, Gauge, GaugeConfiguration, Histogram, HistogramConfiguration, Metric, Registry } from 'prom-client';
import { CURRENT_RELEASE, parseRelease, Release, releaseText } from '../apimachinery/release';
import { SeriesCounter } from './series-counter';
import { SeriesHistogram } from './series-histogram';

/** kube's metric stability levels, printed at the start of the HELP text (`[STABLE] ...`). */
export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

/** What every metric declares besides its name, help and labels. */
export interface MetricLifecycle {
  stabilityLevel: StabilityLevel;
  /** The release that deprecated the metric (`1.30`); unset while it is active. */
  deprecatedVersion?: string;
}

/**
 * How many releases a deprecated metric stays exposed before it is hidden, by stability level
 * (the deprecation policy: stable 3 releases, beta 1, alpha none).
 */
export const RELEASES_EXPOSED_AFTER_DEPRECATION: Record<StabilityLevel, number> = { STABLE: 3, BETA: 1, ALPHA: 0 };

/** Where a metric is in its lifecycle at a release. */
export type MetricState = 'active' | 'deprecated' | 'hidden';

export function metricStateAt(lifecycle: MetricLifecycle, release: Release): MetricState {
  if (!lifecycle.deprecatedVersion) return 'active';
  const deprecated = parseRelease(lifecycle.deprecatedVersion);
  if (!deprecated) throw new Error(`deprecatedVersion ${JSON.stringify(lifecycle.deprecatedVersion)} is not a release such as 1.30`);
  if (deprecated.major !== release.major) return release.major > deprecated.major ? 'hidden' : 'active';
  if (release.minor < deprecated.minor) return 'active';
  return release.minor - deprecated.minor >= RELEASES_EXPOSED_AFTER_DEPRECATION[lifecycle.stabilityLevel] ? 'hidden' : 'deprecated';
}

/** kube's HELP text: the stability level, then the deprecation notice, then the help. */
export function helpText(help: string, lifecycle: MetricLifecycle): string {
  const deprecated = lifecycle.deprecatedVersion ? `(Deprecated since ${releaseText(parseRelease(lifecycle.deprecatedVersion)!)}.0) ` : '';
  return `[${lifecycle.stabilityLevel}] ${deprecated}${help}`;
}

interface Declared {
  name: string;
  lifecycle: MetricLifecycle;
  metric: Metric;
  registered: boolean;
}

/**
 * The metrics of one registry with their lifecycle (kube's component-base metrics): each
 * declares a stability level; a deprecated one says so in its HELP text and is logged at
 * start; a hidden one is recorded but not exposed, unless `--show-hidden-metrics-for-version`
 * names the previous release (then the metrics hidden only since this release are shown).
 */
export class MetricCatalog {
  private readonly declared: Declared[] = [];

  constructor(
    readonly registry: Registry,
    private readonly release: Release = CURRENT_RELEASE,
  ) {}

  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'> & MetricLifecycle): Counter<L> {
    return this.declare(config, (help) => new Counter<L>({ ...config, help, registers: [] }));
  }

  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'> & MetricLifecycle): Gauge<L> {
    return this.declare(config, (help) => new Gauge<L>({ ...config, help, registers: [] }));
  }

  histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'> & MetricLifecycle): Histogram<L> {
    return this.declare(config, (help) => new Histogram<L>({ ...config, help, registers: [] }));
  }

  /** A histogram whose label sets are bound once, for observations on hot paths (series-histogram.ts). */
  seriesHistogram<L extends string>(config: { name: string; help: string; labelNames: readonly L[]; buckets: readonly number[] } & MetricLifecycle): SeriesHistogram<L> {
    // The registry reads any metric by its name, help, type and get(): this one renders as its own histograms do.
    return this.declare(config, (help) => new SeriesHistogram<L>(config.name, help, config.labelNames, config.buckets) as unknown as Metric) as unknown as SeriesHistogram<L>;
  }

  /** A counter whose label sets are bound once, for counts on hot paths (series-counter.ts). */
  seriesCounter<L extends string>(config: { name: string; help: string; labelNames: readonly L[] } & MetricLifecycle): SeriesCounter<L> {
    return this.declare(config, (help) => new SeriesCounter<L>(config.name, help, config.labelNames) as unknown as Metric) as unknown as SeriesCounter<L>;
  }

  /** Exposes the metrics hidden in this release that were still shown in `release` (the previous one). */
  showHidden(release: Release): void {
    for (const d of this.declared) {
      if (!d.registered && metricStateAt(d.lifecycle, release) !== 'hidden') this.register(d);
    }
  }

  /** What kube logs at registration of deprecated metrics, one line each. */
  deprecationWarnings(): string[] {
    return this.declared
      .filter((d) => d.lifecycle.deprecatedVersion && d.registered)
      .map((d) => `${d.name} is deprecated since ${releaseText(parseRelease(d.lifecycle.deprecatedVersion!)!)}; it will be hidden in a future release`);
  }

  /** The declared metrics with their stability level and state (for tests and documentation). */
  list(): Array<{ name: string; stabilityLevel: StabilityLevel; state: MetricState; exposed: boolean }> {
    return this.declared.map((d) => ({
      name: d.name,
      stabilityLevel: d.lifecycle.stabilityLevel,
      state: metricStateAt(d.lifecycle, this.release),
      exposed: d.registered,
    }));
  }

  private declare<M extends Metric>(config: { name: string; help: string } & MetricLifecycle, create: (help: string) => M): M {
    const lifecycle: MetricLifecycle = { stabilityLevel: config.stabilityLevel, deprecatedVersion: config.deprecatedVersion };
    const metric = create(helpText(config.help, lifecycle));
    const declared: Declared = { name: config.name, lifecycle, metric, registered: false };
    this.declared.push(declared);
    if (metricStateAt(lifecycle, this.release) !== 'hidden') this.register(declared);
    return metric;
  }

  private register(d: Declared): void {
    this.registry.registerMetric(d.metric);
    d.registered = true;
  }
}
