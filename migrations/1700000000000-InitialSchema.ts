import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The MVCC log (see src/storage/mvcc/mvcc-store.ts):
 * - kv_revision: the single revision counter. Writers bump it first in their transaction;
 *   its row lock serialises them, so commit order equals revision order.
 * - kv_log: every change, keyed by revision; a delete row holds the last state.
 * - kv_current: the newest state per key, for current reads without scanning the log.
 * - kv_meta: the compaction marks.
 * - kv_secret: small server-wide secrets (the continue-token key).
 *
 * Key columns use the "C" collation so both engines order keys bytewise, as etcd does.
 * Tables are unqualified: the search_path picks the schema (tests isolate that way).
 */
export class InitialSchema1700000000000 implements MigrationInterface {
  name = 'InitialSchema1700000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE kv_revision (
      id smallint PRIMARY KEY CHECK (id = 1),
      revision bigint NOT NULL
    )`);
    await q.query(`INSERT INTO kv_revision (id, revision) VALUES (1, 0)`);

    await q.query(`CREATE TABLE kv_log (
      revision bigint PRIMARY KEY,
      resource text COLLATE "C" NOT NULL,
      namespace text COLLATE "C" NOT NULL,
      name text COLLATE "C" NOT NULL,
      op text NOT NULL CHECK (op IN ('create', 'update', 'delete')),
      object jsonb NOT NULL,
      uid text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    // A key's history newest first: get/list at a revision (DISTINCT ON) and `previous`.
    await q.query(`CREATE INDEX kv_log_key_revision ON kv_log (resource, namespace, name, revision DESC)`);
    // Compaction finds the oldest row inside the history window.
    await q.query(`CREATE INDEX kv_log_created_at ON kv_log (created_at)`);

    await q.query(`CREATE TABLE kv_current (
      resource text COLLATE "C" NOT NULL,
      namespace text COLLATE "C" NOT NULL,
      name text COLLATE "C" NOT NULL,
      revision bigint NOT NULL,
      uid text,
      object jsonb NOT NULL,
      PRIMARY KEY (resource, namespace, name)
    )`);

    // compacted_revision: reads below it are refused; swept_revision: the log up to it has
    // been compacted (each key keeps at most its newest row there).
    await q.query(`CREATE TABLE kv_meta (
      id smallint PRIMARY KEY CHECK (id = 1),
      compacted_revision bigint NOT NULL,
      swept_revision bigint NOT NULL
    )`);
    await q.query(`INSERT INTO kv_meta (id, compacted_revision, swept_revision) VALUES (1, 0, 0)`);

    await q.query(`CREATE TABLE kv_secret (name text PRIMARY KEY, value text NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['kv_secret', 'kv_meta', 'kv_current', 'kv_log', 'kv_revision']) {
      await q.query(`DROP TABLE ${table}`);
    }
  }
}
