import { Logger } from '@nestjs/common';
import fc from 'fast-check';
import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { Change, LocalCommitListener, ObjectStore } from '../../../src/storage/mvcc/object-store';

/**
 * The change feed against a model of the shared log as PostgreSQL keeps it, driven through
 * every interleaving fast-check finds: writers of this process and of other replicas take
 * revisions one at a time (the counter's row lock), some fail after taking one and give it back
 * (and another writer commits that number), this process learns of its own commits late (after
 * later commits of others are visible), NOTIFYs arrive late, out of order, twice or never (a
 * dropped listener connection, which wakes the feed once when it is back), log reads answer a
 * snapshot taken before later commits, and some reads fail (a dropped connection, a failover).
 * Whatever happens, what the feed hands a subscriber and what it replays is the log: every
 * revision once, none skipped, in commit order.
 */

type Writer = 'local' | 'remote';

/** A pending event the schedule may deliver at any later step. */
type Delivery = { kind: 'notify'; revision: string } | { kind: 'ack'; change: Change };

interface PendingRead {
  snapshot: Change[];
  after: bigint;
  limit: number;
  resolve(changes: Change[]): void;
  reject(err: Error): void;
}

/** The shared database: the log, the counter's lock, and what travels to the feed. */
class SharedLog {
  readonly log: Change[] = [];
  listener: LocalCommitListener | null = null;
  wake: (revision?: string) => void = () => undefined;
  /** The writer holding the counter's lock and the revision it took. */
  holder: { writer: Writer; revision: string } | null = null;
  readonly deliveries: Delivery[] = [];
  readonly reads: PendingRead[] = [];
  /** Reads answer at once (the end of a run). */
  answerAtOnce = false;

  readonly store: ObjectStore = Object.assign(Object.create(null) as ObjectStore, {
    currentRevision: async () => String(this.log.length),
    changesSince: (after: string, limit: number) =>
      new Promise<Change[]>((resolve, reject) => {
        // The statement's snapshot: commits after it are not in its answer, however late it comes.
        const read: PendingRead = { snapshot: [...this.log], after: BigInt(after), limit, resolve, reject };
        if (this.answerAtOnce) this.answer(read, false);
        else this.reads.push(read);
      }),
    addCommitListener: (listener: LocalCommitListener) => {
      this.listener = listener;
      return () => (this.listener = null);
    },
  });

  answer(read: PendingRead, fail: boolean): void {
    if (fail) return read.reject(Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' }));
    read.resolve(read.snapshot.filter((c) => BigInt(c.revision) > read.after).slice(0, read.limit));
  }

  /** A writer takes the next revision (the counter's row lock until it commits or rolls back). */
  take(writer: Writer): void {
    if (this.holder) return;
    const revision = String(this.log.length + 1);
    this.holder = { writer, revision };
    if (writer === 'local') this.listener?.committing(revision);
  }

  commit(): void {
    if (!this.holder) return;
    const { writer, revision } = this.holder;
    const name = `${writer}-${revision}`;
    const change: Change = { type: 'ADDED', key: { resource: 'g/things', namespace: '', name }, revision, object: { metadata: { name } }, bytes: 10 };
    this.log.push(change);
    this.holder = null;
    this.deliveries.push({ kind: 'notify', revision });
    // This process hears of its own commit when the COMMIT's answer arrives: maybe after others'.
    if (writer === 'local') this.deliveries.push({ kind: 'ack', change });
  }

  /** The holder's write fails after taking its revision: the number is given back. */
  rollBack(): void {
    if (!this.holder) return;
    const { writer, revision } = this.holder;
    this.holder = null;
    if (writer === 'local') this.listener?.abandoned(revision);
  }

  deliver(index: number, drop: boolean, twice: boolean): void {
    if (this.deliveries.length === 0) return;
    const [delivery] = this.deliveries.splice(index % this.deliveries.length, 1);
    if (delivery.kind === 'ack') return this.listener?.committed(delivery.change);
    if (drop) return;
    this.wake(delivery.revision);
    if (twice) this.wake(delivery.revision);
  }
}

/** One step of a schedule; each is applied if it can be (taking a revision while another writer holds one is not). */
const step = fc.oneof(
  fc.record({ op: fc.constant('take' as const), writer: fc.constantFrom<Writer>('local', 'remote') }),
  fc.constant({ op: 'commit' as const }),
  fc.constant({ op: 'commit' as const }),
  fc.constant({ op: 'rollBack' as const }),
  fc.record({ op: fc.constant('deliver' as const), index: fc.nat(), drop: fc.boolean(), twice: fc.boolean() }),
  fc.record({ op: fc.constant('answerRead' as const), index: fc.nat(), fail: fc.boolean() }),
  fc.constant({ op: 'reconnect' as const }),
  fc.constant({ op: 'poll' as const }),
);

/** Lets promise chains the last step started run on (the feed's pump awaits its reads). */
const settle = async () => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('the change feed under concurrent writers, failovers, dropped connections and late commits (property)', () => {
  // Each failed read is logged; thousands of them say nothing here.
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn']));

  it('never skips a revision, never hands one out twice, and stays in commit order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 120 }), async (schedule) => {
        const shared = new SharedLog();
        const feed = new ChangeFeed(
          shared.store,
          {
            subscribe: async (onWake) => {
              shared.wake = onWake;
              return async () => undefined;
            },
            // No timer-driven polls: the schedule polls.
            guardPollIntervalMs: 3_600_000,
          },
          { batchSize: 4, windowSize: 1000 },
        );
        await feed.start();
        const handed: string[] = [];
        const ended: unknown[] = [];
        feed.subscribe(feed.headRevision(), { next: (changes) => handed.push(...changes.map((c) => c.revision)), end: (err) => ended.push(err) });
        try {
          for (const s of schedule) {
            switch (s.op) {
              case 'take':
                shared.take(s.writer);
                break;
              case 'commit':
                shared.commit();
                break;
              case 'rollBack':
                shared.rollBack();
                break;
              case 'deliver':
                shared.deliver(s.index, s.drop, s.twice);
                break;
              case 'answerRead':
                if (shared.reads.length) shared.answer(shared.reads.splice(s.index % shared.reads.length, 1)[0], s.fail);
                break;
              case 'reconnect':
                shared.wake('');
                break;
              case 'poll':
                void feed.poke();
                break;
            }
            await settle();
            // At every moment: a prefix of the log, in order, each once.
            expect(handed).toEqual(shared.log.slice(0, handed.length).map((c) => c.revision));
          }

          // The end of the run: writes finish, everything in flight arrives, reads answer, and a poll (the guard) runs.
          shared.commit();
          while (shared.deliveries.length) shared.deliver(0, false, false);
          shared.answerAtOnce = true;
          for (const read of shared.reads.splice(0)) shared.answer(read, false);
          await settle();
          await feed.poke();
          await settle();

          const log = shared.log.map((c) => c.revision);
          expect(handed).toEqual(log);
          expect(ended).toEqual([]);
          expect(feed.headRevision()).toBe(String(log.length));
          expect((await feed.changesAfter('0', 10_000)).map((c) => c.key.name)).toEqual(shared.log.map((c) => c.key.name));
        } finally {
          await feed.stop();
        }
      }),
      { numRuns: 300 },
    );
  });
});
