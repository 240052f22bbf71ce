import { Logger } from '@nestjs/common';
import { Clock } from '../apimachinery/clock';
import { StatusError } from '../apimachinery/errors';
import { objectKey, storageResource } from '../apimachinery/store-key';
import { fillCreateMetadata, jsonEqual } from '../apimachinery/system-metadata';
import { KubeObject } from '../apimachinery/types';
import { controllerUser, UserInfo } from '../apimachinery/user-info';
import { ClusterRole, RoleBinding } from '../apis/rbac/types';
import { bindingWindow } from '../apis/rbac/binding-window';
import { isRbacResource, PolicyIndex, RBAC_RESOURCES, RbacKind, RbacResource } from '../authorization/rbac/policy-index';
import { ACCESS_HISTORY_CONTROLLER, BINDING_EXPIRY_CONTROLLER } from '../config/controllers';
import { ResourceStorage, Target } from '../registry/rest/storage';
import { ChangeFeed } from '../storage/changefeed/change-feed';
import { ChangeFollower } from '../storage/changefeed/change-follower';
import { Database } from '../storage/engine/database';
import { abortableSleep, createLeaderElector, LeaderElector } from '../storage/leader/leader-election';
import { Change, KeyExistsError, ObjectKey, ObjectStore, RevisionCompactedError, StaleRevisionError, StoredObject } from '../storage/mvcc/object-store';
import { AccessChange, AccessChangeCause, accessChangeType } from './access-change-kind';
import { accessChangesOf, boundariesBetween, diffOfWindow, LoneBindingDiffs, takeEntryChunk, hasWindow, nextBoundary, revisionPrefix, WindowBoundary, windowPrefix } from './access-history';
import { AccessIndex } from './access-index';
import { packAccessChange, StoredAccessChange } from './access-change-stored-form';
import { objectKeyOf } from './policy-change-candidate';

/**
 * The access-history controller: on the leader, follows the change log in revision order
 * with a policy index of its own (the RBAC objects exactly as they were at the revision it
 * has reached, never the live index, which may be ahead), and for each committed RBAC change
 * diffs the policy before and after it with PolicyChangeReview's engine, writing one
 * AccessChange per subject and namespace. Time windows opening and closing change access
 * without a write: they are recorded in time order between the writes, at the moment they
 * happen. A checkpoint (the revision and the time reached) is written after each batch's
 * entries; entries are named after their cause, so a new leader resuming from the
 * checkpoint re-creates nothing it finds (AlreadyExists) and misses nothing after it.
 */

const KIND_OF: Record<RbacResource, RbacKind> = {
  [RBAC_RESOURCES[0]]: 'Role',
  [RBAC_RESOURCES[1]]: 'ClusterRole',
  [RBAC_RESOURCES[2]]: 'RoleBinding',
  [RBAC_RESOURCES[3]]: 'ClusterRoleBinding',
} as Record<RbacResource, RbacKind>;

/** The checkpoint's key: a store object of no served resource. */
const CHECKPOINT_KEY: ObjectKey = { resource: 'access.platform.io/accesshistory-checkpoints', namespace: '', name: 'leader' };

const ACCESS_CHANGES_RESOURCE = storageResource(accessChangeType);

interface Checkpoint extends KubeObject {
  /** Every change up to this revision is recorded. */
  revision: string;
  /** Every window boundary up to this time (ms since the epoch, the server's clock) is recorded. */
  windowsThrough: number;
}

/** How often the time windows are looked at even when no boundary is due (a clock moved by hand). */
const WINDOW_TICK_MS = 1000;
/** How often old entries are pruned. */
const PRUNE_INTERVAL_MS = 10 * 60_000;
const LIST_PAGE = 1000;
/** The checkpoint is written at least this often while the log moves (a new leader lists the RBAC objects at it). */
const CHECKPOINT_REFRESH_MS = 60_000;
/** ...and at most this often while RBAC changes are recorded. */
const CHECKPOINT_INTERVAL_MS = 1000;
const RETRY_MS = 1000;
/**
 * Queued entries are stored this long after the first of them was queued, or sooner once
 * FLUSH_ENTRIES are queued: a batch of the log holds the entries of two or three creates,
 * and a statement (with the lock of the revision counter before it) per batch cost the
 * engine as much as their rows. The checkpoint never passes an entry not stored yet.
 */
const FLUSH_DELAY_MS = 100;
const FLUSH_ENTRIES = 512;

