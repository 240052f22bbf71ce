import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { HealthChecks, PostStartHook } from '../health/health-checks';
import { StatusError } from '../apimachinery/errors';
import { ResourceRegistry } from '../registry/resources/registry';
import { Target, WriteOptions } from '../registry/rest/storage';
import { storageResource } from '../apimachinery/store-key';
import { controllerUser, NAMESPACE_CONTROLLER_NAME } from '../apimachinery/user-info';
import { ChangeFeedService } from '../storage/changefeed/change-feed.service';
import { ChangeFollower } from '../storage/changefeed/change-follower';
import { Informer } from '../storage/informer/informer';
import { abortableSleep } from '../storage/leader/leader-election';
import { Change, OBJECT_STORE, ObjectStore } from '../storage/mvcc/object-store';
import { SharedInformerFactory } from '../storage/informer/shared-informer-factory';
import { FINALIZER_KUBERNETES, Namespace, namespaceType } from './namespace';
import { NamespaceStorage } from './namespace-storage';

/** The finalizer kube's namespace controller owns in spec.finalizers. */
export const NAMESPACE_FINALIZER = FINALIZER_KUBERNETES;

/** A namespace whose content is not gone yet is looked at again this soon even without a deletion in it. */
const WAITING_RECHECK_MS = 10_000;
/** A namespace whose sync failed is tried again this soon. */
const RETRY_MS = 1000;
/** Attempts at removing the finalizer when someone else keeps changing the namespace. */
const MAX_CONFLICT_RETRIES = 5;

/**
 * kube's namespace controller: for each namespace being deleted it deletes every
 * namespaced object in it (through each kind's storage, so their finalizers are
 * honoured), then removes its finalizer from spec.finalizers through the namespace
 * storage's `finalize`, and the namespace goes away with that write. It works from the
 * shared namespace informer (a namespace is queued when it is marked for deletion) and,
 * while objects with finalizers keep a namespace waiting, from the deletions in that
 * namespace. Safe on several replicas at once: every step is idempotent and conflicts are
 * retried.
 */
