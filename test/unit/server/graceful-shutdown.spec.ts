import { EventEmitter } from 'node:events';
import { GracefulShutdown, SHUTTING_DOWN_MESSAGE, ShutdownTargets } from '../../../src/server/shutdown';

/** A request that is answered at once: whether it reached the handler. */
function passes(shutdown: GracefulShutdown, url: string): boolean {
  const r = send(shutdown, url);
  r.finish();
  return r.passed;
}

/** A request through the middleware: what it answered (if it refused) and a way to finish it. */
function send(shutdown: GracefulShutdown, url: string, verb = 'get') {
  const res = Object.assign(new EventEmitter(), {
    statusCode: 200,
    headers: {} as Record<string, string>,
    body: undefined as string | undefined,
    setHeader(name: string, value: string) {
      this.headers[name] = value;
    },
    status(code: number) {
      this.statusCode = code;
      return this;
    },
    end(body: string) {
      this.body = body;
    },
  });
  const req = { originalUrl: url, scope: { info: { verb } } };
  let passed = false;
  shutdown.middleware()(req as never, res as never, () => (passed = true));
  return { res, passed, finish: () => res.emit('close') };
}

function targets(log: string[], watches: { open: number }, onEndWatches: () => void = () => undefined): ShutdownTargets {
  return {
    server: {
      close: (cb: () => void) => {
        log.push('close listener');
        setImmediate(cb);
      },
      closeIdleConnections: () => undefined,
      closeAllConnections: () => undefined,
    } as never,
    markShuttingDown: () => log.push('readyz fails'),
    openWatches: () => watches.open,
    endWatches: () => {
      log.push(`end ${watches.open} watches`);
      watches.open = 0;
      onEndWatches();
    },
    stopApplication: async () => void log.push('stop application'),
  };
}

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
};

describe('graceful shutdown', () => {
  it("runs kube's sequence: readyz fails, serving through the delay, 429 while draining, then the listener, watches and the application", async () => {
    const log: string[] = [];
    const watches = { open: 1 };
    const shutdown = new GracefulShutdown({ delayMs: 100, sendRetryAfter: true, watchGracePeriodMs: 0 });
    const inFlight = send(shutdown, '/api/v1/namespaces', 'create');
    const watch = send(shutdown, '/api/v1/pods?watch=1', 'watch');
    const done = shutdown.run(targets(log, watches, () => watch.finish()), 'SIGTERM received');

    expect(log).toEqual(['readyz fails']);
    // During the delay new requests are served.
    expect(passes(shutdown, '/api/v1/namespaces')).toBe(true);
    await until(() => !passes(shutdown, '/api/v1/secrets'));
    const refused = send(shutdown, '/api/v1/secrets');
    expect([refused.res.statusCode, refused.res.body]).toEqual([429, `${SHUTTING_DOWN_MESSAGE}\n`]);
    expect(refused.res.headers).toMatchObject({ 'Retry-After': '5', Connection: 'close' });
    // Probes are still answered, so the orchestrator sees readyz fail.
    expect(passes(shutdown, '/readyz?verbose')).toBe(true);
    expect(passes(shutdown, '/livez')).toBe(true);
    // The watch does not hold the drain; the write in flight does.
    expect(log).toEqual(['readyz fails']);
    inFlight.finish();
    await done;
    expect(log).toEqual(['readyz fails', 'close listener', 'end 1 watches', 'stop application']);
  });

  it('lets watches run on within --shutdown-watch-termination-grace-period', async () => {
    const log: string[] = [];
    const watches = { open: 2 };
    const shutdown = new GracefulShutdown({ delayMs: 0, sendRetryAfter: false, watchGracePeriodMs: 10_000 });
    const done = shutdown.run(targets(log, watches), 'SIGTERM received');
    await until(() => log.includes('close listener'));
    watches.open = 0; // the clients' watches ended on their own
    await done;
    expect(log).toEqual(['readyz fails', 'close listener', 'end 0 watches', 'stop application']);
  });

  it('ends the watches once the grace period is over', async () => {
    const log: string[] = [];
    const shutdown = new GracefulShutdown({ delayMs: 0, sendRetryAfter: false, watchGracePeriodMs: 50 });
    await shutdown.run(targets(log, { open: 3 }), 'SIGINT received');
    expect(log).toEqual(['readyz fails', 'close listener', 'end 3 watches', 'stop application']);
  });

  it('runs once: a second call joins the first', async () => {
    const log: string[] = [];
    const shutdown = new GracefulShutdown({ delayMs: 0, sendRetryAfter: false, watchGracePeriodMs: 0 });
    const t = targets(log, { open: 0 });
    await Promise.all([shutdown.run(t), shutdown.run(t)]);
    expect(log.filter((l) => l === 'stop application')).toHaveLength(1);
  });
});
