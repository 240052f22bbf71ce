import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { StatusError } from '../../apimachinery/errors';
import { ResourceRegistry } from '../../registry/resources/registry';
import { storageResource } from '../../apimachinery/store-key';
import { ResourceStorage, Target, WriteOptions } from '../../registry/rest/storage';
import { DATABASE } from '../../storage/storage.module';
import type { Database } from '../../storage/engine/database';
import { abortableSleep, createLeaderElector, LeaderElector } from '../../storage/leader/leader-election';
import { Informer } from '../../storage/informer/informer';
import { SharedInformerFactory } from '../../storage/informer/shared-informer-factory';
import { AGGREGATION_CONTROLLER_NAME, controllerUser } from '../../apimachinery/user-info';
import { clusterRoleType } from '../kinds/kinds';
import { ClusterRole, PolicyRule, RBAC_GROUP, RBAC_VERSION } from '../../apis/rbac/types';
import { aggregateRules, sameRules } from './aggregate-rules';

/** Every aggregate is recomputed this often even without a change (kube's resync). */
const RESYNC_MS = 30_000;
/** After a failure the roles are synced again this soon, doubling up to MAX_RETRY_MS. */
const RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
/** The shortest pause between two rounds. */
const MIN_WAIT_MS = 10;
/** Attempts at one role's write when someone else keeps changing it. */
const MAX_CONFLICT_RETRIES = 5;
/** Passes over the aggregating roles in one sync; a pass repeats while a write changed an input. */
const MAX_PASSES = 10;
/** How long a pass waits for the informer to see the controller's own write. */
const OWN_WRITE_WAIT_MS = 5000;

const CLUSTER_ROLES = storageResource(clusterRoleType);

/**
 * kube's clusterrole-aggregation controller: every ClusterRole with
 * `aggregationRule.clusterRoleSelectors` gets as `rules` the union of the rules of the
 * ClusterRoles its selectors match (see aggregateRules). It reads the ClusterRoles from the
 * shared informer (the RBAC index holds the same one), recomputes on every change, and
 * writes only when an aggregate's rules differ, through the kind's storage (validation,
 * admission, watch events) as `system:controller:clusterrole-aggregation-controller`.
 * One replica runs it at a time (see leader-election.ts).
 */
@Injectable()
export class ClusterRoleAggregationController implements BeforeApplicationShutdown {
  private readonly logger = new Logger('ClusterRoleAggregation');
  private readonly user = controllerUser(AGGREGATION_CONTROLLER_NAME);
  private readonly elector: LeaderElector;
  private readonly roles: Informer<ClusterRole>;
  private readonly removeHandler: () => void;
  /** Roles whose selectors could not be read, so each is reported once. */
  private readonly unreadable = new Set<string>();
  /** A ClusterRole changed since the last sync. */
  private dirty = true;
  /** Ends the leader loop's current wait (a change arrived). */
  private wake: () => void = () => undefined;
  private firstSync: Promise<void> | null = null;
  private firstSyncDone: () => void = () => undefined;

  constructor(
    private readonly registry: ResourceRegistry,
    informers: SharedInformerFactory,
    @Inject(DATABASE) db: Database,
  ) {
    this.elector = createLeaderElector(db, AGGREGATION_CONTROLLER_NAME);
    this.roles = informers.informerFor<ClusterRole>(CLUSTER_ROLES);
    const changed = () => {
      this.dirty = true;
      this.wake();
    };
    this.removeHandler = this.roles.addEventHandler({ onAdd: changed, onUpdate: changed, onDelete: changed });
  }

  /**
   * Campaigns for leadership. When this process leads at once, resolves after the first
   * full sync, so a fresh server starts with filled aggregates; otherwise right away.
   */
  async start(): Promise<void> {
    this.firstSync = new Promise((resolve) => (this.firstSyncDone = resolve));
    const leading = await this.elector.start((lost) => this.lead(lost));
    if (leading) await this.firstSync;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.firstSyncDone();
    this.removeHandler();
    await this.elector.stop();
  }

  isLeader(): boolean {
    return this.elector.isLeader();
  }

