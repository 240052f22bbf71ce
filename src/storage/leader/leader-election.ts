import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Client, ClientConfig } from 'pg';
import type { DataSource } from 'typeorm';
import type { Database } from '../engine/database';
import type { SqlSession } from '../engine/sql-session';

/**
 * Leader election for work exactly one replica may do (controllers). Whoever leads runs
 * `lead(lost)` until the signal aborts, then `lead` must return promptly.
 *
 * - PostgreSQL with sessions: a session-level advisory lock (`pg_try_advisory_lock`) held by a
 *   dedicated connection that is not part of the pool. PostgreSQL releases the lock when that
 *   session ends, so a crashed or partitioned leader loses it. The leader pings its session;
 *   when the ping fails or the connection reports an error, leadership is lost (`lost` aborts)
 *   and the elector campaigns again. Followers retry the lock periodically.
 * - PostgreSQL behind a pooler in transaction mode (no sessions: the lock would stay with a
 *   server connection others then use): a lease row, as kube's Lease (holder, renewed,
 *   expires, in the database's clock). The holder renews it every retry interval and stops
 *   leading once it has not renewed for the renew deadline, which is shorter than the lease:
 *   the lease outlives its leadership, so another replica can take it only after the holder
 *   stopped, whatever their clocks say (their rates must agree, as kube assumes too).
 * - Embedded PGlite: always the leader. One process owns the data directory (its lock file
 *   refuses a second server), so there is nobody to elect against.
 *
 * A replica that silently lost its advisory-lock session (a partition, not a crash: a crash
 * closes the socket and ends leadership at once) may keep leading until its next ping (a few
 * seconds) while the new leader starts; controllers run under this are idempotent and write
 * with optimistic concurrency, so the overlap is harmless. The lease has no such overlap.
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
  /** How often a follower tries to take the lock or lease (and the lease holder renews it). */
  retryIntervalMs: number;
  /** How often the leader checks its session is alive. */
  checkIntervalMs: number;
  /** A ping (or lock query) slower than this counts as a lost session. */
  queryTimeoutMs: number;
  /** Lease: how long a lease lasts after its last renewal (kube's leaseDuration). */
  leaseDurationMs: number;
  /** Lease: the holder stops leading when it has not renewed for this long (kube's renewDeadline). */
  renewDeadlineMs: number;
}

/** kube-controller-manager's: a 15 s lease, renewed within 10 s, tried every 2 s. */
const DEFAULT_TIMINGS: LeaderElectionTimings = { retryIntervalMs: 2000, checkIntervalMs: 2000, queryTimeoutMs: 5000, leaseDurationMs: 15_000, renewDeadlineMs: 10_000 };

/** How leaders are elected on this database: 'lease' where session advisory locks do not hold. */
export function electionMethod(db: Database): 'single-process' | 'advisory-lock' | 'lease' {
  if (db.engine === 'pglite') return 'single-process';
  return db.sessionFeatures.advisoryLocks ? 'advisory-lock' : 'lease';
}

/** The elector for `name` on the engine the database runs on. */
export function createLeaderElector(db: Database, name: string, timings: Partial<LeaderElectionTimings> = {}, method = electionMethod(db)): LeaderElector {
  const settings = { ...DEFAULT_TIMINGS, ...timings };
  if (method === 'single-process') return new SingleProcessElector();
  const qualified = lockNameOf(db.dataSource, name);
  if (method === 'lease') return new LeaseElector(db.sql, qualified, holderIdentity(), settings);
  const connections = db.connections;
  const open = connections
    ? (config: ClientConfig) => connections.connect(config)
    : async (config: ClientConfig) => {
        const client = new Client({ ...sessionConfigOf(db.dataSource), ...config });
        await client.connect();
        return client;
      };
  return new AdvisoryLockElector(open, qualified, settings);
}

/** Connection settings of the pool, for one extra session of our own (a database opened without connections). */
function sessionConfigOf(dataSource: DataSource): ClientConfig {
  const options = dataSource.options as { url?: string; extra?: { options?: string } };
  return { connectionString: options.url, options: options.extra?.options };
}

/** Locks are per database; the schema keeps servers on different schemas of one database apart. */
function lockNameOf(dataSource: DataSource, name: string): string {
  const schema = (dataSource.options as { schema?: string }).schema ?? 'public';
  return `platform-authz leader ${schema} ${name}`;
}

