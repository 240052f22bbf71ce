import { ensureTemplate } from './db-template';

/** Once per jest run: the migrated embedded-database template e2e suites start from. */
export default async function globalSetup(): Promise<void> {
  if (!process.env.DATABASE_URL) await ensureTemplate();
}
