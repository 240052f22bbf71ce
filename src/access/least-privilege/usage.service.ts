import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BindingUsageRecorder } from '../../authorization/binding-usage-recorder';
import { RbacIndex } from '../../authorization/rbac/rbac-index.service';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { recordRuleUsageFlush } from '../../metrics/rule-usage-metrics';
import { Denial, denialKey, RuleUse, ruleUseKey, UsageMemory } from './usage-memory';
import { UsageTable } from './usage-table';
import { FlushedUsage } from '../usage-flush';
import { USAGE_RETENTION_MS } from './usage-window';
import { missingUse, RecorderTable, replicaName, UsageRecorder } from './recording-coverage';

export { USAGE_RETENTION_MS } from './usage-window';

/** Rule-level usage and refusals as a read sees them: every replica's flushed records plus this one's pending. */
export interface RecordedUsage {
  uses: RuleUse[];
  denials: Denial[];
}

/** What one flush takes from memory. */
type TakenUsage = ReturnType<UsageMemory['take']>;

/**
 * Rule-level usage and refused attributes across replicas, flushed as binding usage is
 * (FlushedUsage): the recorder's sink (UsageMemory) fills memory on the decision path; each
 * flush adds it to the tables in one transaction; a read merges the tables with what this
 * replica holds. A deleted binding's records go with it.
 */
@Injectable()
export class RuleUsageService extends FlushedUsage<TakenUsage> implements OnModuleInit {
  readonly memory: UsageMemory;
  protected readonly logger = new Logger('RuleUsage');
  protected readonly recordName = 'rule usage';
  private readonly table: UsageTable;
  /** This replica's row in usage_recorders: what part of a window it recorded. */
  private readonly recording: UsageRecorder;
  private stopping = false;

  constructor(
    private readonly recorder: BindingUsageRecorder,
    policy: RbacIndex,
    private readonly dataSource: DataSource,
    @Inject(SERVER_OPTIONS) options: ServerOptions,
  ) {
    super(policy, options.bindingUsage.flushIntervalMs);
    this.table = new UsageTable(dataSource);
    this.memory = new UsageMemory(policy);
    const now = this.now();
    this.recording = { replica: replicaName(), recording: recorder.enabled, flushIntervalMs: options.bindingUsage.flushIntervalMs, startedAt: now, flushedAt: now };
  }

  onModuleInit(): void {
    this.recorder.attach(this.memory);
  }

  override onApplicationBootstrap(): void {
    super.onApplicationBootstrap();
    void this.afterFlushes(async () => {
      try {
        await RecorderTable.register(this.dataSource, this.recording);
      } catch (err) {
        // The first flush writes the row instead.
        this.logger.warn(`registering this replica's usage recording failed: ${(err as Error).message}`);
      }
    });
  }

  /** The last flush marks this replica stopped cleanly: nothing it recorded is lost. */
  override async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await super.onApplicationShutdown();
  }

  /** This replica's name in the answers that say a replica's records are missing. */
  get replica(): string {
    return this.recording.replica;
  }

  /** Why recorded use of [from, now] may be missing (empty: none is); see missingUse. */
  async missingUse(from: number): Promise<string[]> {
    return missingUse(await RecorderTable.all(this.dataSource), { from, now: this.now(), self: this.recording.replica });
  }

  /** Now, as the policy index's clock (tests move it) tells it. */
  now(): number {
    return this.policy.clock.now();
  }

  /** The rule uses of the bindings that exist now, and the refusals (of these users only, when given). */
  read(users?: readonly string[]): Promise<RecordedUsage> {
    return this.reading(async () => {
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
    });
  }

  protected forget(uid: string): void {
    this.memory.forgetBinding(uid);
  }

  protected take(): TakenUsage {
    return this.memory.take();
  }

  protected async store(taken: TakenUsage, deleted: readonly string[]): Promise<void> {
    const now = this.now();
    const recording = { ...this.recording, flushedAt: now, ...(this.stopping ? { stoppedAt: now } : {}) };
    await this.table.flush(taken.uses, taken.denials, deleted, now - USAGE_RETENTION_MS, recording);
    recordRuleUsageFlush('success', taken.uses.length, taken.denials.length);
  }

  protected restore(taken: TakenUsage, deleted: ReadonlySet<string>): void {
    recordRuleUsageFlush('error', taken.uses.length, taken.denials.length);
    this.memory.restore({ uses: taken.uses.filter((u) => !deleted.has(u.bindingUid)), denials: taken.denials });
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