  /** The controller loop while this process leads. */
  private async lead(lost: AbortSignal): Promise<void> {
    let nextResync = 0;
    let failures = 0;
    let retryAt = 0;
    while (!lost.aborted) {
      if (Date.now() >= retryAt) {
        let ok = false;
        try {
          await this.roles.start();
          if (Date.now() >= nextResync) {
            nextResync = Date.now() + RESYNC_MS;
            this.dirty = true;
          }
          if (this.dirty) {
            this.dirty = false;
            ok = await this.syncAll(lost);
          } else ok = true;
        } catch (err) {
          if (!lost.aborted) this.logger.error(`clusterrole aggregation failed: ${(err as Error).message}`);
        }
        // Failures (store down, a write refused) are retried with a growing delay.
        if (!ok) this.dirty = true;
        failures = ok ? 0 : failures + 1;
        retryAt = ok ? 0 : Date.now() + Math.min(RETRY_MS * 2 ** (failures - 1), MAX_RETRY_MS);
      }
      this.firstSyncDone();
      if (lost.aborted) break;
      if (retryAt) {
        // Backing off: changes that arrive meanwhile are synced when the delay is over.
        await abortableSleep(Math.max(MIN_WAIT_MS, retryAt - Date.now()), lost);
        continue;
      }
      if (this.dirty) continue;
      await this.changeOrTimeout(Math.max(MIN_WAIT_MS, nextResync - Date.now()), lost);
    }
  }

  /** Waits for a ClusterRole change, `ms`, or the loss of leadership, whichever comes first. */
  private changeOrTimeout(ms: number, lost: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        lost.removeEventListener('abort', done);
        this.wake = () => undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
      lost.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * Brings every aggregating role up to date. A written aggregate can itself be a member of
   * another (edit is aggregated into admin), so passes repeat until nothing changes.
   * Returns false when some role could not be written (it is retried soon).
   */
  private async syncAll(lost: AbortSignal): Promise<boolean> {
    let ok = true;
    for (let pass = 0; pass < MAX_PASSES && !lost.aborted; pass++) {
      let wrote = false;
      const aggregating = this.roles
        .list()
        .filter((r) => r.aggregationRule)
        .map((r) => r.metadata.name!);
      for (const name of aggregating.sort()) {
        if (lost.aborted) break;
        try {
          wrote = (await this.syncRole(name)) || wrote;
        } catch (err) {
          ok = false;
          this.logger.error(`cannot aggregate clusterrole ${name}: ${(err as Error).message}`);
        }
      }
      if (!wrote) break;
    }
    return ok;
  }

  /** Updates one aggregating role when its rules differ from the union; true when it wrote. */
  private async syncRole(name: string): Promise<boolean> {
    const cached = this.roles.get('', name);
    if (!cached?.aggregationRule) return false;
    const wanted = this.rulesFor(cached);
    if (wanted === null || sameRules(wanted, cached.rules)) return false;

    const storage = this.storage();
    const target = this.target(name);
    for (let attempt = 0; ; attempt++) {
      let current: ClusterRole;
      try {
        current = (await storage.get!(target, { user: this.user })) as ClusterRole;
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return false;
        throw err;
      }
      const rules = current.aggregationRule ? this.rulesFor(current) : null;
      if (rules === null || sameRules(rules, current.rules)) return false;
      try {
        const written = await storage.update!(target, { ...current, rules }, this.writeOptions());
        // The next roles computed from the cache (an aggregate of aggregates) see this write.
        await this.roles.waitForRevision(written.object.metadata.resourceVersion!, OWN_WRITE_WAIT_MS);
        return true;
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return false;
        // Someone wrote the role since it was read: read it again.
        const conflict = err instanceof StatusError && err.code === 409 && err.reason === 'Conflict';
        if (!conflict || attempt + 1 >= MAX_CONFLICT_RETRIES) throw err;
      }
    }
  }

  /** The union for a role; null (reported once) when its selectors cannot be read. */
  private rulesFor(role: ClusterRole): PolicyRule[] | null {
    const rules = aggregateRules(role, this.roles.list());
    const name = role.metadata.name!;
    if (rules === null && !this.unreadable.has(name)) {
      this.unreadable.add(name);
      this.logger.warn(`clusterrole ${name} has an aggregationRule selector that cannot be read; left unchanged`);
    } else if (rules !== null) this.unreadable.delete(name);
    return rules;
  }

  private storage(): ResourceStorage {
    const entry = this.registry.lookup(RBAC_GROUP, RBAC_VERSION, clusterRoleType.plural);
    if (!entry?.storage.get || !entry.storage.update) throw new Error('clusterroles are not served');
    return entry.storage;
  }

  private target(name: string): Target {
    return { type: clusterRoleType, groupResource: { group: RBAC_GROUP, resource: clusterRoleType.plural }, namespace: '', name };
  }

  private writeOptions(): WriteOptions {
    return { user: this.user, dryRun: false, fieldManager: AGGREGATION_CONTROLLER_NAME };
  }
}