@Injectable()
export class NamespaceController implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('NamespaceController');
  /** Deletes content as kube's namespace controller does, under its own identity. */
  private readonly user = controllerUser(NAMESPACE_CONTROLLER_NAME);
  private readonly namespaces: Informer<Namespace>;
  private readonly removeHandler: () => void;
  /** Follows deletions, to requeue a namespace that waits for its content to go. */
  private readonly contentDeletions: ChangeFollower;
  /** Namespaces to sync, each once however often it was queued. */
  private readonly queue = new Set<string>();
  /** Namespaces being emptied, whose content's deletions requeue them. */
  private readonly waiting = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly stopping = new AbortController();
  private wake: () => void = () => undefined;
  private loop: Promise<void> | null = null;
  private readonly hook?: PostStartHook;

  constructor(
    private readonly registry: ResourceRegistry,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    informers: SharedInformerFactory,
    feed: ChangeFeedService,
    @Optional() health?: HealthChecks,
  ) {
    this.hook = health?.postStartHook('start-namespace-controller');
    this.namespaces = informers.informerFor<Namespace>(storageResource(namespaceType));
    const changed = (ns: Namespace) => {
      if (ns.metadata.deletionTimestamp) this.enqueue(ns.metadata.name ?? '');
    };
    this.removeHandler = this.namespaces.addEventHandler({
      onAdd: changed,
      onUpdate: (_old, ns) => changed(ns),
      onDelete: (ns) => this.waiting.delete(ns.metadata.name ?? ''),
    });
    this.contentDeletions = new ChangeFollower(
      feed,
      {
        apply: (changes) => this.onContentChanges(changes),
        // Deletions were missed: every waiting namespace looks again.
        resync: async () => {
          for (const name of this.waiting) this.enqueue(name);
          return this.store.currentRevision();
        },
      },
      { name: 'NamespaceController' },
    );
  }

  onApplicationBootstrap(): void {
    this.loop = this.run();
    this.hook?.done();
    this.logger.log('namespace controller started');
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    this.wake();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.removeHandler();
    await this.contentDeletions.stop();
    await this.loop;
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  private enqueue(name: string): void {
    if (!name || this.stopped) return;
    this.queue.add(name);
    this.wake();
  }

  private enqueueAfter(name: string, ms: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.enqueue(name);
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private onContentChanges(changes: readonly Change[]): void {
    if (this.waiting.size === 0) return;
    for (const change of changes) {
      if (change.type === 'DELETED' && this.waiting.has(change.key.namespace)) this.enqueue(change.key.namespace);
    }
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!this.stopped) {
      try {
        await this.namespaces.start();
        break;
      } catch (err) {
        if (!this.stopped) this.logger.error(`listing namespaces failed: ${(err as Error).message}`);
        await abortableSleep(RETRY_MS, signal);
      }
    }
    if (this.stopped) return;
    this.contentDeletions.start(this.namespaces.revision());
    while (!this.stopped) {
      if (this.queue.size === 0) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = () => undefined;
        continue;
      }
      const names = [...this.queue];
      this.queue.clear();
      for (const name of names) {
        if (this.stopped) return;
        try {
          await this.sync(name);
        } catch (err) {
          if (this.stopped) return;
          this.logger.error(`namespace ${name}: ${(err as Error).message}`);
          this.enqueueAfter(name, RETRY_MS);
        }
      }
    }
  }

  /** Empties a namespace being deleted, then releases it; waits while content remains. */
  private async sync(name: string): Promise<void> {
    const ns = this.namespaces.get('', name);
    if (!ns?.metadata.deletionTimestamp) {
      this.waiting.delete(name);
      return;
    }
    // Waiting from the start, so deletions while the content is removed requeue it.
    this.waiting.add(name);
    if ((await this.deleteContent(name)) > 0) {
      // Objects with finalizers of their own: their deletion requeues the namespace.
      this.enqueueAfter(name, WAITING_RECHECK_MS);
      return;
    }
    this.waiting.delete(name);
    await this.removeFinalizer(name);
  }

  /** Deletes every namespaced object in the namespace; answers how many kinds still have some. */
  private async deleteContent(name: string): Promise<number> {
    let remaining = 0;
    for (const { type, storage } of this.registry.all()) {
      if (!type.namespaced || !storage.deleteCollection) continue;
      const target = { type, groupResource: { group: type.group, resource: type.plural }, namespace: name, name: '' };
      await storage.deleteCollection(target, { ...this.writeOptions() });
      const left = await this.store.list(storageResource(type), { namespace: name, limit: 1 });
      remaining += left.items.length;
    }
    return remaining;
  }

  /** Removes the controller's finalizer through the namespace storage; the namespace goes when none is left. */
  private async removeFinalizer(name: string): Promise<void> {
    const storage = this.namespaceStorage();
    const target: Target = { type: namespaceType, groupResource: { group: '', resource: namespaceType.plural }, namespace: '', name };
    for (let attempt = 0; ; attempt++) {
      let current: Namespace;
      try {
        current = (await storage.get(target, { user: this.user })) as Namespace;
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return;
        throw err;
      }
      if (!current.metadata.deletionTimestamp) return;
      const finalizers = current.spec?.finalizers ?? [];
      const left = finalizers.filter((f) => f !== NAMESPACE_FINALIZER);
      const released = left.length === 0 && !current.metadata.finalizers?.length;
      try {
        if (left.length !== finalizers.length) {
          await storage.finalize(target, { ...current, spec: { ...current.spec, finalizers: left } }, this.writeOptions());
        } else if (released) {
          await storage.delete(target, this.writeOptions());
        }
        if (released) this.logger.log(`namespace ${name} deleted`);
        return;
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return;
        const conflict = err instanceof StatusError && err.code === 409 && err.reason === 'Conflict';
        if (!conflict || attempt + 1 >= MAX_CONFLICT_RETRIES) throw err;
      }
    }
  }

  private namespaceStorage(): NamespaceStorage {
    const entry = this.registry.lookup(namespaceType.group, namespaceType.version, namespaceType.plural);
    if (!(entry?.storage instanceof NamespaceStorage)) throw new Error('namespaces are not served by the namespace storage');
    return entry.storage;
  }

  private writeOptions(): WriteOptions {
    return { user: this.user, dryRun: false, fieldManager: NAMESPACE_CONTROLLER_NAME };
  }
}