/** Who holds a lease: this host and process, and a random part (kube's `<hostname>_<uuid>`). */
function holderIdentity(): string {
  return `${hostname()}_${process.pid}_${randomUUID()}`;
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

/**
 * What the two electors on PostgreSQL share: a campaign that tries to take (or keep) the lock
 * or lease every retry interval until stopped, leading while it holds.
 */
abstract class CampaignElector implements LeaderElector {
  protected readonly logger = new Logger('LeaderElection');
  protected readonly stopping = new AbortController();
  private campaign: Promise<void> | null = null;
  private leadership: AbortController | null = null;

  constructor(
    /** The lock's or lease's name. */
    protected readonly name: string,
    protected readonly timings: LeaderElectionTimings,
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

  /** One try: says whether it leads (`firstAttempt`), then leads while it holds; resolves once it no longer does. */
  protected abstract attempt(lead: LeadFunction, firstAttempt: (leading: boolean) => void): Promise<void>;

  private async run(lead: LeadFunction, firstAttempt: (leading: boolean) => void): Promise<void> {
    while (!this.stopping.signal.aborted) {
      await this.attempt(lead, firstAttempt);
      await abortableSleep(this.timings.retryIntervalMs, this.stopping.signal);
    }
    firstAttempt(false);
  }

  /**
   * Runs `lead` until leadership ends: the elector stops, `broken` aborts, or `hold` (which
   * resolves once the leadership signal has aborted) ends it. Resolves when the work has stopped.
   */
  protected async leadWhile(lead: LeadFunction, hold: (leadership: AbortController) => Promise<void>, broken?: AbortSignal): Promise<void> {
    const leadership = new AbortController();
    this.leadership = leadership;
    const endLeadership = () => leadership.abort();
    const ends = [this.stopping.signal, ...(broken ? [broken] : [])];
    for (const signal of ends) signal.addEventListener('abort', endLeadership);
    // An abort event that fired before the listeners were added would never reach them.
    if (ends.some((signal) => signal.aborted)) endLeadership();
    this.logger.log(`became leader for ${this.name}`);
    const leading = lead(leadership.signal).catch((err) => {
      this.logger.error(`leader work for ${this.name} failed: ${(err as Error).message}`);
    });
    await hold(leadership);
    for (const signal of ends) signal.removeEventListener('abort', endLeadership);
    if (!this.stopping.signal.aborted) this.logger.warn(`lost leadership for ${this.name}`);
    await leading;
    this.leadership = null;
  }
}

class AdvisoryLockElector extends CampaignElector {
  constructor(
    private readonly open: (config: ClientConfig) => Promise<Client>,
    lockName: string,
    timings: LeaderElectionTimings,
  ) {
    super(lockName, timings);
  }

  protected async attempt(lead: LeadFunction, firstAttempt: (leading: boolean) => void): Promise<void> {
    // A broken session emits 'error'; without a listener that would crash the process.
    const broken = new AbortController();
    let session: Client | null = null;
    let acquired = false;
    try {
      session = await this.open({ query_timeout: this.timings.queryTimeoutMs, connectionTimeoutMillis: this.timings.queryTimeoutMs, keepAlive: true });
      session.on('error', () => broken.abort());
      session.on('end', () => broken.abort());
      const res = await session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [this.name]);
      acquired = res.rows[0]?.locked === true;
    } catch (err) {
      this.logger.warn(`leader election for ${this.name}: ${(err as Error).message}`);
    }
    // A stop that came while the lock was being taken: the lock is given back unused.
    if (session && acquired && !this.stopping.signal.aborted) {
      firstAttempt(true);
      await this.leadWhileHeld(session, broken.signal, lead);
    } else {
      firstAttempt(false);
    }
    if (session) await this.release(session, acquired && !broken.signal.aborted);
  }

  /** Runs `lead` until the session breaks, a ping fails, or the elector stops. */
  private leadWhileHeld(session: Client, broken: AbortSignal, lead: LeadFunction): Promise<void> {
    return this.leadWhile(
      lead,
      async (leadership) => {
        while (!leadership.signal.aborted) {
          await abortableSleep(this.timings.checkIntervalMs, leadership.signal);
          if (leadership.signal.aborted) break;
          try {
            await session.query('SELECT 1');
          } catch {
            leadership.abort();
          }
        }
      },
      broken,
    );
  }

  /** Unlocking first lets a waiting replica take over at its next attempt rather than after a timeout. */
  private async release(session: Client, unlock: boolean): Promise<void> {
    if (unlock) await session.query('SELECT pg_advisory_unlock(hashtext($1))', [this.name]).catch(() => undefined);
    // A session the server already terminated may never report its end: do not wait forever.
    const ended = session.end().catch(() => undefined);
    const gaveUp = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), this.timings.queryTimeoutMs).unref());
    if ((await Promise.race([ended, gaveUp])) === 'timeout') {
      (session as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }
  }
}