/** A clock the recorder sets to each change's moment, so windows are judged as they were then. */
class SteppedClock implements Clock {
  at = 0;
  now(): number {
    return this.at;
  }
}

export interface AccessHistoryDeps {
  store: ObjectStore;
  feed: ChangeFeed;
  db: Database;
  clock: Clock;
  /** The AccessChange storage with its write verbs (the served one is read-only): pruning deletes through it. */
  entries: ResourceStorage;
  retentionMs: number;
  /** The shared informer's copy of an object, if it has one: a listed object of the same version is held once, not twice. */
  cached?(resource: string, namespace: string, name: string): KubeObject | undefined;
}

export class AccessHistoryRecorder {
  private readonly logger = new Logger('AccessHistory');
  private readonly elector: LeaderElector;
  private readonly user: UserInfo = controllerUser(ACCESS_HISTORY_CONTROLLER);
  private readonly windowUser: UserInfo = controllerUser(BINDING_EXPIRY_CONTROLLER);
  private readonly entryTarget: Target = {
    type: accessChangeType as never,
    groupResource: { group: accessChangeType.group, resource: accessChangeType.plural },
    namespace: '',
    name: '',
  };

  constructor(private readonly deps: AccessHistoryDeps) {
    this.elector = createLeaderElector(deps.db, ACCESS_HISTORY_CONTROLLER);
  }

  async start(): Promise<void> {
    await this.elector.start((lost) => this.lead(lost));
  }

  async stop(): Promise<void> {
    await this.elector.stop();
  }

  private async lead(lost: AbortSignal): Promise<void> {
    while (!lost.aborted) {
      const run = new LeaderRun(this.deps, this.user, this.windowUser, this.entryTarget, this.logger, lost);
      try {
        await run.run();
        return;
      } catch (err) {
        if (lost.aborted) return;
        this.logger.error(`access history stopped: ${(err as Error).message}`);
        await abortableSleep(RETRY_MS, lost);
      }
    }
  }
}

/** One term as leader: a private index at the checkpoint, then the log from there. */
class LeaderRun {
  private readonly clock = new SteppedClock();
  private readonly index = new PolicyIndex(this.clock);
  private readonly access = new AccessIndex(this.index);
  private readonly diffs = new LoneBindingDiffs();
  /** Bindings with a window, by binding id: the only ones whose boundaries are looked at. */
  private readonly windowed = new Map<string, { kind: WindowBoundary['kind']; binding: KubeObject }>();
  private checkpoint!: StoredObject;
  private revision = '0';
  private windowsThrough = 0;
  private savedAt = Date.now();
  /** RBAC changes were recorded since the checkpoint was last written. */
  private dirty = false;
  /**
   * Something besides the recorder's own writes (its checkpoint, its entries) was committed
   * since the checkpoint was written: only then is a refresh due, or each refresh would be
   * the next one's cause and an idle server would write every minute.
   */
  private moved = false;
  /** Entries of the changes applied so far, in their stored form, not stored yet (see flush). */
  private queued: StoredAccessChange[] = [];
  /** Stores the queued entries FLUSH_DELAY_MS after the first was queued. */
  private flushTimer: NodeJS.Timeout | undefined;
  /** Work on the index runs one piece at a time: the log's batches and the window ticks. */
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | undefined;

  constructor(
    private readonly deps: AccessHistoryDeps,
    private readonly user: UserInfo,
    private readonly windowUser: UserInfo,
    private readonly entryTarget: Target,
    private readonly logger: Logger,
    private readonly lost: AbortSignal,
  ) {}

  async run(): Promise<void> {
    await this.loadCheckpoint();
    await this.build();
    const follower = new ChangeFollower(
      this.deps.feed,
      {
        apply: (changes) => this.serialized(() => this.applyBatch(changes)),
        resync: () => this.serialized(() => this.resync()),
      },
      { name: 'AccessHistory' },
    );
    follower.start(this.revision);
    let pruneAt = 0;
    try {
      while (!this.lost.aborted && !this.failure) {
        const now = this.deps.clock.now();
        const due = nextBoundary(this.windowed.values(), this.windowsThrough);
        // Only once every change committed so far is applied: a binding deleted or changed before
        // its window opened must not be seen opening.
        if (due !== undefined && due <= now && this.caughtUp()) await this.serialized(() => this.windowsUpTo(now, true));
        if (this.dirty) await this.serialized(() => this.saveCheckpointIfDue());
        if (this.deps.retentionMs > 0 && now >= pruneAt) {
          pruneAt = now + PRUNE_INTERVAL_MS;
          await this.prune().catch((err) => this.logger.warn(`pruning access history failed: ${(err as Error).message}`));
        }
        await abortableSleep(Math.max(10, Math.min(WINDOW_TICK_MS, (due ?? Infinity) - now)), this.lost);
      }
    } finally {
      await follower.stop();
      clearTimeout(this.flushTimer);
    }
    if (this.failure && !this.lost.aborted) throw this.failure;
  }

