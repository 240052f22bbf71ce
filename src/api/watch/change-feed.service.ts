import { Inject, Injectable, OnApplicationBootstrap, BeforeApplicationShutdown, Optional } from '@nestjs/common';
import { OBJECT_STORE, ObjectStore } from '../../storage/object-store';
import { CHANGE_WAKEUPS } from '../../storage/storage.module';
import { ChangeFeed, WakeupSource } from './change-feed';
import { WatchStream } from './watch-stream';

/**
 * The process-wide change feed plus the open watch streams, so shutdown ends every watch
 * cleanly instead of leaving clients hanging.
 */
@Injectable()
export class ChangeFeedService extends ChangeFeed implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly streams = new Set<WatchStream>();

  constructor(@Inject(OBJECT_STORE) store: ObjectStore, @Optional() @Inject(CHANGE_WAKEUPS) wakeups: WakeupSource | null) {
    super(store, wakeups ?? null);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const stream of [...this.streams]) stream.close();
    await this.stop();
  }

  track(stream: WatchStream): void {
    this.streams.add(stream);
    stream.onClose(() => this.streams.delete(stream));
  }
}
