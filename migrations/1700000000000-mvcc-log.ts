import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The MVCC log: a single revision counter (its row lock serialises writers, so commit
 * order equals revision order), every change as a row of kv_log, the newest state per key
 * in kv_current, the compaction mark, and shared secrets (continue-token key).
 */
export class MvccLog1700000000000 implements MigrationInterface {
  name = 'MvccLog1700000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE kv_revision (id integer PRIMARY KEY CHECK (id = 1), revision bigint NOT NULL)`);
    await q.query(`INSERT INTO kv_revision (id, revision) VALUES (1, 0)`);
    await q.query(`
      CREATE TABLE kv_log (
        revision bigint PRIMARY KEY,
        resource text NOT NULL,
        namespace text NOT NULL,
        name text NOT NULL,
        op smallint NOT NULL CHECK (op IN (1, 2, 3)),
        uid text,
        object jsonb NOT NULL,
        prev_revision bigint,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX kv_log_key ON kv_log (resource, namespace, name, revision DESC)`);
    await q.query(`CREATE INDEX kv_log_created ON kv_log (created_at)`);
    await q.query(`
      CREATE TABLE kv_current (
        resource text NOT NULL,
        namespace text NOT NULL,
        name text NOT NULL,
        revision bigint NOT NULL,
        uid text,
        object jsonb NOT NULL,
        PRIMARY KEY (resource, namespace, name)
      )`);
    await q.query(`CREATE TABLE kv_meta (id integer PRIMARY KEY CHECK (id = 1), compacted_revision bigint NOT NULL)`);
    await q.query(`INSERT INTO kv_meta (id, compacted_revision) VALUES (1, 0)`);
    await q.query(`CREATE TABLE kv_secret (name text PRIMARY KEY, value text NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['kv_secret', 'kv_meta', 'kv_current', 'kv_log', 'kv_revision']) await q.query(`DROP TABLE ${table}`);
  }
}
