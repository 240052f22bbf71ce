import { Logger } from '@nestjs/common';
import { Client, ClientConfig } from 'pg';
import type { DataSource } from 'typeorm';
import type { Database } from './database';

/**
 * Leader election for work exactly one replica may do (controllers). Whoever leads runs
 * `lead(lost)` until the signal aborts, then `lead` must return promptly.
 *
 * - PostgreSQL: a session-level advisory lock (`pg_try_advisory_lock`) held by a dedicated
 *   connection that is not part of the pool. PostgreSQL releases the lock when that session
 *   ends, so a crashed or partitioned leader loses it. The leader pings its session; when the
 *   ping fails or the connection reports an error, leadership is lost (`lost` aborts) and the
 *   elector campaigns again. Followers retry the lock periodically.
 * - Embedded PGlite: always the leader. One process owns the data directory (its lock file
 *   refuses a second server), so there is nobody to elect against.
 *
 * A replica that silently lost its session may keep leading until its next ping (a few
 * seconds) while the new leader starts; controllers run under this are idempotent and
 * write with optimistic concurrency, so the overlap is harmless.
 */
export type LeadFunction = (lost: AbortSignal) => Promise<void>;

export interface LeaderElector {
  /** Starts campaigning; resolves after the first attempt with whether this process leads. */
  start(lead: LeadFunction): Promise<boolean>;
  /** Whether this process leads right now. */
  isLeader(): boolean;
  /** Stops leading (aborting `lead` and waiting for it) and stops campaigning. */
  stop(): Promise<void>;
}

export interface LeaderElectionTimings {
  /** How often a follower tries to take the lock. */
  retryIntervalMs: number;
  /** How often the leader checks its session is alive. */
  checkIntervalMs: number;
  /** A ping (or lock query) slower than this counts as a lost session. */
  queryTimeoutMs: number;
}

const DEFAULT_TIMINGS: LeaderElectionTimings = { retryIntervalMs: 2000, checkIntervalMs: 2000, queryTimeoutMs: 5000 };

/** The elector for `name` on the engine the database runs on. */
export function createLeaderElector(db: Database, name: string, timings: Partial<LeaderElectionTimings> = {}): LeaderElector {
  if (db.engine === 'pglite') return new SingleProcessElector();
  return new AdvisoryLockElector(sessionConfigOf(db.dataSource), lockNameOf(db.dataSource, name), { ...DEFAULT_TIMINGS, ...timings });
}

/** Connection settings of the pool, for one extra session of our own. */
function sessionConfigOf(dataSource: DataSource): ClientConfig {
  const options = dataSource.options as { url?: string; extra?: { options?: string } };
  return { connectionString: options.url, options: options.extra?.options, keepAlive: true };
}

/** Locks are per database; the schema keeps servers on different schemas of one database apart. */
function lockNameOf(dataSource: DataSource, name: string): string {
  const schema = (dataSource.options as { schema?: string }).schema ?? 'public';
  return `platform-authz leader ${schema} ${name}`;
}

/** Embedded engine: this process is the only one, so it leads from start to stop. */
class SingleProcessElector implements LeaderElector {
  private readonly abort = new AbortController();
  private leading: Promise<void> | null = null;

  async start(lead: LeadFunction): Promise<boolean> {
    this.leading = lead(this.abort.signal);
    return true;
  }

  isLeader(): boolean {
    return this.leading !== null && !this.abort.signal.aborted;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.leading?.catch(() => undefined);
  }
}

/** Waits `ms`, or less when the signal aborts; the timer never outlives a stop. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

class AdvisoryLockElector implements LeaderElector {
  private readonly logger = new Logger('LeaderElection');
  private readonly stopping = new AbortController();
  private campaign: Promise<void> | null = null;
  private leadership: AbortController | null = null;

  constructor(
    private readonly config: ClientConfig,
    private readonly lockName: string,
    private readonly timings: LeaderElectionTimings,
  ) {}

  start(lead: LeadFunction): Promise<boolean> {
    return new Promise((firstAttempt) => {
      this.campaign = this.run(lead, firstAttempt);
    });
  }

  isLeader(): boolean {
    return this.leadership !== null && !this.leadership.signal.aborted;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.campaign;
  }

  private async run(lead: LeadFunction, firstAttempt: (leading: boolean) => void): Promise<void> {
    while (!this.stopping.signal.aborted) {
      const session = new Client({ ...this.config, query_timeout: this.timings.queryTimeoutMs, connectionTimeoutMillis: this.timings.queryTimeoutMs });
      // A broken session emits 'error'; without a listener that would crash the process.
      const broken = new AbortController();
      session.on('error', () => broken.abort());
      session.on('end', () => broken.abort());
      let acquired = false;
      try {
        await session.connect();
        const res = await session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [this.lockName]);
        acquired = res.rows[0]?.locked === true;
      } catch (err) {
        this.logger.warn(`leader election for ${this.lockName}: ${(err as Error).message}`);
      }
      // A stop that came while the lock was being taken: the lock is given back unused.
      if (acquired && !this.stopping.signal.aborted) {
        firstAttempt(true);
        await this.leadWhileHeld(session, broken.signal, lead);
      } else {
        firstAttempt(false);
      }
      await this.release(session, acquired && !broken.signal.aborted);
      await abortableSleep(this.timings.retryIntervalMs, this.stopping.signal);
    }
    firstAttempt(false);
  }

  /** Runs `lead` until the session breaks, a ping fails, or the elector stops. */
  private async leadWhileHeld(session: Client, broken: AbortSignal, lead: LeadFunction): Promise<void> {
    const leadership = new AbortController();
    this.leadership = leadership;
    const endLeadership = () => leadership.abort();
    broken.addEventListener('abort', endLeadership);
    this.stopping.signal.addEventListener('abort', endLeadership);
    // An abort event that fired before the listeners were added would never reach them.
    if (broken.aborted || this.stopping.signal.aborted) endLeadership();
    this.logger.log(`became leader for ${this.lockName}`);
    const leading = lead(leadership.signal).catch((err) => {
      this.logger.error(`leader work for ${this.lockName} failed: ${(err as Error).message}`);
    });
    while (!leadership.signal.aborted) {
      await abortableSleep(this.timings.checkIntervalMs, leadership.signal);
      if (leadership.signal.aborted) break;
      try {
        await session.query('SELECT 1');
      } catch {
        leadership.abort();
      }
    }
    if (!this.stopping.signal.aborted) this.logger.warn(`lost leadership for ${this.lockName}`);
    broken.removeEventListener('abort', endLeadership);
    this.stopping.signal.removeEventListener('abort', endLeadership);
    await leading;
    this.leadership = null;
  }

  /** Unlocking first lets a waiting replica take over at its next attempt rather than after a timeout. */
  private async release(session: Client, unlock: boolean): Promise<void> {
    if (unlock) await session.query('SELECT pg_advisory_unlock(hashtext($1))', [this.lockName]).catch(() => undefined);
    // A session the server already terminated may never report its end: do not wait forever.
    const ended = session.end().catch(() => undefined);
    const gaveUp = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), this.timings.queryTimeoutMs).unref());
    if ((await Promise.race([ended, gaveUp])) === 'timeout') {
      (session as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }
  }
}
