import { performance } from 'node:perf_hooks';
import { DecisionConsistency, StoreFollowingState } from '../../../src/authorization/decision-consistency';
import { CurrentRevision } from '../../../src/storage/mvcc/current-revision';
import { statusOf } from '../../support/status-of';

/** A revision read the test answers by hand. */
function manualReads() {
  const pending: Array<{ resolve: (rev: string) => void; reject: (err: unknown) => void }> = [];
  const read = () => new Promise<string>((resolve, reject) => pending.push({ resolve, reject }));
  return { read, pending };
}

/** State that applies revisions when the test says so. */
function followingState(applied = 0n) {
  let current = applied;
  const waiters: Array<{ revision: bigint; resolve: (ok: boolean) => void; timer?: NodeJS.Timeout }> = [];
  const state: StoreFollowingState & { apply(r: bigint): void; waiting(): number } = {
    appliedRevision: () => current,
    waitForRevision: (revision, timeoutMs) =>
      new Promise<boolean>((resolve) => {
        if (current >= revision) return resolve(true);
        const waiter: (typeof waiters)[number] = { revision, resolve };
        waiters.push(waiter);
        waiter.timer = setTimeout(() => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) waiters.splice(i, 1);
          resolve(current >= revision);
        }, timeoutMs);
      }),
    apply(r: bigint) {
      current = r;
      for (const w of [...waiters]) {
        if (current >= w.revision) {
          waiters.splice(waiters.indexOf(w), 1);
          clearTimeout(w.timer);
          w.resolve(true);
        }
      }
    },
    waiting: () => waiters.length,
  };
  return state;
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('CurrentRevision', () => {
  it('the sole writer needs no read: its last commit is the store revision', () => {
    const reads = manualReads();
    const current = new CurrentRevision(reads.read, () => 42n);
    expect(current.since()).toBe(42n);
    expect(reads.pending).toHaveLength(0);
  });

  it('callers that arrived before a read began share it; later arrivals wait for the next one', async () => {
    const reads = manualReads();
    const current = new CurrentRevision(reads.read);
    const before = performance.now();
    const first = current.since(before);
    const joined = current.since(before);
    expect(reads.pending).toHaveLength(1);
    // Arrived after the first read began: it might miss a write acknowledged meanwhile.
    const later = current.since(performance.now() + 1);
    const alsoLater = current.since(performance.now() + 1);
    expect(reads.pending).toHaveLength(1);
    reads.pending[0].resolve('10');
    await expect(first).resolves.toBe(10n);
    await expect(joined).resolves.toBe(10n);
    await flush();
    // One more read for both later callers, begun only once the first ended.
    expect(reads.pending).toHaveLength(2);
    reads.pending[1].resolve('11');
    await expect(later).resolves.toBe(11n);
    await expect(alsoLater).resolves.toBe(11n);
  });

  it('a failed read is not reused', async () => {
    const reads = manualReads();
    const current = new CurrentRevision(reads.read);
    const arrived = performance.now();
    const failing = current.since(arrived);
    reads.pending[0].reject(new Error('down'));
    await expect(failing).rejects.toThrow('down');
    const again = current.since(arrived);
    expect(reads.pending).toHaveLength(2);
    reads.pending[1].resolve('7');
    await expect(again).resolves.toBe(7n);
  });
});

describe('DecisionConsistency', () => {
  it('nothing to await when the state already has the revision', () => {
    const consistency = new DecisionConsistency(new CurrentRevision(() => Promise.reject(new Error('unused')), () => 5n), true);
    expect(consistency.ensure([followingState(5n)])).toBeUndefined();
  });

  it('waits until every state has applied the store revision', async () => {
    const rbac = followingState(3n);
    const nodes = followingState(9n);
    const consistency = new DecisionConsistency(new CurrentRevision(() => Promise.resolve('9')), true);
    let done = false;
    const waiting = Promise.resolve(consistency.ensure([rbac, nodes])).then(() => (done = true));
    await flush();
    expect(done).toBe(false);
    rbac.apply(8n);
    await flush();
    expect(done).toBe(false);
    rbac.apply(9n);
    await waiting;
    expect(done).toBe(true);
  });

  it('past the bound the decision is refused with 503 and Retry-After, never made stale', async () => {
    const consistency = new DecisionConsistency(new CurrentRevision(() => Promise.resolve('9')), true, 50);
    const stuck = followingState(3n);
    let thrown: unknown;
    await Promise.resolve(consistency.ensure([stuck])).catch((err) => (thrown = err));
    const status = statusOf(() => {
      throw thrown;
    });
    expect([status.code, status.reason, status.message, status.details]).toEqual([
      503,
      'ServiceUnavailable',
      'authorization is not yet up to date with the store (revision 9); try again',
      { retryAfterSeconds: 1 },
    ]);
    expect(stuck.waiting()).toBe(0);
  });

  it('while the store cannot be read, decides from the state as it is', async () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const consistency = new DecisionConsistency(new CurrentRevision(() => Promise.reject(down)), true);
    await expect(Promise.resolve(consistency.ensure([followingState(1n)]))).resolves.toBeUndefined();
  });

  it('a revision read just before the store went away: past the bound, decided from the state if the feed cannot read the store either', async () => {
    let feedReads = true;
    const consistency = new DecisionConsistency(new CurrentRevision(() => Promise.resolve('9')), true, 50, () => feedReads);
    // The feed still reads the store: the state is behind for another reason, refused.
    await expect(Promise.resolve(consistency.ensure([followingState(3n)]))).rejects.toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
    // The store went away (a failover): nothing newer can be acknowledged until it is back.
    feedReads = false;
    const behind = followingState(3n);
    await expect(Promise.resolve(consistency.ensure([behind]))).resolves.toBeUndefined();
    expect(behind.waiting()).toBe(0);
  });

  it('notices the store going away during its wait, long before the bound', async () => {
    let feedReads = true;
    const consistency = new DecisionConsistency(new CurrentRevision(() => Promise.resolve('9')), true, 10_000, () => feedReads);
    const behind = followingState(3n);
    const started = performance.now();
    const decided = Promise.resolve(consistency.ensure([behind]));
    setTimeout(() => (feedReads = false), 50);
    await expect(decided).resolves.toBeUndefined();
    // A step (250 ms) after the store went away, not the 10 s bound.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(behind.waiting()).toBe(0);
  });

  it('any other failure of the read is not hidden', async () => {
    const consistency = new DecisionConsistency(new CurrentRevision(() => Promise.reject(new Error('syntax error'))), true);
    await expect(Promise.resolve(consistency.ensure([followingState(1n)]))).rejects.toThrow('syntax error');
  });
});
