import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { HealthChecks, PostStartHook } from '../health/health-checks';
import { ResourceRegistry } from '../api/resources/registry';
import { objectKey, storageResource } from '../apimachinery/store-key';
import { ChangeFeedService } from '../storage/change-feed.service';
import { KubeObject } from '../apimachinery/types';
import { controllerUser, NAMESPACE_CONTROLLER_NAME } from '../apimachinery/user-info';
import { KeyNotFoundError, OBJECT_STORE, ObjectStore, StaleRevisionError, StoredObject } from '../storage/object-store';
import { namespaceType } from './namespace';

/** The finalizer kube's namespace controller owns in spec.finalizers. */
export const NAMESPACE_FINALIZER = 'kubernetes';

/** How often terminating namespaces are looked at even when nothing changed. */
const RESYNC_MS = 2000;

type NamespaceObject = KubeObject & { spec?: { finalizers?: string[] } };

/**
 * kube's namespace controller: for each namespace being deleted it deletes every
 * namespaced object in it (through each kind's storage, so their finalizers are
 * honoured), then removes its finalizer from spec.finalizers and the namespace itself.
 * Safe on several replicas at once: every step is idempotent and conflicts are retried.
 */
@Injectable()
export class NamespaceController implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('NamespaceController');
  /** Deletes content as kube's namespace controller does, under its own identity. */
  private readonly user = controllerUser(NAMESPACE_CONTROLLER_NAME);
  private stopped = false;
  private loop: Promise<void> | null = null;
  private readonly hook?: PostStartHook;

  constructor(
    private readonly registry: ResourceRegistry,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    private readonly feed: ChangeFeedService,
    @Optional() health?: HealthChecks,
  ) {
    this.hook = health?.postStartHook('start-namespace-controller');
  }

  onApplicationBootstrap(): void {
    this.loop = this.run();
    this.hook?.done();
    this.logger.log('namespace controller started');
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.syncAll();
      } catch (err) {
        if (!this.stopped) this.logger.error(`namespace sync failed: ${(err as Error).message}`);
      }
      if (this.stopped) return;
      await this.feed.waitForNewer(this.feed.headRevision(), RESYNC_MS);
    }
  }

  /** One pass over every namespace being deleted. */
  async syncAll(): Promise<void> {
    let after: { namespace: string; name: string } | undefined;
    for (;;) {
      const page = await this.store.list(storageResource(namespaceType), { after, limit: 500 });
      for (const ns of page.items) {
        if (this.stopped) return;
        if (ns.object.metadata.deletionTimestamp) await this.finalize(ns);
      }
      if (!page.hasMore) return;
      const last = page.items[page.items.length - 1];
      after = { namespace: last.key.namespace, name: last.key.name };
    }
  }

  private async finalize(ns: StoredObject): Promise<void> {
    const name = ns.key.name;
    let remaining = 0;
    for (const { type, storage } of this.registry.all()) {
      if (!type.namespaced || !storage.deleteCollection) continue;
      const target = { type, groupResource: { group: type.group, resource: type.plural }, namespace: name, name: '' };
      await storage.deleteCollection(target, { user: this.user, dryRun: false, fieldManager: NAMESPACE_CONTROLLER_NAME, query: {} });
      const left = await this.store.list(storageResource(type), { namespace: name, limit: 1 });
      remaining += left.items.length;
    }
    if (remaining > 0) return; // Objects with finalizers of their own: wait for them.
    await this.removeFinalizer(name);
  }

  private async removeFinalizer(name: string): Promise<void> {
    const key = objectKey(namespaceType, '', name);
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await this.store.get(key);
      if (!current) return;
      const ns = structuredClone(current.object) as NamespaceObject;
      const finalizers = (ns.spec?.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
      try {
        if (finalizers.length === 0 && !ns.metadata.finalizers?.length) {
          await this.store.delete(key, { revision: current.revision });
          this.logger.log(`namespace ${name} deleted`);
        } else if (finalizers.length !== (ns.spec?.finalizers ?? []).length) {
          ns.spec = { ...(ns.spec ?? {}), finalizers };
          await this.store.update(key, ns, { revision: current.revision });
        }
        void this.feed.poke();
        return;
      } catch (err) {
        if (err instanceof KeyNotFoundError) return;
        if (!(err instanceof StaleRevisionError)) throw err;
      }
    }
  }
}
