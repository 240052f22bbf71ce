import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTemplate as buildTemplate } from '../../src/storage/engine/build-template';
import { templateKey } from '../../src/storage/engine/data-dir-template';

/**
 * The template of a migrated embedded database that new test data directories are copied from
 * (well under a second, where a first PGlite start plus migrations takes several). The server's
 * build makes the same one into dist (src/storage/engine/build-template.ts); the tests keep theirs in
 * the temporary directory, reused across runs, so that they need no build. It is keyed as the
 * build's is: by the migrations (names and contents) and the PGlite version.
 */
const MIGRATIONS = join(__dirname, '..', '..', 'migrations');

/** Where this set of migrations' template lives. */
export function templatePath(): string {
  return join(tmpdir(), `platform-authz-db-template-${templateKey(MIGRATIONS)}`);
}

/** Builds the template unless it exists; returns its path. Safe when several runs race. */
export async function ensureTemplate(): Promise<string> {
  const dir = templatePath();
  await buildTemplate({ dir, migrationsDir: MIGRATIONS });
  return dir;
}
