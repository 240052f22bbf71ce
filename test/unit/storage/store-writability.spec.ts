import { StoreWritability } from '../../../src/storage/engine/store-writability';

function pgError(code: string): Error {
  return Object.assign(new Error(`driver words naming db-a:5432 (${code})`), { code });
}

/** A write the test finishes when it wants. */
function controlledWrite() {
  const calls: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  const write = () => new Promise<void>((resolve, reject) => calls.push({ resolve, reject }));
  return { calls, write };
}

describe("readyz's storage-writable check", () => {
  it('passes once a write completes, sharing one write between the callers that arrive meanwhile', async () => {
    const { calls, write } = controlledWrite();
    const check = new StoreWritability(write, 60_000);
    const first = check.check();
    const second = check.check();
    expect(calls).toHaveLength(1);
    calls[0].resolve();
    await expect(Promise.all([first, second])).resolves.toEqual([undefined, undefined]);
    // The next caller writes again: a success is not reused.
    const third = check.check();
    expect(calls).toHaveLength(2);
    calls[1].resolve();
    await expect(third).resolves.toBeUndefined();
  });

  it.each([
    ['25006', 'the store is read-only (a standby, or a server set read-only)'],
    ['57P01', 'the store is unreachable'],
    ['23505', 'the store refused a write'],
  ])('fails with the reason of a write refused with %s, in its own words', async (code, reason) => {
    const check = new StoreWritability(() => Promise.reject(pgError(code)), 60_000);
    await expect(check.check()).rejects.toThrow(reason);
    await expect(check.check()).rejects.not.toThrow(/db-a/);
  });

  it('fails while a write hangs, without piling a second one behind it, and writes again once it ended', async () => {
    const { calls, write } = controlledWrite();
    const check = new StoreWritability(write, 50);
    await expect(check.check()).rejects.toThrow('a write to the store did not complete within 0.05s');
    await expect(check.check()).rejects.toThrow('did not complete');
    expect(calls).toHaveLength(1);
    // The hung write ends (the synchronous standby is back): the next check writes anew.
    calls[0].resolve();
    await new Promise((resolve) => setImmediate(resolve));
    const again = check.check();
    expect(calls).toHaveLength(2);
    calls[1].resolve();
    await expect(again).resolves.toBeUndefined();
  });
});
