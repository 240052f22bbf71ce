import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * kv_log.author: who made each change (`{"username":..., "groups":[...]}` as JSON text, null
 * when the write named no one), committed with the row, so access history can name the author
 * of any revision, whichever replica took the write and whoever leads when it is read.
 */
export class ChangeAuthors1767000000000 implements MigrationInterface {
  name = 'ChangeAuthors1767000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE kv_log ADD COLUMN author text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE kv_log DROP COLUMN author`);
  }
}
