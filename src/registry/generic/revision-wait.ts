import { errors } from '../../apimachinery/errors';
import { ChangeFeedService } from '../../storage/changefeed/change-feed.service';
import { ObjectStore } from '../../storage/mvcc/object-store';

/** How long a read naming a revision this process has not seen yet waits before 504. */
const TOO_LARGE_RV_WAIT_MS = 3000;

/**
 * A read "not older than" a revision this process has not seen yet waits briefly for the
 * change feed to reach it, then answers kube's 504 (the watch cache's waitUntilFreshAndBlock).
 */
export async function awaitRevision(feed: ChangeFeedService, store: ObjectStore, revision: string): Promise<void> {
  if (await feed.waitForRevision(revision, TOO_LARGE_RV_WAIT_MS)) return;
  const current = BigInt(await store.currentRevision());
  if (current >= BigInt(revision)) return;
  throw errors.tooLargeResourceVersion(1);
}
