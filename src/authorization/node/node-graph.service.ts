import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { KubeObject } from '../../apimachinery/types';
import { ChangeFeedService } from '../../storage/change-feed.service';
import { OBJECT_STORE, ObjectStore, RevisionCompactedError } from '../../storage/object-store';
import { NodeGraph, VertexType } from './graph';
import { applyChange, applyPersistentVolume, applyPod, PERSISTENT_VOLUMES_RESOURCE, PODS_RESOURCE } from './graph-populator';

/** Rows read per page when the graph is built from the store. */
const LIST_PAGE_SIZE = 500;
/** Changes taken from the feed at a time. */
const CHANGE_BATCH = 500;
/** An idle follower re-checks at least this often (the feed wakes it on every change). */
const IDLE_WAKE_MS = 5000;
/** Pause before retrying after the store failed. */
const ERROR_RETRY_MS = 1000;

/**
 * The graph the Node authorizer reads, kept like an informer: built from a consistent
 * list of pods and persistent volumes, then updated from the change feed, so a write on
 * this or another replica changes what nodes may read within the feed's latency. Started
 * by the first Node authorizer built; shared by every one (configuration reloads).
 */
@Injectable()
export class NodeGraphService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('NodeAuthorizerGraph');
  private graph = new NodeGraph();
  /** The revision the graph reflects. */
  private cursor = '0';
  private started: Promise<void> | null = null;
  private follower: Promise<void> | null = null;
  /** Graph updates run one at a time: the follower and catch-ups share this chain. */
  private updating: Promise<void> = Promise.resolve();
  private stopped = false;
  private stop: () => void = () => undefined;
  private readonly stopping = new Promise<void>((resolve) => (this.stop = resolve));

  constructor(
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    private readonly feed: ChangeFeedService,
  ) {}

  /** Builds the graph (once) and starts following the change feed. */
  start(): Promise<void> {
    this.started ??= (async () => {
      await this.rebuild();
      this.follower = this.follow();
    })();
    return this.started;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.stop();
    await this.follower;
  }

  /** A Node authorizer was built, so the graph is being or was listed. */
  isStarted(): boolean {
    return this.started !== null;
  }

  /** The initial list is in and the graph follows the change feed. */
  hasSynced(): boolean {
    return this.follower !== null && !this.stopped;
  }

  /** The revision the graph reflects (for tests and diagnostics). */
  get revision(): string {
    return this.cursor;
  }

  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): boolean {
    return this.graph.hasPathFrom(nodeName, type, namespace, name);
  }

  /**
   * Applies what the feed has already read and the graph has not: a decision right after a
   * write this process has seen reflects that write.
   */
  catchUp(): Promise<void> {
    if (!this.started || BigInt(this.feed.headRevision()) <= BigInt(this.cursor)) return this.updating;
    return this.serialized(() => this.applyPending());
  }

  private serialized(work: () => Promise<void>): Promise<void> {
    const next = this.updating.then(work);
    this.updating = next.catch(() => undefined);
    return next;
  }

  /** Lists pods and persistent volumes at one revision into a fresh graph, then swaps it in. */
  private async rebuild(): Promise<void> {
    const graph = new NodeGraph();
    const revision = await this.listInto(PODS_RESOURCE, undefined, (obj) => applyPod(graph, obj));
    await this.listInto(PERSISTENT_VOLUMES_RESOURCE, revision, (obj) => applyPersistentVolume(graph, obj));
    this.graph = graph;
    this.cursor = revision;
  }

  private async listInto(resource: string, atRevision: string | undefined, apply: (obj: KubeObject) => void): Promise<string> {
    let snapshot = atRevision;
    let after: { namespace: string; name: string } | undefined;
    for (;;) {
      const page = await this.store.list(resource, { atRevision: snapshot, after, limit: LIST_PAGE_SIZE });
      snapshot = page.revision;
      for (const item of page.items) apply(item.object);
      if (!page.hasMore) return snapshot;
      const last = page.items[page.items.length - 1].key;
      after = { namespace: last.namespace, name: last.name };
    }
  }

  private async applyPending(): Promise<void> {
    for (;;) {
      let changes;
      try {
        changes = await this.feed.changesAfter(this.cursor, CHANGE_BATCH);
      } catch (err) {
        if (!(err instanceof RevisionCompactedError)) throw err;
        // Fell behind the history window: start over from a fresh list.
        this.logger.warn('node graph fell behind the change history; rebuilding it');
        await this.rebuild();
        continue;
      }
      if (!changes.length) return;
      for (const change of changes) {
        applyChange(this.graph, change);
        this.cursor = change.revision;
      }
    }
  }

  private async follow(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.serialized(() => this.applyPending());
      } catch (err) {
        if (this.stopped) return;
        this.logger.error(`updating the node graph failed: ${(err as Error).message}`);
        await Promise.race([new Promise((resolve) => setTimeout(resolve, ERROR_RETRY_MS)), this.stopping]);
        continue;
      }
      if (this.stopped) return;
      await Promise.race([this.feed.waitForNewer(this.cursor, IDLE_WAKE_MS), this.stopping]);
    }
  }
}
