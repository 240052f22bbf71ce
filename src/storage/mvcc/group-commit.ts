import { Change, LocalCommitListener } from './object-store';
import { SqlQuery, SqlSession } from '../engine/sql-session';
import { storageFailureOf } from '../engine/storage-errors';

/**
 * A write's work inside the transaction: it takes the next revision (bumping the counter) and
 * calls `took` with it at once, then answers the change it made.
 */
export type RevisionedWrite = (query: SqlQuery, took: (revision: string) => void) => Promise<Change>;

/** A write of several objects: it takes a revision for each (calling `took` with every one), then answers their changes. */
export type RevisionedWrites = (query: SqlQuery, took: (revision: string) => void) => Promise<Change[]>;

/** At most this many writes share a transaction (a bound on how long one holds the session). */
const MAX_BATCH = 128;

interface Queued {
  write: RevisionedWrites;
  resolve(changes: Change[]): void;
  reject(err: unknown): void;
}

/** How one write of a batch ended inside the transaction; `refused`: the database failed it (the transaction is aborted). */
type Outcome = { changes: Change[] } | { error: unknown; refused?: true };

/** Undoes a failed write's counter bumps (it wrote nothing else). */
const GIVE_BACK_REVISIONS = `UPDATE kv_revision SET revision = revision - $1 WHERE id = 1`;

/**
 * Runs writes in transactions, each write holding the next revision, and tells the commit
 * listeners (the change feed) about each: `committing` when it holds its revision,
 * `committed` after the commit, `abandoned` when it failed.
 *
 * Grouped: writes that arrive while a transaction runs wait for it and then share the next
 * one, so one commit (and one fsync) serves them all.
 * One that fails (conflict, already exists, a value the database refuses) fails alone and
 * gives its revision back. Revisions stay dense and in commit order, as with one
 * transaction per write.
 *
 * A write's function must change nothing when it throws on its own (only the database's
 * errors may come after its statements), so giving back the revision undoes it.
 */
export class GroupCommit {
  private readonly queue: Queued[] = [];
  private flushing = false;

  constructor(
    private readonly sql: SqlSession,
    private readonly listeners: ReadonlySet<LocalCommitListener>,
    private readonly grouped: boolean,
  ) {}

  async run(write: RevisionedWrite): Promise<Change> {
    const [change] = await this.runMany(async (query, took) => [await write(query, took)]);
    return change;
  }

  /** A write of several objects in one transaction (with others, grouped), a revision each. */
  runMany(write: RevisionedWrites): Promise<Change[]> {
    if (!this.grouped) return this.alone(write);
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  /** One transaction for one write: its failure is the transaction's. */
  private async alone(write: RevisionedWrites): Promise<Change[]> {
    const revisions: string[] = [];
    let changes: Change[];
    try {
      changes = await this.sql.transaction((query) =>
        write(query, (taken) => {
          revisions.push(taken);
          this.committing(taken);
        }),
      );
    } catch (err) {
      for (const revision of revisions) this.abandoned(revision);
      throw err;
    }
    for (const change of changes) this.committed(change);
    return changes;
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        if (batch.length === 1) await this.alone(batch[0].write).then(batch[0].resolve, batch[0].reject);
        else await this.together(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * One transaction for several writes. A write that fails without the database failing
   * (the key exists, a stale precondition: it changed nothing) gives its revision back and
   * fails alone. One the database refused aborts the transaction: it fails, and the others
   * run again in a new one (rare, so no savepoint is paid on every write).
   */
  private async together(batch: Queued[]): Promise<void> {
    let pending = batch;
    while (pending.length > 0) {
      const outcomes: Outcome[] = [];
      let refused = -1;
      try {
        await this.sql.transaction(async (query) => {
          for (const { write } of pending) {
            const outcome = await this.attempt(query, write);
            outcomes.push(outcome);
            if ('refused' in outcome) {
              refused = outcomes.length - 1;
              throw outcome.error;
            }
          }
        });
      } catch (err) {
        // Nothing of this transaction was written.
        for (const outcome of outcomes) if ('changes' in outcome) for (const change of outcome.changes) this.abandoned(change.revision);
        if (refused < 0) {
          // The commit failed: every write of the batch fails.
          pending.forEach((queued, i) => queued.reject(outcomes[i] && 'error' in outcomes[i] ? (outcomes[i] as { error: unknown }).error : err));
          return;
        }
        const refusal = (outcomes[refused] as { error: unknown }).error;
        if (storageFailureOf(refusal)) {
          // The database is away or out of space, not refusing this write's value: the others
          // would fail the same way one transaction after another.
          pending.forEach((queued, i) => {
            const outcome = outcomes[i];
            queued.reject(outcome && 'error' in outcome ? outcome.error : refusal);
          });
          return;
        }
        pending[refused].reject(outcomes[refused] && (outcomes[refused] as { error: unknown }).error);
        pending = pending.filter((_, i) => i !== refused);
        continue;
      }
      pending.forEach((queued, i) => {
        const outcome = outcomes[i];
        if ('changes' in outcome) {
          for (const change of outcome.changes) this.committed(change);
          queued.resolve(outcome.changes);
        } else queued.reject(outcome.error);
      });
      return;
    }
  }

  /** One write of a batch: its change, its own failure (revision given back), or the database's refusal. */
  private async attempt(query: SqlQuery, write: RevisionedWrites): Promise<Outcome> {
    const revisions: string[] = [];
    try {
      const changes = await write(query, (taken) => {
        revisions.push(taken);
        this.committing(taken);
      });
      return { changes };
    } catch (error) {
      if (revisions.length === 0) return { error, refused: true };
      for (const revision of revisions) this.abandoned(revision);
      try {
        // The counter's row is this transaction's: the next write gets the same numbers.
        await query(GIVE_BACK_REVISIONS, [revisions.length]);
      } catch {
        return { error, refused: true };
      }
      return { error };
    }
  }

  private committing(revision: string): void {
    for (const listener of this.listeners) listener.committing(revision);
  }

  private committed(change: Change): void {
    for (const listener of this.listeners) listener.committed(change);
  }

  private abandoned(revision: string): void {
    for (const listener of this.listeners) listener.abandoned(revision);
  }
}
