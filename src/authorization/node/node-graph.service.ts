import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { Informer } from '../../storage/informer/informer';
import { SharedInformerFactory } from '../../storage/informer/shared-informer-factory';
import { NodeGraph, VertexType } from './graph';
import { StoreFollowingState } from '../decision-consistency';
import { PERSISTENT_VOLUMES_RESOURCE, persistentVolumeEventHandler, podEventHandler, PODS_RESOURCE } from './graph-populator';

/**
 * The graph the Node authorizer reads, fed by the shared informers of pods and persistent
 * volumes (kube's graph_populator on client-go informers), so a write on this or another
 * replica changes what nodes may read within the feed's latency. Started by the first Node
 * authorizer built; shared by every one (configuration reloads).
 */
@Injectable()
export class NodeGraphService implements BeforeApplicationShutdown {
  private readonly graph = new NodeGraph();
  private readonly pods: Informer;
  private readonly persistentVolumes: Informer;
  private readonly removeHandlers: Array<() => void>;
  private started: Promise<void> | null = null;

  constructor(factory: SharedInformerFactory) {
    this.pods = factory.informerFor(PODS_RESOURCE);
    this.persistentVolumes = factory.informerFor(PERSISTENT_VOLUMES_RESOURCE);
    this.removeHandlers = [
      this.pods.addEventHandler(podEventHandler(this.graph)),
      this.persistentVolumes.addEventHandler(persistentVolumeEventHandler(this.graph)),
    ];
  }

  /** Starts the informers (once); resolves when both have listed. */
  start(): Promise<void> {
    this.started ??= Promise.all([this.pods.start(), this.persistentVolumes.start()]).then(
      () => undefined,
      (err) => {
        this.started = null;
        throw err;
      },
    );
    return this.started;
  }

  beforeApplicationShutdown(): void {
    // The informers are the factory's; the graph only stops listening to them.
    for (const remove of this.removeHandlers) remove();
  }

  /** The revision the graph reflects (for tests and diagnostics). */
  get revision(): string {
    return this.appliedRevision().toString();
  }

  private appliedRevision(): bigint {
    const pods = this.pods.appliedRevision();
    const pvs = this.persistentVolumes.appliedRevision();
    return pods < pvs ? pods : pvs;
  }

  /** The graph as decisions wait for it to follow the store (DecisionConsistency). */
  readonly followsStore: StoreFollowingState = {
    appliedRevision: () => this.appliedRevision(),
    waitForRevision: async (revision, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      for (const informer of [this.pods, this.persistentVolumes]) {
        if (!(await informer.waitForRevision(revision.toString(), Math.max(0, deadline - Date.now())))) return false;
      }
      return true;
    },
  };

  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): boolean {
    return this.graph.hasPathFrom(nodeName, type, namespace, name);
  }

  /**
   * Applies what the feed has already read and the graph has not: a decision right after a
   * write this process has seen reflects that write.
   */
  async catchUp(): Promise<void> {
    if (!this.started) return;
    await Promise.all([this.pods.catchUp(), this.persistentVolumes.catchUp()]);
  }
}