/** Takes the lease when it is free or expired, renews it when held: answers whether `$2` holds it now. */
const ACQUIRE_LEASE = `INSERT INTO leader_lease AS l (name, holder, acquired_at, renewed_at, expires_at, transitions)
  VALUES ($1, $2, now(), now(), now() + $3::bigint * interval '1 millisecond', 0)
  ON CONFLICT (name) DO UPDATE SET
    holder = excluded.holder,
    acquired_at = CASE WHEN l.holder = excluded.holder THEN l.acquired_at ELSE excluded.acquired_at END,
    renewed_at = excluded.renewed_at,
    expires_at = excluded.expires_at,
    transitions = l.transitions + CASE WHEN l.holder = excluded.holder THEN 0 ELSE 1 END
  WHERE l.holder = excluded.holder OR l.expires_at <= now()
  RETURNING holder`;
/** A stopping holder lets its lease expire now, so another replica takes over at its next try (kube's ReleaseOnCancel). */
const RELEASE_LEASE = `UPDATE leader_lease SET expires_at = now() WHERE name = $1 AND holder = $2`;

/** Rejects after `ms`: a statement that hangs (a server gone without a word) must not hold the elector. */
function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** A lease row in the database, for connections without sessions (see the top of this file). */
class LeaseElector extends CampaignElector {
  private failing = false;

  constructor(
    private readonly sql: SqlSession,
    name: string,
    private readonly holder: string,
    timings: LeaderElectionTimings,
  ) {
    super(name, timings);
    if (timings.renewDeadlineMs >= timings.leaseDurationMs) throw new Error('the renew deadline must be shorter than the lease');
  }

  protected async attempt(lead: LeadFunction, firstAttempt: (leading: boolean) => void): Promise<void> {
    const askedAt = performance.now();
    const held = await this.tryAcquire();
    if (held && !this.stopping.signal.aborted) {
      firstAttempt(true);
      await this.leadWhileRenewed(askedAt, lead);
    } else {
      firstAttempt(false);
    }
  }

  /** Whether this elector holds the lease after one attempt to take or renew it (false when the store did not answer). */
  private async tryAcquire(): Promise<boolean> {
    try {
      const rows = await withinMs(this.sql.query<{ holder: string }>(ACQUIRE_LEASE, [this.name, this.holder, this.timings.leaseDurationMs]), this.timings.queryTimeoutMs);
      if (this.failing) this.logger.log(`leader election for ${this.name}: the lease can be read again`);
      this.failing = false;
      return rows.length === 1;
    } catch (err) {
      // Logged once per outage.
      if (!this.failing) this.logger.warn(`leader election for ${this.name}: ${(err as Error).message}`);
      this.failing = true;
      return false;
    }
  }

  /**
   * Runs `lead` while the lease is renewed: every retry interval, and at the latest within the
   * renew deadline counted from when the last successful renewal was asked (before the database
   * set the expiry from its own clock, so the expiry is later than this deadline).
   */
  private async leadWhileRenewed(askedAt: number, lead: LeadFunction): Promise<void> {
    await this.leadWhile(lead, async (leadership) => {
      const endLeadership = () => leadership.abort();
      let deadline: NodeJS.Timeout | undefined;
      const renewedAt = (at: number) => {
        clearTimeout(deadline);
        deadline = setTimeout(endLeadership, Math.max(0, at + this.timings.renewDeadlineMs - performance.now()));
        deadline.unref();
      };
      renewedAt(askedAt);
      while (!leadership.signal.aborted) {
        await abortableSleep(this.timings.retryIntervalMs, leadership.signal);
        if (leadership.signal.aborted) break;
        const asked = performance.now();
        const held = await this.tryAcquire();
        if (leadership.signal.aborted) break;
        if (held) renewedAt(asked);
        // Someone else holds it: it expired before this renewal (this elector stopped leading at its deadline already).
        else if (!this.failing) endLeadership();
      }
      clearTimeout(deadline);
    });
    // Only once the work has stopped may another replica start it.
    if (this.stopping.signal.aborted) await withinMs(this.sql.query(RELEASE_LEASE, [this.name, this.holder]), this.timings.queryTimeoutMs).catch(() => undefined);
  }
}
