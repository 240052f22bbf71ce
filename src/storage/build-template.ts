import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCurrentTemplate, migrationNames, pgliteVersion, templateKey, writeTemplate } from './data-dir-template';

export interface TemplateBuild {
  /** Where the template goes (a directory). */
  dir: string;
  /** The migrations' sources: a change to them (or to PGlite's version) makes a new template. */
  migrationsDir: string;
  /** Store the dump gzipped (smaller, slower to read). */
  gzip: boolean;
}

/**
 * Makes the embedded store's data-directory template unless `dir` already holds one with the
 * current key: initdb and the migrations in a scratch directory, then its dump. Returns
 * whether it built one.
 */
export async function ensureTemplate(build: TemplateBuild): Promise<boolean> {
  const key = templateKey(build.migrationsDir);
  if (isCurrentTemplate(build.dir, key)) return false;
  // Loaded only when there is something to build: a build with nothing to do stays quick.
  const { openDatabase } = await import('./database');
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-db-template-'));
  try {
    // template: false — the template is what is being made; fsync off — a scratch directory.
    const db = await openDatabase({ dataDir, template: false, fsync: false });
    let dump: Buffer;
    try {
      dump = await db.dump!();
    } finally {
      await db.close();
    }
    writeTemplate(build.dir, dump, { key, pgliteVersion: pgliteVersion(), migrations: migrationNames() }, build.gzip);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return true;
}

// `node dist/src/storage/build-template.js <template dir> <migrations dir>`, after the TypeScript
// build (npm run build, the Dockerfile's build stage).
if (require.main === module) {
  const [dir, migrationsDir] = process.argv.slice(2);
  if (!dir || !migrationsDir) {
    console.error('usage: build-template <template dir> <migrations dir>');
    process.exit(2);
  }
  ensureTemplate({ dir, migrationsDir, gzip: false }).then(
    (built) => built && console.log(`embedded store template written to ${dir}`),
    (err) => {
      console.error(`cannot build the embedded store template: ${(err as Error).stack ?? err}`);
      process.exit(1);
    },
  );
}
