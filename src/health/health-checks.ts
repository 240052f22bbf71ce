import { Injectable, Optional, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckResult, HealthCheckService, HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { HealthCheckExecutor } from '@nestjs/terminus/dist/health-check/health-check-executor.service';
import { JsonErrorLogger } from '@nestjs/terminus/dist/health-check/error-logger/json-error-logger.service';
import { NOOP_LOGGER } from '@nestjs/terminus/dist/health-check/logger/noop-logger';

/** The three endpoints; `healthz` is kube's deprecated one, with the checks kube gives it. */
export type Probe = 'livez' | 'readyz' | 'healthz';

/** Every probe; what kube adds with AddHealthChecks (ping, log, etcd, post-start hooks). */
export const ALL_PROBES: Probe[] = ['livez', 'readyz', 'healthz'];

interface Check {
  name: string;
  probes: Probe[];
  run: () => Promise<void> | void;
  /** Post-start hooks: /livez treats them as passing during `--livez-grace-period`. */
  postStartHook?: boolean;
}

export interface CheckOutcome {
  name: string;
  ok: boolean;
  excluded: boolean;
  /** Why it failed, for the log and the single-check endpoint (never in the list output). */
  error?: string;
}

/**
 * Something kept in memory from a list plus the change feed (kube's informer): until it has
 * synced, this replica would answer from partial state, so /readyz fails its `informer-sync`
 * check. A generic informer registry can register each of its informers here.
 */
export interface SyncedInformer {
  readonly name: string;
  /** Started and holds its initial list; false also while it cannot follow the store. */
  hasSynced(): boolean;
  /** False while nothing started it (an unused index): it does not count then. */
  isStarted(): boolean;
}

/** A start-up step as `/readyz` lists it (`poststarthook/<name>`); failing until it reports. */
export interface PostStartHook {
  done(): void;
  failed(error: Error): void;
}

/** kube's order in the lists: ping, log, the store (its space, whether it takes writes), informers, post-start hooks, shutdown. */
const RANK: Record<string, number> = { ping: 0, log: 1, storage: 2, 'storage-space': 2.5, 'storage-writable': 2.7, 'informer-sync': 3, shutdown: 5 };
/**
 * The post-start hooks in the order the server's start runs them (configuration, store,
 * controllers), not in the order modules happen to be built; others follow them.
 */
const POST_START_ORDER = [
  'authentication/config-loader',
  'authorization/config-loader',
  'storage-migrations',
  'start-namespace-controller',
  'rbac/bootstrap-roles',
  'start-clusterrole-aggregation-controller',
].map((hook) => `poststarthook/${hook}`);
const rank = (name: string) => {
  if (RANK[name] !== undefined) return RANK[name];
  if (!name.startsWith('poststarthook/')) return 3.5;
  const known = POST_START_ORDER.indexOf(name);
  return 4 + (known < 0 ? POST_START_ORDER.length : known) / 100;
};

/**
 * The terminus health check service of a HealthChecks made outside Nest's container (as the
 * one the container gives: its executor, its error logger, no log of its own).
 */
function standaloneHealthCheckService(): HealthCheckService {
  return new HealthCheckService(new HealthCheckExecutor(), new JsonErrorLogger(), NOOP_LOGGER);
}

/**
 * The named checks behind /livez, /readyz and /healthz, in kube's names: `ping`, `log`,
 * `storage` (kube's `etcd`), `informer-sync`, `poststarthook/<name>` per start-up step and
 * `shutdown` (readyz only). Feature modules register theirs; each is a terminus health
 * indicator, and terminus's health check service runs those a probe asks for.
 */
@Injectable()
export class HealthChecks {
  private readonly checks: Check[] = [];
  private readonly informerSources: Array<() => SyncedInformer[]> = [];
  private shuttingDown = false;
  private startedAt = Date.now();
  private livezGracePeriodMs = 0;

  private readonly service: HealthCheckService;

  constructor(
    private readonly indicators: HealthIndicatorService,
    @Optional() service?: HealthCheckService,
  ) {
    this.service = service ?? standaloneHealthCheckService();
    this.register('ping', ALL_PROBES, () => undefined);
    this.register('informer-sync', ['readyz'], () => {
      const informers = this.informerSources.flatMap((source) => source());
      const pending = informers.filter((i) => i.isStarted() && !i.hasSynced()).map((i) => i.name);
      if (pending.length) throw new Error(`${pending.length} informers not started yet: [${pending.join(' ')}]`);
    });
    this.register('shutdown', ['readyz'], () => {
      if (this.shuttingDown) throw new Error('process is shutting down');
    });
  }

  /** `--livez-grace-period`, counted from the server's start. */
  setLivezGracePeriod(ms: number, startedAt = Date.now()): void {
    this.livezGracePeriodMs = ms;
    this.startedAt = startedAt;
  }

  register(name: string, probes: Probe[], run: () => Promise<void> | void): void {
    this.checks.push({ name, probes, run });
  }

  addInformer(informer: SyncedInformer): void {
    this.informerSources.push(() => [informer]);
  }

  /** Informers that come and go (a shared informer factory's): asked at every check. */
  addInformers(source: () => SyncedInformer[]): void {
    this.informerSources.push(source);
  }

  /**
   * A start-up step: `poststarthook/<name>` fails on every probe until it reports done
   * (on /livez only after the grace period), and keeps failing with the error it reports.
   */
  postStartHook(name: string): PostStartHook {
    let state: { done: boolean; error?: Error } = { done: false };
    this.checks.push({
      name: `poststarthook/${name}`,
      probes: ALL_PROBES,
      postStartHook: true,
      run: () => {
        if (state.error) throw state.error;
        if (!state.done) throw new Error('not finished');
      },
    });
    return {
      done: () => (state = { done: true }),
      failed: (error) => (state = { done: false, error }),
    };
  }

  /** Readiness fails from now on, so load balancers drain this replica before it stops. */
  markShuttingDown(): void {
    this.shuttingDown = true;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  names(probe: Probe): string[] {
    return this.ordered(probe).map((c) => c.name);
  }

  private ordered(probe: Probe): Check[] {
    return this.checks
      .map((check, index) => ({ check, index }))
      .filter(({ check }) => check.probes.includes(probe))
      .sort((a, b) => rank(a.check.name) - rank(b.check.name) || a.index - b.index)
      .map(({ check }) => check);
  }

  async run(probe: Probe, only: string | undefined, exclude: string[]): Promise<CheckOutcome[]> {
    const selected = this.ordered(probe).filter((c) => only === undefined || c.name === only);
    const graceful = probe === 'livez' && Date.now() < this.startedAt + this.livezGracePeriodMs;
    const skipped = (check: Check) => exclude.includes(check.name) || (graceful && check.postStartHook === true);
    const details = await this.check(selected.filter((check) => !skipped(check)));
    return selected.map((check) => {
      if (exclude.includes(check.name)) return { name: check.name, ok: true, excluded: true };
      if (skipped(check)) return { name: check.name, ok: true, excluded: false };
      const status = details[check.name];
      return status?.status === 'up'
        ? { name: check.name, ok: true, excluded: false }
        : { name: check.name, ok: false, excluded: false, error: String(status?.message) };
    });
  }

  /**
   * Each check's status, as terminus's health check service runs their indicators. It
   * answers a failure (or any answer while the application shuts down) with a 503 that holds
   * the same result: the probe's own output is kube's, made from the checks one by one.
   */
  private async check(checks: Check[]): Promise<HealthCheckResult['details']> {
    let result: HealthCheckResult;
    try {
      result = await this.service.check(checks.map((check) => () => this.indicate(check)));
    } catch (err) {
      if (!(err instanceof ServiceUnavailableException)) throw err;
      result = err.getResponse() as HealthCheckResult;
    }
    return result.details;
  }

  private async indicate(check: Check): Promise<HealthIndicatorResult> {
    const session = this.indicators.check(check.name);
    try {
      await check.run();
      return session.up();
    } catch (err) {
      return session.down({ message: (err as Error).message });
    }
  }
}

/** The slices a check's wait is counted in (see withinTimeout). */
const TIMEOUT_SLICE_MS = 100;

/**
 * Runs `work` but gives up after `ms` of its own waiting with an error saying so (a check
 * must answer promptly). The wait is counted in slices, each as long as it was meant to be:
 * a slice that ends late because the event loop was busy counts no more, so time spent
 * queued behind other work on this thread does not fail the check; and an answer that
 * arrived meanwhile is taken before giving up.
 */
export async function withinTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let last: NodeJS.Immediate | undefined;
  const timeout = new Promise<never>((_, reject) => {
    let waited = 0;
    const wait = (slice: number) => {
      timer = setTimeout(() => {
        waited += slice;
        if (waited < ms) return wait(Math.min(TIMEOUT_SLICE_MS, ms - waited));
        // After this turn's I/O: an answer that came while the loop was busy is taken first.
        last = setImmediate(() => reject(new Error(`${what} did not answer within ${ms / 1000}s`)));
      }, slice);
    };
    wait(Math.min(TIMEOUT_SLICE_MS, ms));
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    clearImmediate(last);
  }
}
