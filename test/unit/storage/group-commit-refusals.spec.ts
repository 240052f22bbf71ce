import { GroupCommit, RevisionedWrite } from '../../../src/storage/mvcc/group-commit';
import { Change } from '../../../src/storage/mvcc/object-store';
import { SqlQuery, SqlSession } from '../../../src/storage/engine/sql-session';

/** A session whose transactions run the writes' statements against nothing, counting them. */
function countingSession(): SqlSession & { transactions: number } {
  const query: SqlQuery = () => Promise.resolve([]);
  const session = {
    transactions: 0,
    query,
    async transaction<T>(fn: (q: SqlQuery) => Promise<T>): Promise<T> {
      session.transactions++;
      return fn(query);
    },
  };
  return session;
}

let revision = 0;
const change = (taken: string): Change => ({ type: 'ADDED', key: { resource: 'r', namespace: 'ns', name: taken }, revision: taken, object: { metadata: {} }, bytes: 0 });
const writing: RevisionedWrite = async (_query, took) => {
  const taken = String(++revision);
  took(taken);
  return change(taken);
};
/** A write the database refuses before it takes a revision (the transaction is then aborted). */
const refusedWith =
  (err: Error): RevisionedWrite =>
  () =>
    Promise.reject(err);

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('group commit, when the database refuses a write of a shared transaction', () => {
  it('fails every write of the transaction with the refusal when the database is out of space (the others would fail alike)', async () => {
    const session = countingSession();
    const commits = new GroupCommit(session, new Set(), true);
    const diskFull = pgError('53100', 'could not extend file "base/1/2": No space left on device');
    // The first runs alone; the next three arrive meanwhile and share one transaction.
    const first = commits.run(writing);
    const shared = [commits.run(writing), commits.run(refusedWith(diskFull)), commits.run(writing)].map((p) => p.then(() => 'stored', (err: unknown) => err));
    await first;
    expect(await Promise.all(shared)).toEqual([diskFull, diskFull, diskFull]);
    expect(session.transactions).toBe(2);
  });

  it('fails only the refused write when the database refused its value, and runs the others again', async () => {
    const session = countingSession();
    const commits = new GroupCommit(session, new Set(), true);
    const invalid = pgError('22P05', 'unsupported Unicode escape sequence');
    const first = commits.run(writing);
    const shared = [commits.run(writing), commits.run(refusedWith(invalid)), commits.run(writing)].map((p) => p.then(() => 'stored', (err: unknown) => err));
    await first;
    expect(await Promise.all(shared)).toEqual(['stored', invalid, 'stored']);
    expect(session.transactions).toBe(3);
  });
});
