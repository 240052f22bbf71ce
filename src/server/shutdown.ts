import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:https';
import type { ApiRequest } from '../endpoints/request/request-scope';
import { isLongRunning } from '../endpoints/request/long-running';

/** kube's answer to a new request once the server no longer takes any (`--shutdown-send-retry-after`). */
export const SHUTTING_DOWN_MESSAGE = 'The apiserver is shutting down, please try again later.';
const SHUTTING_DOWN_RETRY_AFTER_SECONDS = 5;
/** The longest a request that is not a watch may still take once the listener closed (kube's request timeout). */
const REQUEST_DRAIN_LIMIT_MS = 60_000;
/** How long ended watches may take to hand their last bytes to the clients. */
const WATCH_END_LIMIT_MS = 5000;
/** How often the drain looks at what is still in flight. */
const DRAIN_POLL_MS = 50;

/** Probes stay answered while new work is refused, so the orchestrator sees readyz fail (as kube exempts them). */
const PROBE_PATH = /^\/(readyz|livez|healthz)(\/|$|\?)/;

export interface ShutdownSettings {
  /** `--shutdown-delay-duration` */
  delayMs: number;
  /** `--shutdown-send-retry-after` */
  sendRetryAfter: boolean;
  /** `--shutdown-watch-termination-grace-period` */
  watchGracePeriodMs: number;
}

/** What the sequence acts on; the server's start wires the real ones. */
export interface ShutdownTargets {
  server: Server;
  /** /readyz fails its `shutdown` check from now on. */
  markShuttingDown(): void;
  openWatches(): number;
  endWatches(): void;
  /** The rest of the application's stop: controllers and leader leases, audit, then the store. */
  stopApplication(): Promise<void>;
}

type Phase = 'serving' | 'delaying' | 'refusing' | 'closing';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * kube-apiserver's graceful termination, for SIGTERM and SIGINT: /readyz fails at once; the
 * server keeps serving for `--shutdown-delay-duration` (so load balancers stop sending);
 * then, with `--shutdown-send-retry-after`, new requests get 429 with Retry-After while
 * those in flight finish; the listener closes; requests in flight finish; open watches may
 * run on for `--shutdown-watch-termination-grace-period` and are then ended after a complete
 * frame; the application stops (controllers, leader election, audit) and the store closes.
 */
export class GracefulShutdown {
  private readonly logger = new Logger('Shutdown');
  private readonly inflight = new Set<ApiRequest>();
  private phase: Phase = 'serving';
  private running: Promise<void> | null = null;

  constructor(private readonly settings: ShutdownSettings) {}

  /** Counts requests in flight; refuses new ones while draining with Retry-After; asks clients to close once closing. */
  middleware() {
    return (req: Request, res: Response, next: NextFunction): void => {
      const api = req as ApiRequest;
      if (this.phase === 'refusing' && !PROBE_PATH.test(req.originalUrl)) {
        res.setHeader('Retry-After', String(SHUTTING_DOWN_RETRY_AFTER_SECONDS));
        res.setHeader('Connection', 'close');
        res.setHeader('Content-Type', 'text/plain; charset=utf-8');
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.status(429).end(`${SHUTTING_DOWN_MESSAGE}\n`);
        return;
      }
      if (this.phase === 'closing' || this.phase === 'refusing') res.setHeader('Connection', 'close');
      this.inflight.add(api);
      res.once('close', () => this.inflight.delete(api));
      next();
    };
  }

  /** Requests in flight that are not long-running (watches). */
  pendingRequests(): number {
    let n = 0;
    for (const req of this.inflight) if (!isLongRunning(req.scope.info)) n++;
    return n;
  }

  get started(): boolean {
    return this.running !== null;
  }

  /** Runs the sequence once; later calls join it. */
  run(targets: ShutdownTargets, reason = 'shutdown requested'): Promise<void> {
    this.running ??= this.sequence(targets, reason);
    return this.running;
  }

  private async sequence(targets: ShutdownTargets, reason: string): Promise<void> {
    const { delayMs, sendRetryAfter, watchGracePeriodMs } = this.settings;
    targets.markShuttingDown();
    this.phase = 'delaying';
    this.logger.log(`${reason}: /readyz fails from now on; serving for ${delayMs / 1000}s more (--shutdown-delay-duration)`);
    if (delayMs > 0) await sleep(delayMs);

    if (sendRetryAfter) {
      this.phase = 'refusing';
      this.logger.log('refusing new requests with 429 until the requests in flight finished (--shutdown-send-retry-after)');
      await this.until(() => this.pendingRequests() === 0, REQUEST_DRAIN_LIMIT_MS);
    }

    this.phase = 'closing';
    this.logger.log('stopped accepting connections');
    const listenerClosed = new Promise<void>((resolve) => targets.server.close(() => resolve()));
    targets.server.closeIdleConnections();
    const drained = await this.until(() => this.pendingRequests() === 0, REQUEST_DRAIN_LIMIT_MS);
    if (!drained) this.logger.warn(`${this.pendingRequests()} requests still in flight after ${REQUEST_DRAIN_LIMIT_MS / 1000}s; ending them`);

    if (watchGracePeriodMs > 0 && targets.openWatches() > 0) {
      this.logger.log(`waiting up to ${watchGracePeriodMs / 1000}s for ${targets.openWatches()} watches to end (--shutdown-watch-termination-grace-period)`);
      await this.until(() => targets.openWatches() === 0, watchGracePeriodMs);
    }
    const watches = targets.openWatches();
    targets.endWatches();
    if (watches) this.logger.log(`ended ${watches} watches`);
    // Their last frames reach the clients (and their request lines the log) before the application stops.
    await this.until(() => this.inflight.size === 0, WATCH_END_LIMIT_MS);

    await targets.stopApplication();
    // What is left is idle (or a client that never read its answer): nothing of ours is pending on it.
    targets.server.closeAllConnections();
    await listenerClosed;
    this.logger.log('shutdown complete');
  }

  /** Waits until `done` holds or `limitMs` passed; true when it held. */
  private async until(done: () => boolean, limitMs: number): Promise<boolean> {
    const deadline = Date.now() + limitMs;
    while (!done()) {
      if (Date.now() >= deadline) return false;
      await sleep(DRAIN_POLL_MS);
    }
    return true;
  }
}
