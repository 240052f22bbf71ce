import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { storageResource } from '../apimachinery/store-key';
import { Database } from '../storage/engine/database';
import { abortableSleep, createLeaderElector, LeaderElector } from '../storage/leader/leader-election';
import { SharedInformerFactory } from '../storage/informer/shared-informer-factory';
import { Controller } from './controller-context';

/** A change of a watched kind wakes the controllers; without changes they resync this often. */
const RESYNC_MS = 30_000;
/** Changes arriving together are handled by one sync. */
const BATCH_MS = 20;
/** Pause after a failed sync. */
const RETRY_MS = 1000;

/**
 * Runs the enabled token controllers on the leader only, on the shared informers of the
 * kinds they read: each controller's `sync` reconciles everything it owns from the caches,
 * once the informers have synced, after changes of those kinds (an informer event wakes the
 * loop), at the time a controller asks for (a token expiring) and at least every
 * RESYNC_MS. Every sync is idempotent and writes with optimistic concurrency (a conflict
 * is the next sync's), so an overlap of two leaders is harmless.
 */
export class ControllerRunner implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Controllers');
  private readonly elector: LeaderElector;
  private readonly removeHandlers: Array<() => void> = [];
  private dirty = true;
  private wake: () => void = () => undefined;

  constructor(
    private readonly controllers: Controller[],
    private readonly informers: SharedInformerFactory,
    db: Database,
  ) {
    this.elector = createLeaderElector(db, 'token-controllers');
  }

  async start(): Promise<void> {
    if (this.controllers.length) await this.elector.start((lost) => this.lead(lost));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.removeHandlers.splice(0).forEach((remove) => remove());
    this.wake();
    await this.elector.stop();
  }

  private changed = (): void => {
    this.dirty = true;
    this.wake();
  };

  private async lead(lost: AbortSignal): Promise<void> {
    const resources = [...new Set(this.controllers.flatMap((c) => c.watches.map((type) => storageResource(type))))];
    const informers = resources.map((resource) => this.informers.informerFor(resource));
    for (const informer of informers) {
      this.removeHandlers.push(informer.addEventHandler({ onAdd: this.changed, onUpdate: this.changed, onDelete: this.changed }));
    }
    while (!lost.aborted) {
      try {
        await Promise.all(informers.map((informer) => informer.start()));
        break;
      } catch (err) {
        if (!lost.aborted) this.logger.error(`controllers cannot list: ${(err as Error).message}`);
        await abortableSleep(RETRY_MS, lost);
      }
    }
    let wakeAt = 0;
    while (!lost.aborted) {
      if (this.dirty || Date.now() >= wakeAt) {
        this.dirty = false;
        wakeAt = Date.now() + RESYNC_MS;
        for (const controller of this.controllers) {
          if (lost.aborted) return;
          try {
            const due = await controller.sync();
            if (typeof due === 'number') wakeAt = Math.min(wakeAt, due);
          } catch (err) {
            if (!lost.aborted) this.logger.error(`${controller.name} sync failed: ${(err as Error).message}`);
            wakeAt = Math.min(wakeAt, Date.now() + RETRY_MS);
          }
        }
      }
      if (this.dirty) {
        await abortableSleep(BATCH_MS, lost);
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(BATCH_MS, wakeAt - Date.now()));
        function done() {
          clearTimeout(timer);
          // Every wake adds a listener to the leadership's signal: one left behind per wake
          // (per write the controllers watch) would hold its closure until leadership ends.
          lost.removeEventListener('abort', done);
          resolve();
        }
        this.wake = done;
        lost.addEventListener('abort', done, { once: true });
      });
      this.wake = () => undefined;
    }
  }
}
