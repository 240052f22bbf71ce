import { metricsCatalog } from './registry';

/** kube's storage metrics (apiserver/pkg/storage/etcd3/metrics): names, help texts, labels, stability. */

/** Counts the stored objects per resource (kube's `roles.rbac.authorization.k8s.io`); installed by the store. */
export type StoredObjectCounter = () => Promise<Map<string, number>>;

let countStoredObjects: StoredObjectCounter | undefined;
/** The resources seen by the last count, reported as -1 when a count fails (kube's convention). */
const counted = new Set<string>();

metricsCatalog.gauge({
  stabilityLevel: 'STABLE',
  name: 'apiserver_storage_objects',
  help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
  labelNames: ['resource'],
  async collect() {
    if (!countStoredObjects) return;
    try {
      const counts = await countStoredObjects();
      this.reset();
      for (const resource of counted) if (!counts.has(resource)) this.set({ resource }, 0);
      for (const [resource, n] of counts) {
        counted.add(resource);
        this.set({ resource }, n);
      }
    } catch {
      for (const resource of counted) this.set({ resource }, -1);
    }
  },
});

export function setStoredObjectCounter(counter: StoredObjectCounter | undefined): void {
  countStoredObjects = counter;
}

const lists = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_storage_list_total',
  help: 'Number of LIST requests served from storage',
  labelNames: ['resource'],
});
const fetched = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_storage_list_fetched_objects_total',
  help: 'Number of objects read from storage in the course of serving a LIST request',
  labelNames: ['resource'],
});
const evaluated = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_storage_list_evaluated_objects_total',
  help: 'Number of objects tested in the course of serving a LIST request from storage',
  labelNames: ['resource'],
});
const returned = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_storage_list_returned_objects_total',
  help: 'Number of objects returned for a LIST request from storage',
  labelNames: ['resource'],
});

/** One LIST served from the store: objects read, tested against the selectors, returned. */
export function recordStorageList(resource: string, fetchedObjects: number, evaluatedObjects: number, returnedObjects: number): void {
  lists.inc({ resource });
  fetched.inc({ resource }, fetchedObjects);
  evaluated.inc({ resource }, evaluatedObjects);
  returned.inc({ resource }, returnedObjects);
}

/** kube's resource label: `<plural>.<group>`, or the plural alone in the core group. */
export function resourceLabel(group: string, plural: string): string {
  return group ? `${plural}.${group}` : plural;
}

const embeddedCalls = metricsCatalog.histogram({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_storage_embedded_call_duration_seconds',
  help: 'Time each call into the embedded store engine took in the engine\'s own thread (statements run synchronously there, an fsync included), in seconds.',
  labelNames: [],
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
});

/** One synchronous call into the embedded engine (in its thread) and how long it took. */
export function recordEmbeddedCall(seconds: number): void {
  embeddedCalls.observe(seconds);
}

const embeddedFsyncs = metricsCatalog.histogram({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_storage_embedded_fsync_duration_seconds',
  help: "Time each fsync of the embedded store took (file: 'wal' for its write-ahead log, synced before a write is acknowledged; 'data' for data files and directories), in seconds.",
  labelNames: ['file'],
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
});

/** One fsync of the embedded store (as etcd's wal_fsync_duration_seconds): what durability costs a write. */
export function recordEmbeddedFsync(file: 'wal' | 'data', seconds: number): void {
  embeddedFsyncs.observe({ file }, seconds);
}

const diskFullWrites = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_storage_disk_full_total',
  help: 'Number of writes the store refused because the disk holding its database was full (answered 503 ServiceUnavailable with Retry-After).',
  labelNames: [],
});

/** One write refused for a full disk (kube has no such counter: etcd's own alarm tells of it there). */
export function recordDiskFullWrite(): void {
  diskFullWrites.inc();
}
