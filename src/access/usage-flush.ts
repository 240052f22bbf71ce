import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RbacIndex } from '../authorization/rbac/rbac-index.service';

/**
 * The flush both usage records share (binding usage, rule-level usage): a replica counts in
 * memory on the decision path; every flush interval (and at shutdown) it adds what it counted
 * to its table, one flush after the other, never on a request's path; a read merges the table
 * with what this replica still holds. A binding deleted (as the RBAC index sees it) loses its
 * pending records at once and its rows at the next flush.
 *
 * Reads and flushes exclude each other: records on their way to the table are neither pending
 * nor stored, so a read overlapping their write could miss them (or, reading the table just
 * after they land, count them twice).
 */
export abstract class FlushedUsage<Taken> implements OnApplicationBootstrap, OnApplicationShutdown {
  protected abstract readonly logger: Logger;
  /** What is written, in words, for the log ("binding usage"). */
  protected abstract readonly recordName: string;
  /** Uids of bindings deleted since the last flush: their rows go. */
  private deleted = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private reads = 0;
  private readsDone: (() => void) | undefined;

  protected constructor(
    protected readonly policy: RbacIndex,
    private readonly flushIntervalMs: number,
  ) {}

  /** Drops what is pending for a deleted binding (its uid never grants again). */
  protected abstract forget(uid: string): void;
  /** Hands over what is pending, afresh from now on. */
  protected abstract take(): Taken;
  /** Writes what was taken and removes the deleted bindings' rows (all or nothing). */
  protected abstract store(taken: Taken, deletedBindings: readonly string[]): Promise<void>;
  /** Puts back what a failed write took, except the records of bindings deleted meanwhile. */
  protected abstract restore(taken: Taken, deletedBindings: ReadonlySet<string>): void;

  onApplicationBootstrap(): void {
    this.stopListening = this.policy.onChange((change) => {
      if (change.type !== 'DELETED' || (change.kind !== 'RoleBinding' && change.kind !== 'ClusterRoleBinding')) return;
      const uid = change.object.metadata?.uid;
      if (!uid) return;
      this.forget(uid);
      this.deleted.add(uid);
    });
    this.timer = setInterval(() => void this.flush(), this.flushIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.stopListening?.();
    await this.flush();
  }

  /** Writes what was counted; a failed write is retried at the next flush. */
  flush(): Promise<void> {
    return this.afterFlushes(() => this.flushOnce());
  }

  /** Runs `work` after the flushes queued so far, before any queued later. */
  protected afterFlushes(work: () => Promise<void>): Promise<void> {
    this.flushing = this.flushing.then(work);
    return this.flushing;
  }

  /** Runs a read of table plus pending: a flush under way lands first, and a later one waits for the read. */
  protected async reading<T>(read: () => Promise<T>): Promise<T> {
    await this.flushing;
    this.reads++;
    try {
      return await read();
    } finally {
      if (--this.reads === 0) this.readsDone?.();
    }
  }

  private async flushOnce(): Promise<void> {
    while (this.reads > 0) await new Promise<void>((resolve) => (this.readsDone = resolve));
    this.readsDone = undefined;
    const taken = this.take();
    const deleted = [...this.deleted];
    this.deleted = new Set();
    try {
      await this.store(taken, deleted);
    } catch (err) {
      this.logger.warn(`writing ${this.recordName} failed (retried at the next flush): ${(err as Error).message}`);
      for (const uid of deleted) this.deleted.add(uid);
      this.restore(taken, this.deleted);
    }
  }
}
