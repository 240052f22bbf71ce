import { ensureTemplate } from './db-template';

/** Once per jest run (e2e project): the migrated embedded-database template tests start from. */
export default async function globalSetup(): Promise<void> {
  await ensureTemplate();
}
