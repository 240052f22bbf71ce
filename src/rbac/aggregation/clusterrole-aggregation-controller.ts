import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { StatusError } from '../../apimachinery/errors';
import { ResourceRegistry } from '../../api/resources/registry';
import { storageResource } from '../../apimachinery/store-key';
import { ResourceStorage, Target, WriteOptions } from '../../api/resources/storage';
import { ChangeFeedService } from '../../storage/change-feed.service';
import { DATABASE } from '../../storage/storage.module';
import type { Database } from '../../storage/database';
import { abortableSleep, createLeaderElector, LeaderElector } from '../../storage/leader-election';
import { OBJECT_STORE, ObjectStore, RevisionCompactedError } from '../../storage/object-store';
import { AGGREGATION_CONTROLLER_NAME, controllerUser } from '../../apimachinery/user-info';
import { clusterRoleType } from '../kinds/kinds';
import { ClusterRole, PolicyRule, RBAC_GROUP, RBAC_VERSION } from '../kinds/types';
import { aggregateRules, sameRules } from './aggregate-rules';

/** Everything is listed again this often, in case a change was missed. */
const RESYNC_MS = 30_000;
/** After a failure the roles are synced again this soon, doubling up to MAX_RETRY_MS. */
const RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
/** The shortest pause between two rounds. */
const MIN_WAIT_MS = 10;
/** How long one wait for new changes lasts at most. */
const WAIT_MS = 1000;
/** Changes read from the feed at a time. */
const FEED_BATCH = 500;
/** Rows read from the store per page when listing. */
const LIST_PAGE = 500;
/** Attempts at one role's write when someone else keeps changing it. */
const MAX_CONFLICT_RETRIES = 5;
/** Passes over the aggregating roles in one sync; a pass repeats while a write changed an input. */
const MAX_PASSES = 10;

const CLUSTER_ROLES = storageResource(clusterRoleType);

function abortPromise(signal: AbortSignal): Promise<false> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(false);
    else signal.addEventListener('abort', () => resolve(false), { once: true });
  });
}

/**
 * kube's clusterrole-aggregation controller: every ClusterRole with
 * `aggregationRule.clusterRoleSelectors` gets as `rules` the union of the rules of the
 * ClusterRoles its selectors match (see aggregateRules). It keeps all ClusterRoles in
 * memory (a list, then the change feed, plus a periodic relist), recomputes on every
 * change, and writes only when an aggregate's rules differ, through the kind's storage
 * (validation, admission, watch events) as `system:controller:clusterrole-aggregation-controller`.
 * One replica runs it at a time (see leader-election.ts).
 */
@Injectable()
export class ClusterRoleAggregationController implements BeforeApplicationShutdown {
  private readonly logger = new Logger('ClusterRoleAggregation');
  private readonly user = controllerUser(AGGREGATION_CONTROLLER_NAME);
  private readonly elector: LeaderElector;
  private readonly roles = new Map<string, ClusterRole>();
  /** Roles whose selectors could not be read, so each is reported once. */
  private readonly unreadable = new Set<string>();
  private cursor = '0';
  private firstSync: Promise<void> | null = null;
  private firstSyncDone: () => void = () => undefined;

  constructor(
    private readonly registry: ResourceRegistry,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    private readonly feed: ChangeFeedService,
    @Inject(DATABASE) db: Database,
  ) {
    this.elector = createLeaderElector(db, AGGREGATION_CONTROLLER_NAME);
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
    await this.elector.stop();
  }

  isLeader(): boolean {
    return this.elector.isLeader();
  }

  /** The controller loop while this process leads. */
  private async lead(lost: AbortSignal): Promise<void> {
    const stopped = abortPromise(lost);
    let nextResync = 0;
    let pending = false;
    let failures = 0;
    let retryAt = 0;
    while (!lost.aborted) {
      if (Date.now() >= retryAt) {
        try {
          if (Date.now() >= nextResync) {
            await this.relist();
            nextResync = Date.now() + RESYNC_MS;
            pending = true;
          }
          if (await this.drainFeed()) pending = true;
          if (pending) pending = !(await this.syncAll(lost));
        } catch (err) {
          if (!lost.aborted) this.logger.error(`clusterrole aggregation failed: ${(err as Error).message}`);
          pending = true;
        }
        // Failures (store down, a write refused) are retried with a growing delay.
        failures = pending ? failures + 1 : 0;
        retryAt = pending ? Date.now() + Math.min(RETRY_MS * 2 ** (failures - 1), MAX_RETRY_MS) : 0;
      }
      this.firstSyncDone();
      if (lost.aborted) break;
      if (retryAt) {
        // Backing off: changes that arrive meanwhile are read when the delay is over.
        await abortableSleep(Math.max(MIN_WAIT_MS, retryAt - Date.now()), lost);
        continue;
      }
      const wait = Math.max(MIN_WAIT_MS, Math.min(nextResync, Date.now() + WAIT_MS) - Date.now());
      const began = Date.now();
      const woke = await Promise.race([this.feed.waitForNewer(this.cursor, wait), stopped]);
      // A stopped feed answers at once; do not spin until our own stop arrives.
      if (!woke && Date.now() - began < wait / 2) await abortableSleep(wait, lost);
    }
  }

  /** Reads every ClusterRole from the store into memory, as of one revision. */
  private async relist(): Promise<void> {
    const roles = new Map<string, ClusterRole>();
    let snapshot: string | undefined;
    let after: { namespace: string; name: string } | undefined;
    for (;;) {
      const page = await this.store.list(CLUSTER_ROLES, { atRevision: snapshot, after, limit: LIST_PAGE });
      snapshot = page.revision;
      for (const item of page.items) roles.set(item.key.name, item.object as ClusterRole);
      if (!page.hasMore) break;
      const last = page.items[page.items.length - 1];
      after = { namespace: last.key.namespace, name: last.key.name };
    }
    this.roles.clear();
    for (const [name, role] of roles) this.roles.set(name, role);
    this.cursor = snapshot;
  }

  /** Applies the ClusterRole changes the feed has after the cursor; true when there were any. */
  private async drainFeed(): Promise<boolean> {
    let changed = false;
    for (;;) {
      let changes;
      try {
        changes = await this.feed.changesAfter(this.cursor, FEED_BATCH);
      } catch (err) {
        if (!(err instanceof RevisionCompactedError)) throw err;
        await this.relist();
        return true;
      }
      if (changes.length === 0) return changed;
      for (const change of changes) {
        this.cursor = change.revision;
        if (change.key.resource !== CLUSTER_ROLES) continue;
        changed = true;
        if (change.type === 'DELETED') this.roles.delete(change.key.name);
        else this.roles.set(change.key.name, change.object as ClusterRole);
      }
    }
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
      const aggregating = [...this.roles.values()].filter((r) => r.aggregationRule).map((r) => r.metadata.name!);
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
    const cached = this.roles.get(name);
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
      if (rules === null || sameRules(rules, current.rules)) {
        this.roles.set(name, current);
        return false;
      }
      try {
        const written = await storage.update!(target, { ...current, rules }, this.writeOptions());
        this.roles.set(name, written.object as ClusterRole);
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
    const rules = aggregateRules(role, this.roles.values());
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
