import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BindingUsageRecorder } from '../../authorization/binding-usage-recorder';
import { RbacIndex } from '../../authorization/rbac/rbac-index.service';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { recordRuleUsageFlush } from '../../metrics/rule-usage-metrics';
import { Denial, denialKey, RuleUse, ruleUseKey, UsageMemory } from './usage-memory';
import { UsageTable } from './usage-table';

/** How long rule usage and refusals are kept after their last use: windows beyond it are refused. */
export const USAGE_RETENTION_MS = 90 * 24 * 3600 * 1000;

/** Rule-level usage and refusals as a read sees them: every replica's flushed records plus this one's pending. */
export interface RecordedUsage {
  uses: RuleUse[];
  denials: Denial[];
}

/**
 * Rule-level usage and refused attributes across replicas, as binding usage does it: the
 * recorder's sink (UsageMemory) fills memory on the decision path; every flush interval (and
 * at shutdown) this replica adds it to the database in one transaction; a read merges the
 * table with what this replica holds. A deleted binding's records go with it.
 */
@Injectable()
export class RuleUsageService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  readonly memory: UsageMemory;
  private readonly table: UsageTable;
  private readonly logger = new Logger('RuleUsage');
  private deleted = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** Reads under way: reads and flushes exclude each other (records on their way would be missed or counted twice). */
  private reads = 0;
  private readsDone: (() => void) | undefined;

  constructor(
    private readonly recorder: BindingUsageRecorder,
    private readonly policy: RbacIndex,
    dataSource: DataSource,
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
  ) {
    this.table = new UsageTable(dataSource);
    this.memory = new UsageMemory(policy);
  }

  onModuleInit(): void {
    this.recorder.attach(this.memory);
  }

  onApplicationBootstrap(): void {
    this.stopListening = this.policy.onChange((change) => {
      if (change.type !== 'DELETED' || (change.kind !== 'RoleBinding' && change.kind !== 'ClusterRoleBinding')) return;
      const uid = change.object.metadata?.uid;
      if (!uid) return;
      this.memory.forgetBinding(uid);
      this.deleted.add(uid);
    });
    this.timer = setInterval(() => void this.flush(), this.options.bindingUsage.flushIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.stopListening?.();
    await this.flush();
  }

  /** Now, as the policy index's clock (tests move it) tells it. */
  now(): number {
    return this.policy.clock.now();
  }

  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  /** The rule uses of the bindings that exist now, and the refusals (of these users only, when given). */
  async read(users?: readonly string[]): Promise<RecordedUsage> {
    await this.flushing;
    this.reads++;
    try {
      await this.policy.ready();
      const uids = [...this.policy.objectsOf('RoleBinding'), ...this.policy.objectsOf('ClusterRoleBinding')].map((b) => b.metadata.uid ?? '').filter(Boolean);
      const existing = new Set(uids);
      const [uses, denials] = await Promise.all([this.table.uses(uids), this.table.denials(users)]);
      const pending = this.memory.pending();
      const wanted = users ? new Set(users) : undefined;
      return {
        uses: merge(uses, pending.uses.filter((u) => existing.has(u.bindingUid)), ruleUseKey),
        denials: merge(denials, pending.denials.filter((d) => !wanted || wanted.has(d.user)), denialKey),
      };
    } finally {
      if (--this.reads === 0) this.readsDone?.();
    }
  }

  private async flushOnce(): Promise<void> {
    while (this.reads > 0) await new Promise<void>((resolve) => (this.readsDone = resolve));
    this.readsDone = undefined;
    const taken = this.memory.take();
    const deleted = [...this.deleted];
    this.deleted = new Set();
    try {
      await this.table.flush(taken.uses, taken.denials, deleted, this.now() - USAGE_RETENTION_MS);
      recordRuleUsageFlush('success', taken.uses.length, taken.denials.length);
    } catch (err) {
      recordRuleUsageFlush('error', taken.uses.length, taken.denials.length);
      this.logger.warn(`writing rule usage failed (retried at the next flush): ${(err as Error).message}`);
      for (const uid of deleted) this.deleted.add(uid);
      this.memory.restore({ uses: taken.uses.filter((u) => !this.deleted.has(u.bindingUid)), denials: taken.denials });
    }
  }
}

/** Flushed records plus pending ones, the same key summed. */
function merge<T extends { count: number; first: number; last: number }>(stored: T[], pending: T[], keyOf: (t: T) => string): T[] {
  const byKey = new Map(stored.map((s) => [keyOf(s), s]));
  for (const p of pending) {
    const s = byKey.get(keyOf(p));
    if (!s) byKey.set(keyOf(p), p);
    else {
      s.count += p.count;
      s.first = Math.min(s.first, p.first);
      s.last = Math.max(s.last, p.last);
    }
  }
  return [...byKey.values()];
}
