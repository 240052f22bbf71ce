import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isCurrentTemplate, migrationNames, pgliteVersion, TEMPLATE_DATA, TEMPLATE_MANIFEST, templateKey } from './data-dir-template';

export interface TemplateBuild {
  /** Where the template goes (a directory; an older template there is replaced). */
  dir: string;
  /** The migrations' sources: a change to them (or to PGlite's version) makes a new template. */
  migrationsDir: string;
}

/**
 * Makes the embedded store's data-directory template (see data-dir-template.ts) unless `dir`
 * already holds one with the current key: initdb and the migrations in a staging directory
 * next to `dir`, which is then renamed into place. Returns whether it built one. Safe when
 * several builds race: the first one renamed into place is kept.
 */
export async function ensureTemplate(build: TemplateBuild): Promise<boolean> {
  const key = templateKey(build.migrationsDir);
  if (isCurrentTemplate(build.dir, key)) return false;
  // Loaded only when there is something to build: a build with nothing to do stays quick.
  const { openDatabase } = await import('./database');
  const staged = `${build.dir}.${process.pid}.staged`;
  const old = `${build.dir}.${process.pid}.old`;
  rmSync(staged, { recursive: true, force: true });
  try {
    // The server's own data directory layout: the database in server/db, closed cleanly.
    // template: false, since the template is what is being made; no fsync in a scratch directory.
    const server = join(staged, 'server');
    const db = await openDatabase({ dataDir: server, template: false, fsync: false });
    await db.close();
    renameSync(join(server, 'db'), join(staged, TEMPLATE_DATA));
    rmSync(server, { recursive: true, force: true });
    writeFileSync(join(staged, TEMPLATE_MANIFEST), `${JSON.stringify({ key, pgliteVersion: pgliteVersion(), migrations: migrationNames() }, null, 2)}\n`);
    if (existsSync(build.dir)) {
      if (isCurrentTemplate(build.dir, key)) return false;
      renameSync(build.dir, old);
    }
    try {
      renameSync(staged, build.dir);
    } catch (err) {
      // Another build renamed its template into place between the check and this rename.
      if (!isCurrentTemplate(build.dir, key)) throw err;
      return false;
    }
    return true;
  } finally {
    rmSync(staged, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
}

// `node dist/src/storage/engine/build-template.js <template dir> <migrations dir>`, after the TypeScript
// build (npm run build, the Dockerfile's build stage).
if (require.main === module) {
  const [dir, migrationsDir] = process.argv.slice(2);
  if (!dir || !migrationsDir) {
    console.error('usage: build-template <template dir> <migrations dir>');
    process.exit(2);
  }
  ensureTemplate({ dir, migrationsDir }).then(
    (built) => built && console.log(`embedded store template written to ${dir}`),
    (err) => {
      console.error(`cannot build the embedded store template: ${(err as Error).stack ?? err}`);
      process.exit(1);
    },
  );
}
