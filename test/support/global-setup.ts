import { ensureTemplate } from './db-template';
import { reachablePostgres, REACHABLE_POSTGRES_ENV } from './postgres';

/**
 * Once per jest run (e2e project): the migrated embedded-database template tests start from,
 * and whether a PostgreSQL server answers (test files read it when they are collected, so a
 * test that needs one is reported skipped, with the reason, instead of passing without running).
 */
export default async function globalSetup(): Promise<void> {
  await ensureTemplate();
  process.env[REACHABLE_POSTGRES_ENV] = (await reachablePostgres()) ?? '';
}
