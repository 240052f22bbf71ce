import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { rfc3339 } from './usage-kinds';

/** One server process that records usage, as the usage_recorders table holds it (epoch milliseconds). */
export interface UsageRecorder {
  replica: string;
  recording: boolean;
  flushIntervalMs: number;
  startedAt: number;
  /** Its last successful flush: what it recorded up to then is in the tables. */
  flushedAt: number;
  /** When it shut down cleanly, having flushed everything; absent while it runs or when it was killed. */
  stoppedAt?: number;
}

/** This process's name in usage_recorders: the host and pid say which server it was; the suffix keeps restarts apart. */
export function replicaName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * How late a replica's flush may be before its records count as missing: two of its
 * intervals (one may be under way) and some time for a slow write.
 */
const FLUSH_GRACE_MS = 5000;
export const overdueAfter = (r: UsageRecorder) => 2 * r.flushIntervalMs + FLUSH_GRACE_MS;

/**
 * Why an answer about [from, now] may miss recorded use, in words (empty: nothing is
 * missing). Usage is complete for a window when every replica that decided requests in it
 * recorded them and flushed them:
 * - the window starts before the first replica recorded: earlier use is not known;
 * - a replica (other than the reader, whose pending records a read includes) has not flushed
 *   within twice its interval and did not shut down cleanly: it was killed, or cannot write,
 *   and what it recorded after its last flush is not in the tables;
 * - a replica ran with recording off during the window.
 * A time when no replica ran is no gap: nothing was decided then.
 */
export function missingUse(recorders: readonly UsageRecorder[], window: { from: number; now: number; self: string }): string[] {
  const { from, now, self } = window;
  const problems: string[] = [];
  const recording = recorders.filter((r) => r.recording);
  const firstStart = Math.min(...recording.map((r) => r.startedAt));
  if (!recording.length || firstStart > from) {
    const since = recording.length ? `usage is recorded since ${rfc3339(firstStart)}` : 'no replica has recorded usage';
    problems.push(`${since}, after the window's start ${rfc3339(from)}: earlier use is not known`);
  }
  for (const r of [...recorders].sort((a, b) => a.startedAt - b.startedAt)) {
    // The answering replica's own pending records are in the answer (unless it does not record).
    if (r.replica === self && r.recording) continue;
    const end = r.stoppedAt ?? (now - r.flushedAt > overdueAfter(r) ? r.flushedAt : now);
    if (end < from) continue;
    if (!r.recording) {
      problems.push(`replica ${r.replica} ran with usage recording off from ${rfc3339(Math.max(r.startedAt, from))} to ${r.stoppedAt !== undefined ? rfc3339(r.stoppedAt) : rfc3339(end)}`);
    } else if (r.stoppedAt === undefined && now - r.flushedAt > overdueAfter(r)) {
      problems.push(`replica ${r.replica} has not flushed its usage since ${rfc3339(r.flushedAt)} and did not shut down cleanly: what it recorded after that is missing`);
    }
  }
  return problems;
}

interface RecorderRow {
  replica: string;
  recording: boolean;
  flush_interval_ms: number;
  started_at: Date | string;
  flushed_at: Date | string;
  stopped_at: Date | string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();
const ms = (t: Date | string) => new Date(t).getTime();

/** The usage_recorders table (see migrations/): the queries, nothing else. */
export class RecorderTable {
  /** At start: this replica records (or not) from now on. */
  static async register(db: Pick<EntityManager, 'query'>, r: UsageRecorder): Promise<void> {
    await db.query(
      `INSERT INTO usage_recorders (replica, recording, flush_interval_ms, started_at, flushed_at) VALUES ($1, $2, $3, $4, $4)
ON CONFLICT (replica) DO NOTHING`,
      [r.replica, r.recording, r.flushIntervalMs, iso(r.startedAt)],
    );
  }

  /**
   * In a flush's transaction: everything up to `flushedAt` is written (and at a clean
   * shutdown, nothing more will be); rows that ended before `cutoff` go.
   */
  static async flushed(db: Pick<EntityManager, 'query'>, r: UsageRecorder, cutoff: number): Promise<void> {
    await db.query(
      `INSERT INTO usage_recorders AS u (replica, recording, flush_interval_ms, started_at, flushed_at, stopped_at) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (replica) DO UPDATE SET flushed_at = EXCLUDED.flushed_at, stopped_at = EXCLUDED.stopped_at`,
      [r.replica, r.recording, r.flushIntervalMs, iso(r.startedAt), iso(r.flushedAt), r.stoppedAt !== undefined ? iso(r.stoppedAt) : null],
    );
    await db.query('DELETE FROM usage_recorders WHERE COALESCE(stopped_at, flushed_at) < $1::timestamptz', [iso(cutoff)]);
  }

  static async all(db: Pick<EntityManager, 'query'>): Promise<UsageRecorder[]> {
    const rows: RecorderRow[] = await db.query('SELECT * FROM usage_recorders');
    return rows.map((row) => ({
      replica: row.replica,
      recording: row.recording,
      flushIntervalMs: Number(row.flush_interval_ms),
      startedAt: ms(row.started_at),
      flushedAt: ms(row.flushed_at),
      ...(row.stopped_at ? { stoppedAt: ms(row.stopped_at) } : {}),
    }));
  }
}