  private caughtUp(): boolean {
    return BigInt(this.deps.feed.headRevision()) <= BigInt(this.revision);
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(() => {
      if (this.lost.aborted) throw new Error('leadership lost');
      return work();
    });
    this.chain = next.then(
      () => undefined,
      (err: Error) => {
        this.failure ??= err;
      },
    );
    return next;
  }

  // ---- checkpoint ------------------------------------------------------------------------

  private async loadCheckpoint(): Promise<void> {
    let stored = await this.deps.store.get(CHECKPOINT_KEY);
    if (!stored) {
      // The first leader ever: history starts now.
      const revision = await this.deps.store.currentRevision();
      const fresh: Checkpoint = { metadata: { name: CHECKPOINT_KEY.name }, revision, windowsThrough: this.deps.clock.now() };
      try {
        stored = await this.deps.store.create(CHECKPOINT_KEY, fresh, { author: { username: this.user.username } });
      } catch (err) {
        if (!(err instanceof KeyExistsError)) throw err;
        stored = (await this.deps.store.get(CHECKPOINT_KEY))!;
      }
    }
    this.checkpoint = stored;
    const cp = stored.object as Checkpoint;
    this.revision = cp.revision;
    this.windowsThrough = cp.windowsThrough;
  }

  /** Saves how far history goes; a checkpoint changed by someone else means another leader took over. */
  private async saveCheckpoint(): Promise<void> {
    // Every entry of the changes and windows it passes is stored first.
    await this.flush();
    this.savedAt = Date.now();
    this.dirty = false;
    this.moved = false;
    const cp: Checkpoint = { metadata: { name: CHECKPOINT_KEY.name }, revision: this.revision, windowsThrough: this.windowsThrough };
    try {
      this.checkpoint = await this.deps.store.update(CHECKPOINT_KEY, cp, { revision: this.checkpoint.revision }, { author: { username: this.user.username } });
    } catch (err) {
      if (err instanceof StaleRevisionError) throw new Error('another leader moved the access history checkpoint');
      throw err;
    }
  }

  // ---- the index at a revision -----------------------------------------------------------

  /** The RBAC objects as they were at the checkpoint's revision; when that is compacted, history resumes from now. */
  private async build(): Promise<void> {
    try {
      this.fill(await this.listAt(this.revision));
    } catch (err) {
      if (!(err instanceof RevisionCompactedError)) throw err;
      await this.resync();
    }
  }

  private async resync(): Promise<string> {
    const revision = await this.deps.store.currentRevision();
    this.logger.warn(`the change log before revision ${revision} is compacted: access history between revision ${this.revision} and ${revision} is not recorded`);
    this.fill(await this.listAt(revision));
    this.revision = revision;
    this.windowsThrough = Math.max(this.windowsThrough, this.deps.clock.now());
    await this.saveCheckpoint();
    return revision;
  }

  private async listAt(revision: string): Promise<Array<{ resource: RbacResource; items: KubeObject[] }>> {
    const lists: Array<{ resource: RbacResource; items: KubeObject[] }> = [];
    for (const resource of RBAC_RESOURCES) {
      const items: KubeObject[] = [];
      let after: { namespace: string; name: string } | undefined;
      for (;;) {
        const page = await this.deps.store.list(resource, { atRevision: revision, limit: LIST_PAGE, countRemaining: false, ...(after ? { after } : {}) });
        for (const { key, object } of page.items) {
          const cached = this.deps.cached?.(resource, key.namespace, key.name);
          items.push(cached && cached.metadata.resourceVersion === object.metadata.resourceVersion ? cached : object);
        }
        if (!page.hasMore || page.items.length === 0) break;
        const last = page.items[page.items.length - 1].key;
        after = { namespace: last.namespace, name: last.name };
      }
      lists.push({ resource, items });
    }
    return lists;
  }

  private fill(lists: Array<{ resource: RbacResource; items: KubeObject[] }>): void {
    this.index.replaceAll(lists);
    this.windowed.clear();
    for (const { resource, items } of lists) {
      const kind = KIND_OF[resource];
      if (kind === 'RoleBinding' || kind === 'ClusterRoleBinding') for (const b of items) this.track(kind, b);
    }
  }

