import { apiVersionOf, ResourceType } from '../../runtime/schema/resource-type';
import { errors } from '../../apimachinery/errors';
import { KubeObject, Status } from '../../apimachinery/types';
import { storageResource } from '../../apimachinery/store-key';
import { Change, ChangeType, ObjectStore, RevisionCompactedError } from '../../storage/mvcc/object-store';
import { ChangeFeedService } from '../../storage/changefeed/change-feed.service';
import { SelectionPredicate, WatchOptions } from '../options/read-options';
import { WatchStart } from '../options/resource-version';
import { awaitRevision } from './revision-wait';
import { ChangeRenderer, WatchEvent, WatchStream } from '../rest/watch';

/** Rows read from the store per query while sending the initial state. */
const INITIAL_STATE_PAGE_SIZE = 500;
/** Changes a watcher takes from the feed at a time. */
const WATCH_BATCH = 500;
/** A waiting watcher re-checks its deadline and bookmarks at least this often. */
const WATCH_IDLE_WAKE_MS = 5000;

/** The ERROR event a watch from a compacted revision gets (kube: 410 Expired). */
function tooOldStatus(revision: string): Status {
  return errors.gone(`too old resource version: ${revision}`).toStatus();
}

/** What the watch server needs: the store, the change feed, and the bookmark period. */
export interface WatchServerDeps {
  store: ObjectStore;
  feed: ChangeFeedService;
  /** How often an idle watch with allowWatchBookmarks gets a BOOKMARK. */
  bookmarkIntervalMs: number;
}

/**
 * Serves the watches of one kind from the change feed (kube's cacher and watch server):
 * the initial state when asked for, then every change after the start revision that the
 * watch's namespace and selectors see, bookmarks, the timeout, and 410 for a revision
 * compacted away.
 */
export class WatchServer {
  constructor(
    private readonly type: ResourceType,
    private readonly deps: WatchServerDeps,
  ) {}

  /**
   * `namespace` '' = every namespace (and cluster-scoped kinds). Waits for a "not older
   * than" revision before opening the stream, so a 504 is a plain response.
   */
  async serve(namespace: string, opts: WatchOptions, open: () => WatchStream): Promise<void> {
    const start = opts.start;
    if (start.initialEvents && start.from.kind === 'NotOlderThan') await awaitRevision(this.deps.feed, this.deps.store, start.from.revision);
    // Everything that can fail as a plain 400/504 has run: from here on errors are events.
    const stream = open();
    const watched = { group: this.type.group, version: this.type.version, kind: this.type.kind, resource: this.type.plural };
    await this.deps.feed.serve(stream, watched, () => this.follow(stream, start, this.type.namespaced ? namespace : '', opts));
  }

  /** Streams a watch from its start until it ends (timeout, cut-off, the client leaving). */
  private async follow(stream: WatchStream, start: WatchStart, namespace: string, opts: WatchOptions): Promise<void> {
    const { feed, store } = this.deps;
    const resource = storageResource(this.type);
    const inScope = (c: Change) => c.key.resource === resource && (!namespace || c.key.namespace === namespace);
    let cursor: string;
    if (start.initialEvents) {
      cursor = await this.sendInitialState(stream, namespace, opts.predicate);
      if (start.initialEventsEndBookmark) stream.send(this.bookmark(cursor, true));
    } else if (start.from.kind === 'Exact') {
      cursor = start.from.revision;
      if (BigInt(cursor) < BigInt(await store.compactedRevision())) {
        stream.send({ type: 'ERROR', object: tooOldStatus(cursor) });
        return;
      }
    } else {
      // sendInitialEvents=false without a revision: start at the newest one, with no state.
      cursor = await store.currentRevision();
    }

    const deadline = opts.timeoutSeconds !== undefined ? Date.now() + opts.timeoutSeconds * 1000 : Infinity;
    const bookmarks = opts.allowWatchBookmarks;
    let nextBookmark = Date.now() + this.deps.bookmarkIntervalMs;
    /** Sends what of `changes` the watch sees; false once the stream is gone (closed, or cut off for not reading). */
    const deliver = (changes: readonly Change[]): boolean => {
      for (const change of changes) {
        cursor = change.revision;
        if (!inScope(change)) continue;
        const type = this.eventType(change, opts.predicate);
        if (type !== null && !stream.sendChange(change, type, this.render)) return false;
      }
      return true;
    };
    const bookmark = () => {
      stream.send(this.bookmark(cursor, false));
      nextBookmark = Date.now() + this.deps.bookmarkIntervalMs;
    };
    while (!stream.closed) {
      let changes: Change[];
      try {
        changes = await feed.changesAfter(cursor, WATCH_BATCH);
      } catch (err) {
        if (!(err instanceof RevisionCompactedError)) throw err;
        stream.send({ type: 'ERROR', object: tooOldStatus(cursor) });
        return;
      }
      if (!deliver(changes)) return;
      // A full batch may have more behind it; a shorter one reached the head (or nearly).
      if (changes.length === WATCH_BATCH) continue;
      const now = Date.now();
      if (now >= deadline) return;
      if (bookmarks && now >= nextBookmark) bookmark();
      // At the head: the feed hands each change over as it arrives, until the watch ends or
      // the feed lets go (then the loop reads on by itself).
      const live = this.followLive(stream, cursor, deliver, deadline, bookmarks ? { next: () => nextBookmark, send: bookmark } : undefined);
      if (live) {
        if ((await live) === 'ended') return;
        continue;
      }
      // Not at the head: behind it, the next read has changes; past it (a revision the store
      // gave before the feed had it), the wait ends when the head passes it.
      if (BigInt(cursor) < BigInt(feed.headRevision())) continue;
      const wait = Math.min(deadline, bookmarks ? nextBookmark : Infinity, now + WATCH_IDLE_WAKE_MS) - now;
      // The stream's signal ends the wait the moment the client goes.
      await feed.waitForNewer(cursor, Math.max(wait, 1), stream.signal);
    }
  }

