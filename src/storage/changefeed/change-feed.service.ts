import { Inject, Injectable, OnApplicationBootstrap, BeforeApplicationShutdown, Optional } from '@nestjs/common';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { OBJECT_STORE, ObjectStore } from '../mvcc/object-store';
import { CHANGE_WAKEUPS, ChangeFeed, HistoryRewrittenError, WakeupSource } from './change-feed';
import { errors } from '../../apimachinery/errors';
import { Status } from '../../apimachinery/types';
import { recordWatcherClosed, recordWatcherRegistered, WatchedResource } from '../../metrics/watch-metrics';

/** An open watch as the feed tracks it (the API layer's watch stream). */
export interface ServedWatch {
  close(): void;
  /** Closed because the client stopped reading. */
  readonly unresponsive: boolean;
  /** Sends an event (the API layer's watch stream): here, the ERROR that ends the watch. */
  send?(event: { type: 'ERROR'; object: Status }): boolean;
}

/**
 * The process-wide change feed plus the open watch streams, so shutdown ends every watch
 * cleanly instead of leaving clients hanging.
 */
@Injectable()
export class ChangeFeedService extends ChangeFeed implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly streams = new Set<ServedWatch>();

  constructor(
    @Inject(OBJECT_STORE) store: ObjectStore,
    @Optional() @Inject(CHANGE_WAKEUPS) wakeups: WakeupSource | null,
    @Optional() @Inject(SERVER_OPTIONS) options?: ServerOptions,
  ) {
    super(store, wakeups ?? null, options ? { windowBytes: options.watchCacheSizeBytes } : {});
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.endWatches();
    await this.stop();
  }

  /** How many watches are open (graceful shutdown waits for them within its grace period). */
  openWatches(): number {
    return this.streams.size;
  }

  /** Ends every open watch after the events already queued: each client gets whole frames, then the end of the stream. */
  endWatches(): void {
    for (const stream of [...this.streams]) stream.close();
  }

  /**
   * The store's log lost changes the watches may have been sent: each ends with kube's 410
   * Expired, as a watch from a compacted revision does, so its client lists again instead of
   * watching on from a revision that now names another write.
   */
  protected override onHistoryRewritten(err: HistoryRewrittenError): void {
    const status = errors.gone(`${err.message}: list again`).toStatus();
    for (const stream of [...this.streams]) {
      stream.send?.({ type: 'ERROR', object: status });
      stream.close();
    }
  }

  /**
   * Runs a watch on an open stream: registered (kube's watcher metrics) until `follow`
   * returns, then the stream is closed and nothing of the watch is held here any more.
   */
  async serve(stream: ServedWatch, watched: WatchedResource, follow: () => Promise<void>): Promise<void> {
    this.streams.add(stream);
    recordWatcherRegistered(watched);
    try {
      await follow();
    } finally {
      stream.close();
      this.streams.delete(stream);
      recordWatcherClosed(watched, stream.unresponsive);
    }
  }
}
