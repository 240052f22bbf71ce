import { StoreLivenessCheck } from '../../../src/health/store-liveness';

/** A store whose round trips answer when the test says so, counting them. */
function heldStore() {
  const answers: Array<(error?: Error) => void> = [];
  const roundTrip = () =>
    new Promise<void>((resolve, reject) => {
      answers.push((error) => (error ? reject(error) : resolve()));
    });
  return { roundTrip, answers };
}

/** Whether `promise` has settled once pending callbacks ran (no answer from the store is involved). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('the store liveness check', () => {
  it('waits for the first answer and reports its failure', async () => {
    const store = heldStore();
    const check = new StoreLivenessCheck(store.roundTrip, 0);
    const first = check.check();
    expect(await settled(first)).toBe(false);
    store.answers[0](new Error('the store is unreachable'));
    await expect(first).rejects.toThrow('the store is unreachable');
  });

  it('answers from the last good answer while a round trip waits behind queued work, without sending another', async () => {
    const store = heldStore();
    const check = new StoreLivenessCheck(store.roundTrip, 0);
    const first = check.check();
    store.answers[0]();
    await first;
    // The store is busy: its next round trip is not answered.
    const probes = [check.check(), check.check(), check.check()];
    await expect(Promise.all(probes)).resolves.toBeDefined();
    expect(store.answers).toHaveLength(2);
    // Its answer is a failure (it timed out): the next probe, with no good answer to judge
    // by, waits for a round trip of its own, as kube's does, and reports what it answers.
    store.answers[1](new Error('the store did not answer within 2s'));
    // The answer is taken in a turn of its own, as an engine thread's message is.
    await new Promise((resolve) => setImmediate(resolve));
    const after = check.check();
    expect(await settled(after)).toBe(false);
    store.answers[2](new Error('the store did not answer within 2s'));
    await expect(after).rejects.toThrow('the store did not answer within 2s');
  });

  it('reports a failed round trip from the next probe on, and on the probe that asked when it waits for a fresh answer', async () => {
    let fail = false;
    const roundTrip = async () => {
      if (fail) throw new Error('the store is unreachable');
    };
    const check = new StoreLivenessCheck(roundTrip, 0);
    await check.check();
    fail = true;
    await expect(check.check()).resolves.toBeUndefined();
    await expect(check.check()).rejects.toThrow('the store is unreachable');
    fail = false;
    await expect(check.check()).resolves.toBeUndefined();

    const waiting = new StoreLivenessCheck(roundTrip, 0, 60_000);
    await waiting.check();
    fail = true;
    await expect(waiting.check()).rejects.toThrow('the store is unreachable');
    fail = false;
    await expect(check.check()).resolves.toBeUndefined();
  });

  it('asks the store at most once per half timeout, as kube rate-limits its etcd check; probes in between get the last result', async () => {
    let calls = 0;
    const check = new StoreLivenessCheck(async () => {
      calls++;
      throw new Error('the store failed a query');
    }, 60_000);
    for (let i = 0; i < 5; i++) await expect(check.check()).rejects.toThrow('the store failed a query');
    expect(calls).toBe(1);
  });
});
