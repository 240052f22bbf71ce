import { Logger } from '@nestjs/common';
import { ObjectStore } from './object-store';

/**
 * Drops superseded history older than the window, periodically (every half window, at
 * most a minute apart), so the log stays bounded while watches and paging stay exact.
 */
export class Compactor {
  private readonly logger = new Logger('Compactor');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly store: ObjectStore,
    private readonly windowMs: number,
  ) {}

  start(): void {
    const every = Math.max(1000, Math.min(this.windowMs / 2, 60_000));
    this.timer = setInterval(() => void this.runOnce(), every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  async runOnce(): Promise<void> {
    if (this.running) return;
    this.running = this.store
      .compact(this.windowMs)
      .then((r) => {
        if (r.removedRows) this.logger.debug(`compacted ${r.removedRows} rows up to revision ${r.compactedRevision}`);
      })
      .catch((err) => this.logger.warn(`compaction failed: ${(err as Error).message}`))
      .finally(() => (this.running = null));
    await this.running;
  }
}
