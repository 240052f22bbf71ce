import { Logger } from '@nestjs/common';
import { DecisionConsistency, StoreFollowingState } from '../../../src/authorization/decision-consistency';
import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { Informer } from '../../../src/storage/informer/informer';
import { CurrentRevision } from '../../../src/storage/mvcc/current-revision';
import { Change, ObjectStore } from '../../../src/storage/mvcc/object-store';
import { MemoryStore } from '../../support/memory-store';
import { StatusError } from '../../../src/apimachinery/errors';

const BINDINGS = 'rbac.authorization.platform.io/rolebindings';
const binding = (name: string) => ({ resource: BINDINGS, namespace: 'ns', name });
const object = (name: string) => ({ metadata: { namespace: 'ns', name, uid: `uid-${name}` } });

/**
 * Decisions wait for the state they are made from (here an informer, as the RBAC index's) to
 * apply the store's revision. Around a failover that lost a commit the old primary showed,
 * that revision may be one the new primary has not reached, and the informer may have applied
 * the lost write: decisions must then be refused (503) rather than made from it, and go on once
 * the informer has listed the new primary's state.
 */
describe('decision consistency when a failover lost a commit the informer had applied', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn']));

  it('refuses with 503 while the revision is not reached, never decides from the lost write, and recovers', async () => {
    const log = new MemoryStore();
    // What the old primary showed for a moment and never sent to its standby.
    let lost: Change | null = null;
    let wake: (revision?: string) => void = () => undefined;
    const store: ObjectStore = Object.assign(Object.create(log) as ObjectStore, {
      changesSince: async (after: string, limit: number, maxBytes?: number) => {
        const changes = await log.changesSince(after, limit, maxBytes);
        return lost && BigInt(lost.revision) > BigInt(after) ? [...changes, lost] : changes;
      },
    });
    const feed = new ChangeFeed(store, {
      subscribe: async (onWake) => {
        wake = onWake;
        return async () => undefined;
      },
      guardPollIntervalMs: 3_600_000,
    });
    await feed.start();
    const informer = new Informer(BINDINGS, store, feed, { idleWakeMs: 50, retryMs: 10 });
    const state: StoreFollowingState = {
      appliedRevision: () => informer.appliedRevision(),
      waitForRevision: (revision, timeoutMs) => informer.waitForRevision(revision.toString(), timeoutMs),
    };
    try {
      await log.create(binding('a'), object('a'));
      await log.create(binding('b'), object('b'));
      await informer.start();

      // The old primary: a commit at revision 3, read by the feed and by a decision's revision read.
      lost = { type: 'ADDED', key: binding('ghost'), revision: '3', object: { ...object('ghost'), metadata: { ...object('ghost').metadata, resourceVersion: '3' } }, bytes: 10 };
      await feed.poke();
      await informer.catchUp();
      expect(informer.get('ns', 'ghost')).toBeDefined();

      // The failover: the new primary's log ends at 2; the revision read from the old primary said 3.
      lost = null;
      const reads = ['3'];
      const consistency = new DecisionConsistency(new CurrentRevision(async () => reads.shift() ?? (await log.currentRevision())), true, 300);
      wake('');
      await feed.poke();
      expect(feed.historyRewrites()).toBe(1);

      // A decision that needs revision 3, which the new primary has not reached: refused.
      const refused = await Promise.resolve(consistency.ensure([state])).then(
        () => null,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(StatusError);
      expect((refused as StatusError).toStatus()).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
      expect((refused as StatusError).headers).toEqual({ 'Retry-After': '1' });
      expect(informer.get('ns', 'ghost')).toBeUndefined();

      // The next decision reads the new primary's revision and is made from its state.
      await consistency.ensure([state]);
      expect(informer.listKeys().sort()).toEqual(['ns/a', 'ns/b']);

      // The new primary gives revision 3 to another write: decisions that need it wait for it, then go on.
      await log.create(binding('c'), object('c'));
      const decided = consistency.ensure([state]);
      await feed.poke();
      await decided;
      expect(informer.listKeys().sort()).toEqual(['ns/a', 'ns/b', 'ns/c']);
    } finally {
      await informer.stop();
      await feed.stop();
    }
  });
});
