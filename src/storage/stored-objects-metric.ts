import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { resourceLabel, setStoredObjectCounter } from '../metrics/storage-metrics';

/**
 * Feeds kube's `apiserver_storage_objects` gauge: at each scrape, the current objects per
 * resource, counted in the store (one grouped count over the current-state table).
 */
@Injectable()
export class StoredObjectsMetric implements OnModuleInit, OnModuleDestroy {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    setStoredObjectCounter(async () => {
      const rows: Array<{ resource: string; n: number | string }> = await this.dataSource.query(
        'SELECT resource, count(*) AS n FROM kv_current GROUP BY resource',
      );
      const counts = new Map<string, number>();
      for (const { resource, n } of rows) {
        // The store names a kind `<group>/<plural>`; kube's label is `<plural>.<group>`.
        const slash = resource.indexOf('/');
        counts.set(resourceLabel(resource.slice(0, slash), resource.slice(slash + 1)), Number(n));
      }
      return counts;
    });
  }

  onModuleDestroy(): void {
    setStoredObjectCounter(undefined);
  }
}
