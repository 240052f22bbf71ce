import { Logger } from '@nestjs/common';
import { createLeaderElector, LeaderElector } from '../../../src/storage/leader/leader-election';
import { SqlSession } from '../../../src/storage/engine/sql-session';
import { engineName, openTestDatabase, TestDatabase, testEngines } from '../../support/db';
import { eventually } from '../../support/eventually';

/** Short, so a test takes seconds; the margin between the renew deadline and the lease is what keeps leaders apart. */
const TIMINGS = { retryIntervalMs: 50, checkIntervalMs: 50, queryTimeoutMs: 1000, leaseDurationMs: 1500, renewDeadlineMs: 500 };

/** A session whose statements fail on demand, as one cut off from its database; counts those answered. */
function cuttable(sql: SqlSession): { sql: SqlSession; cut: boolean; answered: number } {
  const state = { cut: false, sql: sql, answered: 0 };
  const refuse = () => Promise.reject(Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' }));
  state.sql = {
    query: async <T>(text: string, params?: unknown[]) => {
      if (state.cut) return refuse();
      const rows = await sql.query<T>(text, params);
      state.answered++;
      return rows;
    },
    transaction: (fn) => (state.cut ? refuse() : sql.transaction(fn)),
  };
  return state;
}

/**
 * Leader election with a lease row, as behind a pooler in transaction mode (see
 * leader-election.ts), on each engine. The order in which electors start and stop leading is
 * recorded: a leader must have stopped before the next one starts.
 */
describe.each(testEngines())('leader election with a lease row on %s', (engine) => {
  let t: TestDatabase;
  const electors: LeaderElector[] = [];
  const events: string[] = [];

  beforeAll(async () => {
    Logger.overrideLogger(['error']);
    t = await openTestDatabase(engine);
  });
  afterAll(async () => {
    for (const e of electors) await e.stop();
    await t?.destroy();
    Logger.overrideLogger(['log', 'error', 'warn']);
  });

  /** A lead function that records when it starts and when it has stopped. */
  const leadAs = (i: number) => async (lost: AbortSignal) => {
    events.push(`start ${i}`);
    await new Promise((resolve) => lost.addEventListener('abort', resolve, { once: true }));
    events.push(`stop ${i}`);
  };

  /** Leaderships never overlap: every start follows the stop of the one before. */
  function expectOneAtATime(): void {
    let leading: string | null = null;
    for (const event of events) {
      const [what, who] = event.split(' ');
      if (what === 'start') {
        expect([event, leading]).toEqual([event, null]);
        leading = who;
      } else {
        expect(who).toBe(leading);
        leading = null;
      }
    }
  }

  it(`lets one lead, hands over on stop, and when a leader cannot renew it stops before another starts (${engineName(engine)})`, async () => {
    const sessions = [0, 1, 2].map(() => cuttable(t.db.sql));
    const first = await Promise.all(
      sessions.map((session, i) => {
        const elector = createLeaderElector({ ...t.db, sql: session.sql }, 'lease-test', TIMINGS, 'lease');
        electors.push(elector);
        return elector.start(leadAs(i));
      }),
    );
    expect(first.filter(Boolean)).toHaveLength(1);
    const firstLeader = first.indexOf(true);
    expect(electors.map((e) => e.isLeader())).toEqual([0, 1, 2].map((i) => i === firstLeader));

    // A stopping leader releases its lease: another takes it at its next try, not after the lease.
    await electors[firstLeader].stop();
    await eventually(() => expect(electors.filter((e) => e.isLeader())).toHaveLength(1), 5000, 20);
    const secondLeader = electors.findIndex((e) => e.isLeader());

    // The leader is cut off from the database: it stops leading at its renew deadline, and the
    // other takes over only once the lease expired, after that.
    sessions[secondLeader].cut = true;
    await eventually(() => expect(electors[secondLeader].isLeader()).toBe(false), 5000, 20);
    const third = [0, 1, 2].find((i) => i !== firstLeader && i !== secondLeader)!;
    await eventually(() => expect(electors[third].isLeader()).toBe(true), 5000, 20);

    // Back in touch, the old leader finds the lease held and follows.
    sessions[secondLeader].cut = false;
    const answered = sessions[secondLeader].answered;
    await eventually(() => expect(sessions[secondLeader].answered).toBeGreaterThanOrEqual(answered + 3), 5000, 20);
    expect(electors.map((e) => e.isLeader())).toEqual([0, 1, 2].map((i) => i === third));
    expectOneAtATime();
    expect(events).toEqual([`start ${firstLeader}`, `stop ${firstLeader}`, `start ${secondLeader}`, `stop ${secondLeader}`, `start ${third}`]);

    const [lease] = await t.db.sql.query<{ transitions: number }>(`SELECT transitions FROM leader_lease WHERE name LIKE '%lease-test'`);
    expect(lease.transitions).toBe(2);
  }, 30_000);
});
