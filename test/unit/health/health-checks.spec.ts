import { MessageChannel } from 'node:worker_threads';
import { HealthIndicatorService } from '@nestjs/terminus';
import { HealthChecks, withinTimeout } from '../../../src/health/health-checks';

const outcome = async (health: HealthChecks, probe: 'livez' | 'readyz' | 'healthz', only?: string) => health.run(probe, only, []);

describe('health checks', () => {
  let health: HealthChecks;
  beforeEach(() => (health = new HealthChecks(new HealthIndicatorService())));

  it("orders checks as kube lists them, whatever the registration order", () => {
    health.postStartHook('b-hook');
    health.register('storage', ['livez', 'readyz', 'healthz'], () => undefined);
    health.postStartHook('a-hook');
    health.register('log', ['livez', 'readyz', 'healthz'], () => undefined);
    expect(health.names('readyz')).toEqual(['ping', 'log', 'storage', 'informer-sync', 'poststarthook/b-hook', 'poststarthook/a-hook', 'shutdown']);
    expect(health.names('livez')).toEqual(['ping', 'log', 'storage', 'poststarthook/b-hook', 'poststarthook/a-hook']);
    expect(health.names('healthz')).toEqual(health.names('livez'));
  });

  it('fails informer-sync naming the started informers that have not synced', async () => {
    let synced = false;
    health.addInformer({ name: 'rbac-index', isStarted: () => true, hasSynced: () => synced });
    health.addInformer({ name: 'node-graph', isStarted: () => false, hasSynced: () => false });
    expect(await outcome(health, 'readyz', 'informer-sync')).toEqual([
      { name: 'informer-sync', ok: false, excluded: false, error: '1 informers not started yet: [rbac-index]' },
    ]);
    synced = true;
    expect((await outcome(health, 'readyz', 'informer-sync'))[0].ok).toBe(true);
  });

  it('keeps a post-start hook failing until done, with the error it reports', async () => {
    const hook = health.postStartHook('step');
    expect((await outcome(health, 'readyz', 'poststarthook/step'))[0]).toMatchObject({ ok: false, error: 'not finished' });
    hook.failed(new Error('could not start'));
    expect((await outcome(health, 'healthz', 'poststarthook/step'))[0]).toMatchObject({ ok: false, error: 'could not start' });
    hook.done();
    expect((await outcome(health, 'readyz', 'poststarthook/step'))[0].ok).toBe(true);
  });

  it('passes unfinished post-start hooks on livez only, and only within the grace period', async () => {
    health.postStartHook('slow');
    health.register('storage', ['livez'], () => {
      throw new Error('down');
    });
    const start = Date.now();
    health.setLivezGracePeriod(10_000, start);
    const live = await outcome(health, 'livez');
    expect(live.find((o) => o.name === 'poststarthook/slow')?.ok).toBe(true);
    // Other checks are not covered by the grace period.
    expect(live.find((o) => o.name === 'storage')?.ok).toBe(false);
    expect((await outcome(health, 'readyz', 'poststarthook/slow'))[0].ok).toBe(false);
    health.setLivezGracePeriod(10_000, start - 10_001);
    expect((await outcome(health, 'livez', 'poststarthook/slow'))[0].ok).toBe(false);
  });

  it('fails shutdown on readyz only once shutting down', async () => {
    expect((await outcome(health, 'readyz', 'shutdown'))[0].ok).toBe(true);
    health.markShuttingDown();
    expect((await outcome(health, 'readyz', 'shutdown'))[0]).toMatchObject({ ok: false, error: 'process is shutting down' });
    expect((await outcome(health, 'livez')).every((o) => o.ok)).toBe(true);
  });

  it('bounds a check by a timeout', async () => {
    await expect(withinTimeout(new Promise(() => undefined), 20, 'the store')).rejects.toThrow('the store did not answer within 0.02s');
    await expect(withinTimeout(Promise.resolve(7), 20, 'x')).resolves.toBe(7);
  });

  /** Holds the event loop, as a large request would. */
  const holdLoop = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  it("counts only the check's own wait: an answer that came while the event loop was held is taken", async () => {
    const { port1, port2 } = new MessageChannel();
    // The answer arrives as I/O does (the store engine's thread posts it), while the loop is held past the timeout.
    const answer = new Promise<string>((resolve) => port2.once('message', resolve));
    const checked = withinTimeout(answer, 50, 'the store');
    port1.postMessage('answered');
    holdLoop(200);
    await expect(checked).resolves.toBe('answered');
    port1.close();
  });

  it('still times out a check that never answers, however busy the event loop was', async () => {
    const checked = withinTimeout(new Promise(() => undefined), 150, 'the store');
    holdLoop(400);
    await expect(checked).rejects.toThrow('the store did not answer within 0.15s');
  });
});
