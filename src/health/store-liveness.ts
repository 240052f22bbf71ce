/**
 * The store's part of /livez (kube's `etcd` check): a store that is still working through
 * queued writes is alive. kube sends at most one health request every half of its timeout
 * and answers the probes in between with the last result; its request goes over a client of
 * its own, so it never waits behind the server's writes. Here the store's one session and
 * the embedded engine's one thread queue every statement: a `SELECT 1` sent during a large
 * write waited behind it (the probe took as long as the write, up to its 2 s timeout). So:
 * - at most one round trip is out at a time, and a new one starts at most every timeoutMs / 2;
 * - a probe waits for the round trip it finds out only while there is no good answer to
 *   judge by (the first one, or after a failure: as kube's probe waits for its request);
 * - otherwise it answers at once with the last result (or waits `freshAnswerWaitMs` for a
 *   fresh one): the store is failed from the moment its round trip fails or times out
 *   (`roundTrip` bounds it). A probe that waited even 20 ms was measured caught behind the
 *   next stage of a large write: /livez 674 ms where the event loop's own wait was 410.
 */
export class StoreLivenessCheck {
  private last: { ok: true } | { ok: false; error: Error } | undefined;
  private inFlight: Promise<void> | undefined;
  private lastStartedAt = -Infinity;

  constructor(
    /** One round trip to the store, failing with the reason to report (bounded by its own timeout). */
    private readonly roundTrip: () => Promise<void>,
    private readonly timeoutMs: number,
    private readonly freshAnswerWaitMs = 0,
  ) {}

  async check(): Promise<void> {
    const now = performance.now();
    if (!this.inFlight && now - this.lastStartedAt >= this.timeoutMs / 2) this.start(now);
    const flight = this.inFlight;
    if (flight) {
      if (this.last?.ok !== true) await flight;
      else if (this.freshAnswerWaitMs > 0) await Promise.race([flight, delay(this.freshAnswerWaitMs)]);
    }
    if (this.last && !this.last.ok) throw this.last.error;
  }

  private start(now: number): void {
    this.lastStartedAt = now;
    const flight = this.roundTrip().then(
      () => {
        this.last = { ok: true };
      },
      (err: unknown) => {
        this.last = { ok: false, error: err instanceof Error ? err : new Error(String(err)) };
      },
    );
    this.inFlight = flight.finally(() => {
      if (this.inFlight === tracked) this.inFlight = undefined;
    });
    const tracked = this.inFlight;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
