import { exponentialBuckets } from 'prom-client';
import { metricsCatalog } from './registry';

/**
 * kube's request metrics (apiserver/pkg/endpoints/metrics): names, help texts, labels,
 * buckets and stability levels are kube's. Unlike kube, requests refused by authentication
 * (401) or authorization (403) are counted too. Label values come from the request info,
 * bounded by the caller (see src/endpoints/filters/request-metrics.middleware.ts).
 */

const requestLabels = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

// Counted and observed on every request: their label sets are bound once (no label hashing per request).
const requests = metricsCatalog.seriesCounter({
  stabilityLevel: 'STABLE',
  name: 'apiserver_request_total',
  help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
  labelNames: [...requestLabels, 'code'] as const,
});

const latency = metricsCatalog.seriesHistogram({
  stabilityLevel: 'STABLE',
  name: 'apiserver_request_duration_seconds',
  help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
  labelNames: requestLabels,
  buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
});

const sizeLabels = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

const responseSizes = metricsCatalog.seriesHistogram({
  stabilityLevel: 'STABLE',
  name: 'apiserver_response_sizes',
  help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
  labelNames: sizeLabels,
  // 1 KB to 10 GB.
  buckets: exponentialBuckets(1000, 10, 8),
});

const longRunning = metricsCatalog.gauge({
  stabilityLevel: 'STABLE',
  name: 'apiserver_longrunning_requests',
  help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
  labelNames: sizeLabels,
});

const inflight = metricsCatalog.gauge({
  stabilityLevel: 'STABLE',
  name: 'apiserver_current_inflight_requests',
  help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
  labelNames: ['request_kind'],
});

const deprecatedApis = metricsCatalog.gauge({
  stabilityLevel: 'STABLE',
  name: 'apiserver_requested_deprecated_apis',
  help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
  labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
});

/** What a request is about, as the metrics label it. */
export interface RequestLabels {
  /** kube's reported verb: LIST, WATCH, GET, POST, PUT, PATCH, APPLY, DELETE, DELETECOLLECTION, or the method. */
  verb: string;
  dry_run: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  component: string;
}

export type RequestKind = 'readOnly' | 'mutating';

/**
 * kube reports the highest number of requests in flight during the last second (its
 * watermark), not the instantaneous count that a scrape would almost always see as 1.
 */
class InflightWatermark {
  private current: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  private high: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  private windowStart = Date.now();

  constructor() {
    inflight.set({ request_kind: 'readOnly' }, 0);
    inflight.set({ request_kind: 'mutating' }, 0);
  }

  started(kind: RequestKind): void {
    this.roll();
    this.current[kind]++;
    if (this.current[kind] > this.high[kind]) {
      this.high[kind] = this.current[kind];
      inflight.set({ request_kind: kind }, this.high[kind]);
    }
  }

  finished(kind: RequestKind): void {
    this.roll();
    this.current[kind]--;
  }

  private roll(): void {
    const now = Date.now();
    if (now - this.windowStart < 1000) return;
    this.windowStart = now;
    for (const kind of ['readOnly', 'mutating'] as const) {
      this.high[kind] = this.current[kind];
      inflight.set({ request_kind: kind }, this.current[kind]);
    }
  }
}

const watermark = new InflightWatermark();

/** A request entered the server; returns the call that ends its in-flight count. */
export function recordRequestStarted(kind: RequestKind): () => void {
  watermark.started(kind);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    watermark.finished(kind);
  };
}

/** The series of one label set, looked up once: the label sets are bounded, the requests are not. */
interface RequestSeries {
  count: { inc(): void };
  latency: { observe(value: number): void };
  size?: { observe(value: number): void };
}

const seriesByKey = new Map<string, RequestSeries>();

function seriesOf(labels: RequestLabels, code: number): RequestSeries {
  const key = `${labels.verb} ${labels.dry_run} ${labels.group} ${labels.version} ${labels.resource} ${labels.subresource} ${labels.scope} ${labels.component} ${code}`;
  let series = seriesByKey.get(key);
  if (!series) {
    const { dry_run: _dryRun, ...sized } = labels;
    series = {
      count: requests.series({ ...labels, code: String(code) }),
      latency: latency.series(labels),
      // As kube: response sizes of reads only.
      size: labels.verb === 'GET' || labels.verb === 'LIST' ? responseSizes.series(sized) : undefined,
    };
    seriesByKey.set(key, series);
  }
  return series;
}

/** A request finished: counted with its code, its latency and (for reads) its response size observed. */
export function recordRequest(labels: RequestLabels, code: number, seconds: number, responseBytes: number): void {
  const series = seriesOf(labels, code);
  series.count.inc();
  series.latency.observe(seconds);
  series.size?.observe(responseBytes);
}

/** A long-running request (a watch) started; returns the call that ends it. */
export function recordLongRunningStarted(labels: RequestLabels): () => void {
  const { dry_run: _dryRun, ...gauged } = labels;
  longRunning.inc(gauged);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    longRunning.dec(gauged);
  };
}

export interface DeprecatedApiRequest {
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** `1.Y`, or '' when no removal is planned. */
  removedRelease: string;
}

/** A deprecated API version was requested: its series is 1 from then on. */
export function recordDeprecatedApiRequest(r: DeprecatedApiRequest): void {
  deprecatedApis.set({ group: r.group, version: r.version, resource: r.resource, subresource: r.subresource, removed_release: r.removedRelease }, 1);
}
