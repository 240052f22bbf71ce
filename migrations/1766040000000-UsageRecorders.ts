import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * usage_recorders: one row per server process that records usage, so a read knows which part
 * of a window was recorded: when it started, whether recording was on, its flush interval,
 * its last successful flush, and when it shut down cleanly (NULL while it runs, or when it
 * was killed: what it held after its last flush is lost). Rows that ended before the usage
 * retention go.
 *
 * rule_usage.username: the user a binding granted to through a Group subject (a member's own
 * use), '' when the binding names the user itself; part of the key.
 */
export class UsageRecorders1766040000000 implements MigrationInterface {
  name = 'UsageRecorders1766040000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE usage_recorders (
      replica text PRIMARY KEY,
      recording boolean NOT NULL,
      flush_interval_ms integer NOT NULL,
      started_at timestamptz NOT NULL,
      flushed_at timestamptz NOT NULL,
      stopped_at timestamptz
    )`);
    await q.query(`ALTER TABLE rule_usage ADD COLUMN username text NOT NULL DEFAULT ''`);
    await q.query(`ALTER TABLE rule_usage DROP CONSTRAINT rule_usage_pkey`);
    await q.query(`ALTER TABLE rule_usage ADD PRIMARY KEY (binding_uid, rule_hash, username, verb, api_group, resource, subresource, namespace, non_resource_url)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM rule_usage WHERE username <> ''`);
    await q.query(`ALTER TABLE rule_usage DROP CONSTRAINT rule_usage_pkey`);
    await q.query(`ALTER TABLE rule_usage DROP COLUMN username`);
    await q.query(`ALTER TABLE rule_usage ADD PRIMARY KEY (binding_uid, rule_hash, verb, api_group, resource, subresource, namespace, non_resource_url)`);
    await q.query(`DROP TABLE usage_recorders`);
  }
}