  private track(kind: WindowBoundary['kind'], binding: KubeObject | null, namespace = binding?.metadata?.namespace ?? '', name = binding?.metadata?.name ?? ''): void {
    const id = objectKeyOf(kind, kind === 'RoleBinding' ? namespace : '', name);
    if (binding && hasWindow(binding)) this.windowed.set(id, { kind, binding });
    else this.windowed.delete(id);
  }

  // ---- recording -------------------------------------------------------------------------

  /** The moment of a change in the server's clock: its commit time, shifted as the clock is. */
  private momentOf(change: Change): number {
    const now = this.deps.clock.now();
    if (change.committedAt === undefined) return now;
    return Math.min(now, change.committedAt + (now - Date.now()));
  }

  private async applyBatch(changes: readonly Change[]): Promise<void> {
    for (const change of changes) {
      if (change.key.resource !== CHECKPOINT_KEY.resource && change.key.resource !== ACCESS_CHANGES_RESOURCE) this.moved = true;
      if (!isRbacResource(change.key.resource)) continue;
      this.dirty = true;
      const at = Math.max(this.momentOf(change), this.windowsThrough);
      await this.windowsUpTo(at, false);
      await this.record(change, at);
    }
    // Windows up to the last change's moment, whatever its kind: the log moves time on too.
    const last = changes[changes.length - 1];
    await this.windowsUpTo(Math.max(this.momentOf(last), this.windowsThrough), false);
    this.revision = last.revision;
    if (this.queued.length >= FLUSH_ENTRIES) await this.flush();
    await this.saveCheckpointIfDue();
  }

  /**
   * The checkpoint is written at most every CHECKPOINT_INTERVAL_MS after RBAC changes (a new
   * leader replays the rest, finding its entries recorded), and every CHECKPOINT_REFRESH_MS
   * while only other kinds change, so it stays inside the compaction window: not one commit
   * per batch, each of which would be a commit (an fsync) more for every few creates.
   */
  private async saveCheckpointIfDue(): Promise<void> {
    const since = Date.now() - this.savedAt;
    if (!this.moved || this.revision === (this.checkpoint.object as Checkpoint).revision) return;
    if ((this.dirty && since >= CHECKPOINT_INTERVAL_MS) || since >= CHECKPOINT_REFRESH_MS) await this.saveCheckpoint();
  }

  /** Diffs one committed change against the state before it, writes its entries, then applies it. */
  private async record(change: Change, at: number): Promise<boolean> {
    const resource = change.key.resource as RbacResource;
    const kind = KIND_OF[resource];
    const { namespace, name } = change.key;
    const object = change.type === 'DELETED' ? null : change.object;
    let written = false;
    if (this.mayChangeAccess(kind, change)) {
      this.clock.at = at;
      const meta = change.object.metadata ?? {};
      const cause: AccessChangeCause = {
        kind,
        ...(namespace ? { namespace } : {}),
        name,
        ...(meta.uid ? { uid: meta.uid } : {}),
        resourceVersion: change.revision,
        operation: change.type === 'ADDED' ? 'Create' : change.type === 'DELETED' ? 'Delete' : 'Update',
        user: change.author ?? { username: '' },
      };
      written = this.queue(this.diffs.storedEntries(this.index, this.access, { kind, namespace, name, object }, cause, new Date(at).toISOString(), revisionPrefix(change.revision)));
    }
    if (object) this.index.upsert(resource, object);
    else this.index.remove(resource, namespace, name, change.object);
    if (kind === 'RoleBinding' || kind === 'ClusterRoleBinding') this.track(kind, object, namespace, name);
    return written;
  }

  /** Whether a change touches what grants: a role's rules; a binding's subjects, role or window. */
  private mayChangeAccess(kind: RbacKind, change: Change): boolean {
    if (change.type !== 'MODIFIED' || !change.previous) return true;
    const before = change.previous;
    const after = change.object;
    if (kind === 'Role' || kind === 'ClusterRole') return !jsonEqual((before as ClusterRole).rules ?? [], (after as ClusterRole).rules ?? []);
    const b = before as RoleBinding;
    const a = after as RoleBinding;
    return !jsonEqual(b.subjects ?? [], a.subjects ?? []) || !jsonEqual(b.roleRef, a.roleRef) || !jsonEqual(bindingWindow(b), bindingWindow(a));
  }

