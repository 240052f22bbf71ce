import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BindingUsageRecorder } from '../authorization/binding-usage-recorder';
import { RbacIndex } from '../authorization/rbac/rbac-index.service';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { recordBindingUsageFlush } from '../metrics/binding-usage-metrics';
import { BindingUsageTable, StoredUsage } from './binding-usage-table';

/** Rows of missing bindings older than this are swept at start (see BindingUsageTable.sweep). */
const SWEEP_QUIET_SECONDS = 3600;

/**
 * Binding usage across replicas: every flush interval (and at shutdown) this replica adds
 * what its recorder counted to the database in one statement, never on a request's path.
 * A binding deleted (as the RBAC index sees it) loses its counts here and its row at the next
 * flush; a list shows only bindings that exist, so a row a replica wrote late is never seen.
 */
@Injectable()
export class BindingUsageService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly table: BindingUsageTable;
  private readonly logger = new Logger('BindingUsage');
  /** Uids of bindings deleted since the last flush: their rows go. */
  private deleted = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;
  /** Flushes run one after the other. */
  private flushing: Promise<void> = Promise.resolve();
  /**
   * Usage reads under way. Reads and flushes exclude each other: counts on their way to the
   * table are neither pending nor stored, and a read overlapping their write could miss them
   * (or, reading the table just after they land, count them twice).
   */
  private reads = 0;
  private readsDone: (() => void) | undefined;

  constructor(
    private readonly recorder: BindingUsageRecorder,
    private readonly policy: RbacIndex,
    dataSource: DataSource,
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
  ) {
    this.table = new BindingUsageTable(dataSource);
  }

  onApplicationBootstrap(): void {
    this.recorder.startClock();
    this.stopListening = this.policy.onChange((change) => {
      if (change.type !== 'DELETED' || (change.kind !== 'RoleBinding' && change.kind !== 'ClusterRoleBinding')) return;
      const uid = change.object.metadata?.uid;
      if (!uid) return;
      this.recorder.forget(uid);
      this.deleted.add(uid);
    });
    this.timer = setInterval(() => void this.flush(), this.options.bindingUsage.flushIntervalMs);
    this.timer.unref();
    // Once the index holds every binding: rows of bindings deleted while no replica ran go.
    this.flushing = this.flushing.then(() => this.sweep());
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.stopListening?.();
    this.recorder.stopClock();
    await this.flush();
  }

  /** Writes what was counted and removes deleted bindings' rows; a failed write is retried at the next flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  /** The usage of these bindings: every replica's flushed counts plus what this one counted since. */
  async usageOf(uids: readonly string[]): Promise<Map<string, StoredUsage>> {
    // A flush under way lands first (a later one waits for this read).
    await this.flushing;
    this.reads++;
    try {
      const usage = await this.table.read(uids);
      for (const uid of uids) {
        const pending = this.recorder.pendingFor(uid);
        if (!pending) continue;
        const stored = usage.get(uid);
        usage.set(uid, stored ? { grants: stored.grants + pending.grants, lastGranted: Math.max(stored.lastGranted, pending.lastGranted) } : { ...pending });
      }
      return usage;
    } finally {
      if (--this.reads === 0) this.readsDone?.();
    }
  }

  private async sweep(): Promise<void> {
    try {
      await this.policy.ready();
      const uids = [...this.policy.objectsOf('RoleBinding'), ...this.policy.objectsOf('ClusterRoleBinding')].map((b) => b.metadata.uid ?? '');
      const removed = await this.table.sweep(uids, SWEEP_QUIET_SECONDS);
      if (removed) this.logger.log(`removed the usage of ${removed} bindings that no longer exist`);
    } catch (err) {
      this.logger.warn(`sweeping the usage of deleted bindings failed: ${(err as Error).message}`);
    }
  }

  private async flushOnce(): Promise<void> {
    while (this.reads > 0) await new Promise<void>((resolve) => (this.readsDone = resolve));
    this.readsDone = undefined;
    const counts = this.recorder.take();
    const deleted = [...this.deleted];
    this.deleted = new Set();
    if (!counts.size && !deleted.length) return;
    try {
      await this.table.flush(counts, deleted);
      let grants = 0;
      for (const usage of counts.values()) grants += usage.grants;
      recordBindingUsageFlush('success', grants);
    } catch (err) {
      recordBindingUsageFlush('error', 0);
      this.logger.warn(`writing binding usage failed (retried at the next flush): ${(err as Error).message}`);
      for (const uid of deleted) this.deleted.add(uid);
      for (const uid of this.deleted) counts.delete(uid);
      this.recorder.restore(counts);
    }
  }
}
