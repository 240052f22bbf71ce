import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * binding_usage: per RoleBinding or ClusterRoleBinding (by uid, so a binding deleted and
 * made again starts at 0) the allows it granted and when it last did. Every replica adds
 * what it counted since its last flush (grants summed, the latest time kept), so the row is
 * the total of all replicas. Rows of deleted bindings are removed by the replicas that see
 * the deletion; a list shows only bindings that exist.
 */
export class BindingUsage1764000000000 implements MigrationInterface {
  name = 'BindingUsage1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE binding_usage (
      uid text PRIMARY KEY,
      grants bigint NOT NULL,
      last_granted timestamptz NOT NULL
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE binding_usage`);
  }
}
