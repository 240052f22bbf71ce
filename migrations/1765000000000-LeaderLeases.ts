import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * - leader_lease: one row per leader election (kube's coordination Lease): who holds it, when
 *   it was taken and last renewed, and when it expires, all in the database's clock, so the
 *   replicas' clocks need not agree. Used where session advisory locks do not hold (behind a
 *   pooler in transaction mode); see src/storage/leader/leader-election.ts.
 * - write_check: one row that `/readyz`'s `storage-writable` check updates: a write that
 *   commits as the store's do (and waits for a synchronous standby as they do), so readiness
 *   passes only when a write would.
 */
export class LeaderLeases1765000000000 implements MigrationInterface {
  name = 'LeaderLeases1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE leader_lease (
      name text PRIMARY KEY,
      holder text NOT NULL,
      acquired_at timestamptz NOT NULL,
      renewed_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      transitions integer NOT NULL DEFAULT 0
    )`);
    await q.query(`CREATE TABLE write_check (
      id smallint PRIMARY KEY CHECK (id = 1),
      written_at timestamptz NOT NULL
    )`);
    await q.query(`INSERT INTO write_check (id, written_at) VALUES (1, now())`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE write_check`);
    await q.query(`DROP TABLE leader_lease`);
  }
}
