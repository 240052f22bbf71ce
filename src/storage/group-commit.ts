import { Change, LocalCommitListener } from './object-store';
import { SqlQuery, SqlSession } from './sql-session';

/** A write's work inside the transaction, once it holds its revision; answers the change it made. */
export type RevisionedWrite = (query: SqlQuery, revision: string) => Promise<Change>;

/** At most this many writes share a transaction (a bound on how long one holds the session). */
const MAX_BATCH = 128;

interface Queued {
  write: RevisionedWrite;
  resolve(change: Change): void;
  reject(err: unknown): void;
}

/** How one write of a batch ended inside the transaction. */
type Outcome = { change: Change } | { error: unknown };

/**
 * Runs writes in transactions, each write holding the next revision, and tells the commit
 * listeners (the change feed) about each: `committing` when it holds its revision,
 * `committed` after the commit, `abandoned` when it failed.
 *
 * Grouped (the embedded store, one session): writes that arrive while a transaction runs
 * wait for it and then share the next one, so one commit (and one fsync) serves them all.
 * Each runs inside its own savepoint: one that fails (conflict, already exists, a value the
 * database refuses) is rolled back to it, gives its revision back to the next, and fails
 * alone. Revisions stay dense and in commit order, as with one transaction per write.
 */
export class GroupCommit {
  private readonly queue: Queued[] = [];
  private flushing = false;

  constructor(
    private readonly sql: SqlSession,
    private readonly nextRevision: (query: SqlQuery) => Promise<string>,
    private readonly listeners: ReadonlySet<LocalCommitListener>,
    private readonly grouped: boolean,
  ) {}

  run(write: RevisionedWrite): Promise<Change> {
    if (!this.grouped) return this.alone(write);
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  /** One transaction for one write: its failure is the transaction's. */
  private async alone(write: RevisionedWrite): Promise<Change> {
    let revision: string | undefined;
    let change: Change;
    try {
      change = await this.sql.transaction(async (query) => {
        revision = await this.nextRevision(query);
        this.committing(revision);
        return write(query, revision);
      });
    } catch (err) {
      if (revision !== undefined) this.abandoned(revision);
      throw err;
    }
    this.committed(change);
    return change;
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

  private async together(batch: Queued[]): Promise<void> {
    const outcomes: Outcome[] = [];
    try {
      await this.sql.transaction(async (query) => {
        for (const { write } of batch) outcomes.push(await this.inSavepoint(query, write));
      });
    } catch (err) {
      // The commit (or a savepoint statement) failed: nothing of the batch is known to be written.
      batch.forEach((queued, i) => {
        const outcome = outcomes[i];
        if (outcome && 'change' in outcome) this.abandoned(outcome.change.revision);
        queued.reject(outcome && 'error' in outcome ? outcome.error : err);
      });
      return;
    }
    batch.forEach((queued, i) => {
      const outcome = outcomes[i];
      if ('change' in outcome) {
        this.committed(outcome.change);
        queued.resolve(outcome.change);
      } else queued.reject(outcome.error);
    });
  }

  /** One write of a batch; its failure undoes only its own statements (and its revision). */
  private async inSavepoint(query: SqlQuery, write: RevisionedWrite): Promise<Outcome> {
    await query('SAVEPOINT group_write');
    let revision: string | undefined;
    try {
      revision = await this.nextRevision(query);
      this.committing(revision);
      const change = await write(query, revision);
      await query('RELEASE SAVEPOINT group_write');
      return { change };
    } catch (error) {
      // Not committed: the next write of the batch gets this revision.
      if (revision !== undefined) this.abandoned(revision);
      await query('ROLLBACK TO SAVEPOINT group_write');
      await query('RELEASE SAVEPOINT group_write');
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
