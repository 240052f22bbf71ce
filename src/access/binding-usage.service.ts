import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BindingUsageRecorder, PendingUsage } from '../authorization/binding-usage-recorder';
import { RbacIndex } from '../authorization/rbac/rbac-index.service';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { recordBindingUsageFlush } from '../metrics/binding-usage-metrics';
import { BindingUsageTable, StoredUsage } from './binding-usage-table';
import { FlushedUsage } from './usage-flush';

/** Rows of missing bindings older than this are swept at start (see BindingUsageTable.sweep). */
const SWEEP_QUIET_SECONDS = 3600;

/**
 * Binding usage across replicas: the recorder counts grants per binding; FlushedUsage adds
 * them to the table in one statement per flush. A list shows only bindings that exist, so a
 * row a replica wrote late is never seen.
 */
@Injectable()
export class BindingUsageService extends FlushedUsage<Map<string, PendingUsage>> {
  protected readonly logger = new Logger('BindingUsage');
  protected readonly recordName = 'binding usage';
  private readonly table: BindingUsageTable;

  constructor(
    private readonly recorder: BindingUsageRecorder,
    policy: RbacIndex,
    dataSource: DataSource,
    @Inject(SERVER_OPTIONS) options: ServerOptions,
  ) {
    super(policy, options.bindingUsage.flushIntervalMs);
    this.table = new BindingUsageTable(dataSource);
  }

  override onApplicationBootstrap(): void {
    this.recorder.startClock();
    super.onApplicationBootstrap();
    // Once the index holds every binding: rows of bindings deleted while no replica ran go.
    void this.afterFlushes(() => this.sweep());
  }

  override async onApplicationShutdown(): Promise<void> {
    this.recorder.stopClock();
    await super.onApplicationShutdown();
  }

  /** The usage of these bindings: every replica's flushed counts plus what this one counted since. */
  usageOf(uids: readonly string[]): Promise<Map<string, StoredUsage>> {
    return this.reading(async () => {
      const usage = await this.table.read(uids);
      for (const uid of uids) {
        const pending = this.recorder.pendingFor(uid);
        if (!pending) continue;
        const stored = usage.get(uid);
        usage.set(uid, stored ? { grants: stored.grants + pending.grants, lastGranted: Math.max(stored.lastGranted, pending.lastGranted) } : { ...pending });
      }
      return usage;
    });
  }

  protected forget(uid: string): void {
    this.recorder.forget(uid);
  }

  protected take(): Map<string, PendingUsage> {
    return this.recorder.take();
  }

  protected async store(counts: Map<string, PendingUsage>, deleted: readonly string[]): Promise<void> {
    if (!counts.size && !deleted.length) return;
    await this.table.flush(counts, deleted);
    let grants = 0;
    for (const usage of counts.values()) grants += usage.grants;
    recordBindingUsageFlush('success', grants);
  }

  protected restore(counts: Map<string, PendingUsage>, deleted: ReadonlySet<string>): void {
    recordBindingUsageFlush('error', 0);
    for (const uid of deleted) counts.delete(uid);
    this.recorder.restore(counts);
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
}
