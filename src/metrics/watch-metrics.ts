import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from './registry';

/** kube's watch metrics (apiserver/pkg/storage/cacher/metrics): names, help texts and labels are kube's. */

const registered = new Gauge({
  name: 'apiserver_registered_watchers',
  help: 'Number of currently registered watchers for a given resources',
  labelNames: ['group', 'resource'],
  registers: [metricsRegistry],
});

const terminated = new Counter({
  name: 'apiserver_terminated_watchers_total',
  help: 'Counter of watchers closed due to unresponsiveness broken by resource type.',
  labelNames: ['group', 'resource'],
  registers: [metricsRegistry],
});

export interface WatchedResource {
  group: string;
  resource: string;
}

export function recordWatcherRegistered(watched: WatchedResource): void {
  registered.inc({ group: watched.group, resource: watched.resource });
}

export function recordWatcherClosed(watched: WatchedResource, unresponsive: boolean): void {
  registered.dec({ group: watched.group, resource: watched.resource });
  if (unresponsive) terminated.inc({ group: watched.group, resource: watched.resource });
}