  /**
   * The watch at the feed's head, subscribed: each change is delivered in the feed's own loop
   * as the head passes it, bookmarks and the deadline run on one timer each. Resolves 'ended'
   * when the watch is over (stream gone, deadline), 'resumed' when the feed let go of it;
   * null when `cursor` is not the head (nothing subscribed).
   */
  private followLive(
    stream: WatchStream,
    cursor: string,
    deliver: (changes: readonly Change[]) => boolean,
    deadline: number,
    bookmarks?: { next(): number; send(): void },
  ): Promise<'ended' | 'resumed'> | null {
    let settle!: { resolve(how: 'ended' | 'resumed'): void; reject(err: unknown): void };
    const outcome = new Promise<'ended' | 'resumed'>((resolve, reject) => (settle = { resolve, reject }));
    let deadlineTimer: NodeJS.Timeout | undefined;
    let bookmarkTimer: NodeJS.Timeout | undefined;
    let unsubscribe: (() => void) | null = null;
    let done = false;
    const finish = (how: 'ended' | 'resumed', err?: unknown) => {
      if (done) return;
      done = true;
      unsubscribe?.();
      clearTimeout(deadlineTimer);
      clearTimeout(bookmarkTimer);
      stream.signal.removeEventListener('abort', onClose);
      if (err === undefined) settle.resolve(how);
      else settle.reject(err);
    };
    const onClose = () => finish('ended');
    unsubscribe = this.deps.feed.subscribe(cursor, {
      next: (changes) => {
        if (!deliver(changes)) finish('ended');
      },
      // A delivery that threw fails the watch as it would have in the loop.
      end: (err) => finish('resumed', err),
    });
    if (!unsubscribe) return null;
    if (stream.closed) {
      finish('ended');
      return outcome;
    }
    stream.signal.addEventListener('abort', onClose, { once: true });
    if (deadline !== Infinity) deadlineTimer = setTimeout(() => finish('ended'), Math.max(deadline - Date.now(), 1));
    if (bookmarks) {
      const schedule = () => {
        bookmarkTimer = setTimeout(() => {
          if (done) return;
          bookmarks.send();
          schedule();
        }, Math.max(bookmarks.next() - Date.now(), 1));
      };
      schedule();
    }
    return outcome;
  }

  /** Synthetic ADDED events for the current state, paged; returns the snapshot revision. */
  private async sendInitialState(stream: WatchStream, namespace: string, predicate: SelectionPredicate): Promise<string> {
    let snapshot: string | undefined;
    let after: { namespace: string; name: string } | undefined;
    for (;;) {
      const page = await this.deps.store.list(storageResource(this.type), {
        namespace: namespace || undefined,
        atRevision: snapshot,
        after,
        limit: INITIAL_STATE_PAGE_SIZE,
      });
      snapshot = page.revision;
      for (const stored of page.items) {
        if (predicate.matches(stored.object)) stream.send({ type: 'ADDED', object: this.present(stored.object) });
      }
      if (!page.hasMore || stream.closed) return snapshot;
      const last = page.items[page.items.length - 1];
      after = { namespace: last.key.namespace, name: last.key.name };
    }
  }

  /**
   * The type of event one change is for a watcher with selectors, or null when it sees
   * nothing: an object that stops matching is DELETED for it, one that starts matching is
   * ADDED, as kube's watch cache does.
   */
  private eventType(change: Change, predicate: SelectionPredicate): ChangeType | null {
    if (!predicate.filtering) return change.type;
    const now = predicate.matches(change.object);
    if (change.type !== 'MODIFIED') return now ? change.type : null;
    const before = change.previous ? predicate.matches(change.previous) : now;
    if (now) return before ? 'MODIFIED' : 'ADDED';
    return before ? 'DELETED' : null;
  }

  /** The event of a change for a watcher that sees it as `type` (made once for all watchers that encode alike). */
  private readonly render: ChangeRenderer = (change, type) => {
    if (type !== 'DELETED' || change.type !== 'MODIFIED') return { type, object: this.present(change.object) };
    // Stopped matching: the watcher last saw the object as it matched, so that content, at the change's revision.
    const last = change.previous!;
    return { type, object: this.present({ ...last, metadata: { ...last.metadata, resourceVersion: change.revision } }) };
  };

  private bookmark(revision: string, initialEventsEnd: boolean): WatchEvent {
    const metadata: KubeObject['metadata'] = { resourceVersion: revision };
    if (initialEventsEnd) metadata.annotations = { 'platform.io/initial-events-end': 'true' };
    return { type: 'BOOKMARK', object: { apiVersion: apiVersionOf(this.type), kind: this.type.kind, metadata } };
  }

  /** A stored object as sent to watchers: with its TypeMeta. */
  private present(obj: KubeObject): KubeObject {
    return { apiVersion: apiVersionOf(this.type), kind: this.type.kind, ...obj };
  }
}
