import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { Clock, CLOCK, systemClock } from '../../apimachinery/clock';
import { KubeObject } from '../../apimachinery/types';
import { Informer } from '../../storage/informer/informer';
import { SharedInformerFactory } from '../../storage/informer/shared-informer-factory';
import { PolicyIndex, RBAC_RESOURCES, RbacResource } from './policy-index';
import { StoreFollowingState } from '../decision-consistency';

/**
 * The RBAC policy index of this process, fed by the shared informers of the four RBAC
 * resources (a list, then the change feed, a relist when the feed can no longer replay),
 * so writes made through other replicas arrive within the feed's poll interval.
 *
 * Readers (the RBAC authorizer, escalation checks, the aggregation controller) call
 * `ready()` first: it starts the informers on first use and resolves once their initial
 * lists are in, so nothing answers from an empty index.
 */
@Injectable()
export class RbacIndex extends PolicyIndex implements BeforeApplicationShutdown {
  private readonly informers: ReadonlyArray<Informer>;
  private readonly removeHandlers: Array<() => void>;
  private started: Promise<void> | null = null;

  constructor(factory: SharedInformerFactory, @Inject(CLOCK) clock: Clock = systemClock) {
    super(clock);
    this.informers = RBAC_RESOURCES.map((resource) => factory.informerFor(resource));
    this.removeHandlers = RBAC_RESOURCES.map((resource, i) =>
      this.informers[i].addEventHandler({
        onAdd: (obj) => this.upsert(resource, obj),
        onUpdate: (_old, obj) => this.upsert(resource, obj),
        onDelete: (obj) => this.removeObject(resource, obj),
      }),
    );
  }

  /** Resolves once the index holds the initial lists (starting the informers if needed). */
  ready(): Promise<void> {
    this.started ??= Promise.all(this.informers.map((informer) => informer.start())).then(
      () => undefined,
      (err) => {
        this.started = null; // the next reader tries again
        throw err;
      },
    );
    return this.started;
  }

  /** The revision up to which every RBAC change is in the index. */
  syncedRevision(): string {
    return this.appliedRevision().toString();
  }

  private appliedRevision(): bigint {
    let applied = this.informers[0].appliedRevision();
    for (let i = 1; i < this.informers.length; i++) {
      const r = this.informers[i].appliedRevision();
      if (r < applied) applied = r;
    }
    return applied;
  }

  /** The index as decisions wait for it to follow the store (DecisionConsistency). */
  readonly followsStore: StoreFollowingState = {
    appliedRevision: () => this.appliedRevision(),
    waitForRevision: (revision, timeoutMs) => this.waitForRevision(revision.toString(), timeoutMs),
  };

  /** Waits until the index has applied every change up to `revision` (false on timeout). */
  async waitForRevision(revision: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    await this.ready();
    for (const informer of this.informers) {
      if (!(await informer.waitForRevision(revision, Math.max(0, deadline - Date.now())))) return false;
    }
    return true;
  }

  beforeApplicationShutdown(): void {
    // The informers are the factory's; the index only stops listening to them.
    for (const remove of this.removeHandlers) remove();
  }

  private removeObject(resource: RbacResource, obj: KubeObject): void {
    this.remove(resource, obj.metadata?.namespace ?? '', obj.metadata?.name ?? '', obj);
  }
}
