import { randomBytes } from 'node:crypto';
import type { Client } from 'pg';
import type { SqlSession } from './sql-session';

/**
 * What a PostgreSQL session keeps between statements, found out at start: behind a pooler in
 * transaction (or statement) mode, such as PgBouncer's, a client's statements run on whichever
 * server connection is free, so LISTEN registers a server connection the client no longer has
 * (its notifications reach nobody: PgBouncer lists LISTEN as unsupported there) and a session
 * advisory lock stays with a server connection that other clients then use (two "holders").
 * The server then polls the change log instead of waiting for NOTIFYs and elects leaders with a
 * lease row (src/storage/leader/leader-election.ts).
 */
export interface SessionFeatures {
  /** A NOTIFY sent from another session reached a listening one. */
  listen: boolean;
  /** A session advisory lock is held by its session alone and released by it. */
  advisoryLocks: boolean;
}

/** The embedded engine: one process, one session; both work. */
export const EMBEDDED_SESSION_FEATURES: SessionFeatures = { listen: true, advisoryLocks: true };

/** How long a probe NOTIFY may take to arrive (a round trip on a healthy server takes a millisecond or two). */
const NOTIFY_WAIT_MS = 1_500;

/**
 * Tries both with two sessions of their own (`open`) and a statement on the pool (`sql`).
 * Locks are tried only where LISTEN works: without sessions a probe lock could be left held
 * by some server connection of the pooler.
 */
export async function probeSessionFeatures(open: () => Promise<Client>, sql: SqlSession, notifyWaitMs = NOTIFY_WAIT_MS): Promise<SessionFeatures> {
  const token = randomBytes(8).toString('hex');
  const channel = `platform_session_probe_${token}`;
  const listener = await open();
  listener.on('error', () => undefined);
  try {
    const arrived = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), notifyWaitMs);
      listener.on('notification', (msg) => {
        if (msg.channel !== channel || msg.payload !== token) return;
        clearTimeout(timer);
        resolve(true);
      });
    });
    // An engine without LISTEN (CockroachDB refuses it) has no NOTIFY to wait for either.
    const sent = await listener
      .query(`LISTEN ${channel}`)
      .then(() => sql.query('SELECT pg_notify($1, $2)', [channel, token]))
      .then(
        () => true,
        () => false,
      );
    const listen = sent && (await arrived);
    await listener.query(`UNLISTEN ${channel}`).catch(() => undefined);
    if (!listen) return { listen: false, advisoryLocks: false };
    return { listen, advisoryLocks: await locksHold(listener, open, token) };
  } finally {
    await listener.end().catch(() => undefined);
  }
}

/** One session takes a lock, a second must be refused it, and the first must still hold it to release it. */
async function locksHold(holder: Client, open: () => Promise<Client>, token: string): Promise<boolean> {
  const key = `platform session probe ${token}`;
  const other = await open();
  other.on('error', () => undefined);
  try {
    const taken = await holder.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]);
    if (!taken.rows[0].ok) return false;
    const second = await other.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]);
    if (second.rows[0].ok) await other.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    const released = await holder.query<{ ok: boolean }>('SELECT pg_advisory_unlock(hashtext($1)) AS ok', [key]);
    return !second.rows[0].ok && released.rows[0].ok;
  } finally {
    await other.end().catch(() => undefined);
  }
}

/**
 * Which PostgreSQL server a statement on `sql` reached: the address it accepted the connection
 * on and its postmaster's start time (a restarted or promoted server answers differently; its
 * standby shares the system identifier, so that would not tell).
 */
export async function serverInstance(sql: SqlSession): Promise<string> {
  const [row] = await sql.query<{ instance: string }>(
    `SELECT coalesce(host(inet_server_addr()), 'local') || ':' || coalesce(inet_server_port()::text, '-') || ' started ' || pg_postmaster_start_time()::text AS instance`,
  );
  return row.instance;
}
