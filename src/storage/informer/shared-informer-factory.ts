import { BeforeApplicationShutdown, Inject, Injectable, Optional } from '@nestjs/common';
import { KubeObject } from '../../apimachinery/types';
import { ChangeFeed } from '../changefeed/change-feed';
import { ChangeFeedService } from '../changefeed/change-feed.service';
import { Informer, InformerOptions } from './informer';
import { OBJECT_STORE, ObjectStore } from '../mvcc/object-store';
import { ListEncodingWarmer } from './list-encoding-warmer';

/** Options for every informer of the factory (tests shorten the waits); none in the server. */
export const INFORMER_OPTIONS = Symbol('INFORMER_OPTIONS');

/** An informer's state as a health check reads it. */
export interface InformerSyncState {
  /** The storage resource key the informer follows. */
  resource: string;
  synced: boolean;
  /** The revision its cache reflects ('0' before the first list). */
  revision: string;
}

/**
 * client-go's SharedInformerFactory: one informer per storage resource, shared by every
 * consumer in the process (so the RBAC index and the aggregation controller hold one copy
 * of the ClusterRoles), started by the consumers that need it and stopped at shutdown. It
 * is also the registry of the process's informers and their sync state.
 */
@Injectable()
export class SharedInformerFactory implements BeforeApplicationShutdown {
  private readonly byResource = new Map<string, Informer>();
  private readonly warmers: ListEncodingWarmer[] = [];

  constructor(
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    // The process's feed; typed as the plain ChangeFeed so tests can hand in their own.
    @Inject(ChangeFeedService) private readonly feed: ChangeFeed,
    @Optional() @Inject(INFORMER_OPTIONS) private readonly options: InformerOptions = {},
  ) {}

  /** The shared informer of a storage resource (`storageResource(type)`), created on first use and not started. */
  informerFor<T extends KubeObject = KubeObject>(resource: string): Informer<T> {
    let informer = this.byResource.get(resource);
    if (!informer) {
      this.byResource.set(resource, (informer = new Informer(resource, this.store, this.feed, this.options)));
      // Lists of the cached objects find their encodings made (the first full list no longer encodes them all).
      const warmer = new ListEncodingWarmer(informer);
      this.warmers.push(warmer);
      informer.addChangeListener(warmer);
    }
    return informer as unknown as Informer<T>;
  }

  /** Every informer created so far. */
  informers(): Informer[] {
    return [...this.byResource.values()];
  }

  /** Whether list encodings of cached objects are still to be made ahead of lists (or wait for writes to go quiet). */
  listEncodingsPending(): boolean {
    return this.warmers.some((warmer) => warmer.pending());
  }

  /** The informers that were started, with whether each has synced (for readiness). */
  syncStates(): InformerSyncState[] {
    return this.informers()
      .filter((informer) => informer.isStarted())
      .map((informer) => ({ resource: informer.resource, synced: informer.hasSynced(), revision: informer.revision() }));
  }

  /**
   * client-go's WaitForCacheSync: resolves once every informer started so far has synced (or
   * failed its first list), or after `timeoutMs`; answers whether all synced.
   */
  async waitForCacheSync(timeoutMs: number): Promise<boolean> {
    const started = this.informers().filter((informer) => informer.isStarted());
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    try {
      await Promise.race([Promise.allSettled(started.map((informer) => informer.start())), timeout]);
    } finally {
      clearTimeout(timer);
    }
    return started.every((informer) => informer.hasSynced());
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers().map((informer) => informer.stop()));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }
}
