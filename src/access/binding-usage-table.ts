import { DataSource } from 'typeorm';
import { PendingUsage } from '../authorization/binding-usage-recorder';

/** A binding's usage as the table holds it: every replica's flushed counts summed. */
export interface StoredUsage {
  grants: number;
  /** Epoch milliseconds. */
  lastGranted: number;
}

/**
 * One flush as one statement: the rows of deleted bindings go, and each counted binding's
 * grants are added to its row (made if missing) and its last time raised, so replicas
 * flushing at once sum instead of overwriting. Arrays keep it one statement at any size.
 */
const FLUSH = `WITH gone AS (DELETE FROM binding_usage WHERE uid = ANY($4::text[]))
INSERT INTO binding_usage AS u (uid, grants, last_granted)
SELECT t.uid, t.grants, t.last_granted FROM unnest($1::text[], $2::bigint[], $3::timestamptz[]) AS t(uid, grants, last_granted)
WHERE NOT (t.uid = ANY($4::text[]))
ON CONFLICT (uid) DO UPDATE SET grants = u.grants + EXCLUDED.grants, last_granted = GREATEST(u.last_granted, EXCLUDED.last_granted)`;

/** The binding_usage table (see migrations/): the queries, nothing else. */
export class BindingUsageTable {
  constructor(private readonly dataSource: DataSource) {}

  /** Adds the counts and removes the deleted bindings' rows, in one statement. */
  async flush(counts: ReadonlyMap<string, PendingUsage>, deleted: readonly string[]): Promise<void> {
    const uids: string[] = [];
    const grants: string[] = [];
    const times: string[] = [];
    for (const [uid, usage] of counts) {
      uids.push(uid);
      grants.push(String(usage.grants));
      times.push(new Date(usage.lastGranted).toISOString());
    }
    await this.dataSource.query(FLUSH, [uids, grants, times, [...deleted]]);
  }

  /**
   * Removes the rows of bindings that no longer exist (deleted while no replica ran to see
   * it), but only rows not written for `quietSeconds`: a binding made since the caller's
   * list may already have a row from another replica.
   */
  async sweep(existing: readonly string[], quietSeconds: number): Promise<number> {
    // A SELECT around the DELETE: the drivers answer a bare DELETE with a row count in their own shapes.
    const rows: Array<{ removed: number }> = await this.dataSource.query(
      `WITH gone AS (DELETE FROM binding_usage WHERE NOT (uid = ANY($1::text[])) AND last_granted < now() - make_interval(secs => $2) RETURNING 1)
SELECT count(*)::int AS removed FROM gone`,
      [[...existing], quietSeconds],
    );
    return Number(rows[0]?.removed ?? 0);
  }

  /** The stored usage of the bindings with these uids (absent: never flushed). */
  async read(uids: readonly string[]): Promise<Map<string, StoredUsage>> {
    const found = new Map<string, StoredUsage>();
    if (!uids.length) return found;
    const rows: Array<{ uid: string; grants: string | number; last_granted: Date | string }> = await this.dataSource.query(
      'SELECT uid, grants::text AS grants, last_granted FROM binding_usage WHERE uid = ANY($1::text[])',
      [[...uids]],
    );
    for (const row of rows) found.set(row.uid, { grants: Number(row.grants), lastGranted: new Date(row.last_granted).getTime() });
    return found;
  }
}
