import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { ChangeFeedService } from '../storage/change-feed.service';
import { Database } from '../storage/database';
import { abortableSleep, createLeaderElector, LeaderElector } from '../storage/leader-election';
import { Controller } from './controller-context';

/** Every change wakes the controllers; without changes they resync this often. */
const RESYNC_MS = 5000;
const MIN_WAIT_MS = 50;

/**
 * Runs the enabled token controllers on the leader only: each is synced fully at start,
 * after every change in the store (the change feed wakes the loop) and at least every
 * RESYNC_MS, or earlier when one asks to (a token expiring). Every sync is idempotent and
 * writes with optimistic concurrency, so an overlap of two leaders is harmless.
 *
 * This is the change-feed pattern of the namespace controller; each controller's `sync`
 * is its whole reconcile and does not depend on how it is woken, so moving to the shared
 * informer replaces only this loop (the informer's events then call `sync`).
 */
export class ControllerRunner implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Controllers');
  private readonly elector: LeaderElector;

  constructor(
    private readonly controllers: Controller[],
    private readonly feed: ChangeFeedService,
    db: Database,
  ) {
    this.elector = createLeaderElector(db, 'token-controllers');
  }

  async start(): Promise<void> {
    if (this.controllers.length) await this.elector.start((lost) => this.lead(lost));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.elector.stop();
  }

  private async lead(lost: AbortSignal): Promise<void> {
    while (!lost.aborted) {
      const cursor = this.feed.headRevision();
      let wakeAt = Date.now() + RESYNC_MS;
      for (const controller of this.controllers) {
        if (lost.aborted) return;
        try {
          const due = await controller.sync();
          if (typeof due === 'number') wakeAt = Math.min(wakeAt, due);
        } catch (err) {
          if (!lost.aborted) this.logger.error(`${controller.name} sync failed: ${(err as Error).message}`);
        }
      }
      const wait = Math.max(MIN_WAIT_MS, wakeAt - Date.now());
      const began = Date.now();
      const woke = await Promise.race([this.feed.waitForNewer(cursor, wait), abortableSleep(wait, lost).then(() => false)]);
      // A stopped feed answers at once: do not spin.
      if (!woke && Date.now() - began < MIN_WAIT_MS) await abortableSleep(wait, lost);
    }
  }
}
