import { exponentialBuckets } from 'prom-client';
import { metricsCatalog } from './registry';

/** kube's watch metrics (apiserver/pkg/endpoints/metrics, storage/cacher/metrics): names, help texts, labels. */

const registered = metricsCatalog.gauge({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_registered_watchers',
  help: 'Number of currently registered watchers for a given resources',
  labelNames: ['group', 'version', 'kind'],
});

const terminated = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_terminated_watchers_total',
  help: 'Counter of watchers closed due to unresponsiveness broken by resource type.',
  labelNames: ['group', 'resource'],
});

// Observed per watcher per event: each watch binds its series once (no label hashing per event).
const eventSizes = metricsCatalog.seriesHistogram({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_watch_events_sizes',
  help: 'Watch event size distribution in bytes',
  labelNames: ['group', 'version', 'kind'] as const,
  buckets: exponentialBuckets(1024, 2, 8),
});

// Every event sent is one observation of its size: the count is read from there when scraped.
metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_watch_events_total',
  help: 'Number of events sent in watch clients',
  labelNames: ['group', 'version', 'kind'],
  collect() {
    this.reset();
    for (const { labels, count } of eventSizes.totals()) this.inc(labels, count);
  },
});

/** The kind a watch serves: its group, version and kind for the watcher gauge, its plural for the cut-off counter. */
export interface WatchedResource {
  group: string;
  version: string;
  kind: string;
  resource: string;
}

export function recordWatcherRegistered(watched: WatchedResource): void {
  registered.inc({ group: watched.group, version: watched.version, kind: watched.kind });
}

export function recordWatcherClosed(watched: WatchedResource, unresponsive: boolean): void {
  registered.dec({ group: watched.group, version: watched.version, kind: watched.kind });
  if (unresponsive) terminated.inc({ group: watched.group, resource: watched.resource });
}

/** The labels of a watch's events, fixed for the life of the stream. */
export interface WatchEventLabels {
  group: string;
  version: string;
  kind: string;
}

/** Counts a watch's events and their sizes: bound once per watch, then one call per event. */
export function watchEventRecorder(labels: WatchEventLabels): (bytes: number) => void {
  const series = eventSizes.series(labels);
  return (bytes) => series.observe(bytes);
}
