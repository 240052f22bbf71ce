import { apiVersionOf, ResourceType } from '../../runtime/schema/resource-type';
import { errors } from '../../apimachinery/errors';
import { KubeList, KubeObject } from '../../apimachinery/types';
import { storageResource } from '../../apimachinery/store-key';
import { ObjectStore, RevisionCompactedError } from '../../storage/mvcc/object-store';
import { ChangeFeedService } from '../../storage/changefeed/change-feed.service';
import { ListOptions } from '../options/read-options';
import { awaitRevision } from './revision-wait';
import { ContinueTokens, EXPIRED_CONTINUE_MESSAGE } from './continue-token';
import { recordStorageList, resourceLabel } from '../../metrics/storage-metrics';
import { yieldToEventLoop } from '../../runtime/offload/offload';
import { listItemOf } from '../../runtime/serializer/kept-encodings';

/** Rows read from the store per query when a list pages through it. */
const LIST_PAGE_SIZE = 500;

export interface ListPagerDeps {
  store: ObjectStore;
  feed: ChangeFeedService;
  continueTokens: Pick<ContinueTokens, 'encode' | 'decode'>;
}

/**
 * The lists of one kind with kube's paging: `resourceVersion`/`resourceVersionMatch` pick
 * the snapshot (most recent, any, not older than, exactly at), `limit` cuts the answer
 * short with a signed `continue` token naming the snapshot and the last key, and a
 * token or exact revision compacted away is 410. Reads the store in pages so a request
 * never holds more than one page of rows beyond its answer.
 */
export class ListPager {
  constructor(
    private readonly type: ResourceType,
    private readonly deps: ListPagerDeps,
  ) {}

  /** `namespace` '' = every namespace (and cluster-scoped kinds). */
  async list(namespace: string, opts: ListOptions): Promise<KubeList> {
    const { store, continueTokens } = this.deps;
    const sem = opts.semantics;
    const predicate = opts.predicate;
    const inNamespace = this.type.namespaced && namespace ? namespace : undefined;

    // Where the list starts: the snapshot revision (undefined = read the current state) and key.
    let atRevision: string | undefined;
    let after: { namespace: string; name: string } | undefined;
    // Without a revision: how fresh the state must be (unset: the newest; a cache may answer the others at once).
    let notOlderThan: string | undefined;
    let goneMessage = '';
    switch (sem.kind) {
      case 'Any':
        notOlderThan = '0';
        break;
      case 'NotOlderThan':
        await awaitRevision(this.deps.feed, store, sem.revision);
        notOlderThan = sem.revision;
        break;
      // A revision compacted away is 410 (the store's read at it says so).
      case 'Exact':
        await awaitRevision(this.deps.feed, store, sem.revision);
        goneMessage = 'The resourceVersion for the provided list is too old.';
        atRevision = sem.revision;
        break;
      case 'Continue': {
        const pos = continueTokens.decode(sem.token);
        goneMessage = EXPIRED_CONTINUE_MESSAGE;
        atRevision = pos.revision;
        after = { namespace: pos.namespace, name: pos.name };
        break;
      }
      default:
        break;
    }

    const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;
    const items: KubeObject[] = [];
    let snapshot = atRevision;
    let lastKey: { namespace: string; name: string } | undefined;
    let more = false;
    let remaining: number | undefined;
    let fetched = 0;
    let evaluated = 0;
    for (let first = true; ; first = false) {
      // A page read from memory resolves at once: a long list lets other requests in between its pages.
      if (!first) await yieldToEventLoop();
      const want = limit ? limit - items.length : LIST_PAGE_SIZE;
      const page = await store
        .list(storageResource(this.type), {
          namespace: inNamespace,
          atRevision: snapshot,
          after,
          limit: predicate.filtering ? Math.max(want, LIST_PAGE_SIZE) : want,
          notOlderThan: snapshot === undefined ? notOlderThan : undefined,
          // The first read found the revision there; the next reads of this list need not ask again.
          notCompacted: !first,
        })
        .catch((err: unknown) => {
          if (err instanceof RevisionCompactedError && goneMessage) throw errors.gone(goneMessage);
          throw err;
        });
      snapshot = page.revision;
      fetched += page.items.length;
      for (const stored of page.items) {
        if (limit && items.length >= limit) {
          more = true;
          break;
        }
        lastKey = { namespace: stored.key.namespace, name: stored.key.name };
        evaluated++;
        if (predicate.matches(stored.object)) items.push(listItemOf(stored.object));
      }
      if (more) break;
      if (!page.hasMore) break;
      if (limit && items.length >= limit) {
        more = true;
        remaining = predicate.filtering ? undefined : page.remaining;
        break;
      }
      const last = page.items[page.items.length - 1];
      after = { namespace: last.key.namespace, name: last.key.name };
    }

    recordStorageList(resourceLabel(this.type.group, this.type.plural), fetched, evaluated, items.length);
    const metadata: KubeList['metadata'] = { resourceVersion: snapshot };
    if (more && lastKey) {
      metadata.continue = continueTokens.encode({ revision: snapshot!, ...lastKey });
      if (remaining !== undefined && remaining > 0) metadata.remainingItemCount = remaining;
    }
    return { apiVersion: apiVersionOf(this.type), kind: this.type.listKind, metadata, items };
  }
}
