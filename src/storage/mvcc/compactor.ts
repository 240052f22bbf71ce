import { Logger } from '@nestjs/common';
import { ObjectStore } from './object-store';

/** Every half window (so nothing outlives it by more than half), at least once a minute. */
export function compactionInterval(windowMs: number): number {
  return Math.max(100, Math.min(windowMs / 2, 60_000));
}

/**
 * Runs ObjectStore.compact periodically so the log stays bounded while watches and
 * paging inside the history window (`--history-window`) stay exact.
 */
export class Compactor {
  private readonly logger = new Logger('Compactor');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly store: ObjectStore,
    private readonly windowMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runOnce(), compactionInterval(this.windowMs));
    this.timer.unref();
  }

  /** Stops the schedule and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One compaction; a run already in progress is joined rather than overlapped. */
  runOnce(): Promise<void> {
    this.running ??= this.store
      .compact(this.windowMs)
      .then((r) => {
        if (r.removedRows) this.logger.debug(`removed ${r.removedRows} rows; history starts at revision ${r.compactedRevision}`);
      })
      .catch((err: Error) => this.logger.warn(`compaction failed: ${err.message}`))
      .finally(() => (this.running = null));
    return this.running;
  }
}