  /** Records every window that opened or closed after the last one recorded, up to `upTo`. */
  private async windowsUpTo(upTo: number, save: boolean): Promise<boolean> {
    if (upTo <= this.windowsThrough) return false;
    let written = false;
    for (const boundary of boundariesBetween(this.windowed.values(), this.windowsThrough, upTo)) {
      // Judged at the boundary: an opening window grants from valid-from on, a closing one no longer at valid-until.
      this.clock.at = boundary.at;
      const meta = boundary.binding.metadata ?? {};
      const namespace = boundary.kind === 'RoleBinding' ? (meta.namespace ?? '') : '';
      const diff = diffOfWindow(this.index, this.access, boundary);
      const cause: AccessChangeCause = {
        kind: boundary.kind,
        ...(namespace ? { namespace } : {}),
        name: meta.name ?? '',
        ...(meta.uid ? { uid: meta.uid } : {}),
        resourceVersion: meta.resourceVersion ?? '',
        operation: boundary.opens ? 'WindowOpened' : 'WindowClosed',
        user: { username: this.windowUser.username },
      };
      written = this.queue(accessChangesOf(diff, cause, new Date(boundary.at).toISOString(), windowPrefix(boundary)).map(packAccessChange)) || written;
    }
    this.windowsThrough = upTo;
    if (save) await this.flush();
    if (save && written) await this.saveCheckpoint();
    return written;
  }

  /**
   * Queues the entries of one cause; `flush` stores them, FLUSH_DELAY_MS later or before the
   * checkpoint moves: the entries of many batches of the log go to the store together, in
   * order, in statements of many rows (createMissing): one statement per entry cost the
   * store as much again as the creates that caused them.
   */
  private queue(entries: StoredAccessChange[]): boolean {
    for (const entry of entries) this.queued.push(entry);
    if (this.queued.length > 0 && this.flushTimer === undefined) {
      this.flushTimer = setTimeout(() => void this.serialized(() => this.flush()).catch(() => undefined), FLUSH_DELAY_MS);
    }
    return entries.length > 0;
  }

  /**
   * Stores the queued entries. Entries are the server's own records, never a client's body:
   * they go to the store as they are (system metadata, the controller as author), without the
   * request path's decoding, admission and managed fields, which cost a create as much again
   * (as kube-apiserver's own reconcilers write to storage directly). One recorded already (by
   * this leader before a restart, or by the one before it) is left as it is. They are queued
   * in their stored form (access-change-stored-form); reads, lists and watches are the
   * generic layer's, through the served storage that gives the API's form back.
   */
  private async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const store = this.deps.store;
    const author = { author: { username: this.user.username } };
    while (this.queued.length > 0) {
      const chunk = takeEntryChunk(this.queued);
      for (const entry of chunk) fillCreateMetadata(entry);
      if (store.createMissing) {
        await store.createMissing(
          ACCESS_CHANGES_RESOURCE,
          chunk.map((entry) => ({ namespace: '', name: entry.metadata.name!, object: entry })),
          author,
        );
        continue;
      }
      for (const entry of chunk) {
        try {
          await store.create(objectKey(accessChangeType, '', entry.metadata.name!), entry, author);
        } catch (err) {
          if (!(err instanceof KeyExistsError)) throw err;
        }
      }
    }
  }

  // ---- retention -------------------------------------------------------------------------

  private async prune(): Promise<void> {
    const cutoff = this.deps.clock.now() - this.deps.retentionMs;
    const resource = ACCESS_CHANGES_RESOURCE;
    let after: { namespace: string; name: string } | undefined;
    for (;;) {
      if (this.lost.aborted) return;
      const page = await this.deps.store.list(resource, { limit: LIST_PAGE, countRemaining: false, ...(after ? { after } : {}) });
      for (const item of page.items) {
        const time = Date.parse((item.object as AccessChange).time ?? '');
        if (!(time < cutoff)) continue;
        try {
          await this.deps.entries.delete!({ ...this.entryTarget, name: item.key.name }, { user: this.user, dryRun: false, preconditions: { uid: item.object.metadata.uid } });
        } catch (err) {
          if (!(err instanceof StatusError && (err.reason === 'NotFound' || err.reason === 'Conflict'))) throw err;
        }
      }
      if (!page.hasMore || page.items.length === 0) return;
      const last = page.items[page.items.length - 1].key;
      after = { namespace: last.namespace, name: last.name };
    }
  }
}
