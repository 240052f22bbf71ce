import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ALL_MIGRATIONS } from '../../migrations';

/**
 * A template of the embedded store's data directory: the tar PGlite dumps of a directory that
 * initdb made and the migrations brought up to date, written once at build time. A new data
 * directory is seeded from it instead of running initdb (most of a first start).
 *
 * On disk it is a directory holding the dump and `template.json`, which says what made it.
 * The manifest is written last: a template without one is incomplete and ignored.
 */
export interface TemplateManifest {
  /** Changes when the migrations or the PGlite version change: the build makes a new template then. */
  key: string;
  /** The PGlite that ran initdb: another version's files are never used. */
  pgliteVersion: string;
  /** The migrations applied to the dump (TypeORM's names). */
  migrations: string[];
  /** The dump's file in the template directory, gzipped when it ends in .gz. */
  dump: string;
}

const MANIFEST = 'template.json';
/** Bumped when what the builder writes changes, so that a build replaces older templates. */
const FORMAT = '1';

/** The template built with the server: dist/db-template next to the compiled dist/src. */
export const BUILT_TEMPLATE_DIR = join(__dirname, '..', '..', 'db-template');

/** The installed PGlite's version (its package.json, found from the module's entry point). */
export function pgliteVersion(): string {
  const packageDir = dirname(dirname(require.resolve('@electric-sql/pglite')));
  return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The names TypeORM records for this build's migrations. */
export function migrationNames(): string[] {
  return ALL_MIGRATIONS.map((m) => (new m() as { name?: string }).name ?? m.name);
}

/** The key of a template made from the migrations' sources in `migrationsDir` by the installed PGlite. */
export function templateKey(migrationsDir: string): string {
  const hash = createHash('sha256').update(FORMAT).update(pgliteVersion());
  for (const file of readdirSync(migrationsDir).sort()) hash.update(file).update(readFileSync(join(migrationsDir, file)));
  return hash.digest('hex').slice(0, 16);
}

function readManifest(dir: string): TemplateManifest | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as TemplateManifest;
  } catch {
    return undefined;
  }
}

/** Whether `dir` holds a complete template with this key. */
export function isCurrentTemplate(dir: string, key: string): boolean {
  return readManifest(dir)?.key === key;
}

/** A template this server can seed a new directory from, or why it cannot. */
export type LoadedTemplate = { dump: Uint8Array; manifest: TemplateManifest } | { unusable: string };

/**
 * Reads the template in `dir` for the running server: refused when it is missing, unreadable,
 * of another PGlite version, or migrated further than this server's migrations know.
 */
export function loadTemplate(dir: string): LoadedTemplate {
  if (!existsSync(join(dir, MANIFEST))) return { unusable: `no template in ${dir}` };
  const manifest = readManifest(dir);
  if (!manifest || typeof manifest.dump !== 'string' || !Array.isArray(manifest.migrations)) return { unusable: `${join(dir, MANIFEST)} is not a template manifest` };
  const version = pgliteVersion();
  if (manifest.pgliteVersion !== version) return { unusable: `the template in ${dir} was made by PGlite ${manifest.pgliteVersion}, this server runs ${version}` };
  const known = new Set(migrationNames());
  const unknown = manifest.migrations.filter((name) => !known.has(name));
  if (unknown.length) return { unusable: `the template in ${dir} has migrations this server does not know: ${unknown.join(', ')}` };
  try {
    const bytes = readFileSync(join(dir, manifest.dump));
    return { dump: manifest.dump.endsWith('.gz') ? gunzipSync(bytes) : bytes, manifest };
  } catch (err) {
    return { unusable: `cannot read the template in ${dir}: ${(err as Error).message}` };
  }
}

/**
 * Writes a template into `dir` in one step: staged next to it, then renamed into place (an
 * older template there is replaced). When another writer got there first with the same key,
 * its template is kept.
 */
export function writeTemplate(dir: string, dump: Uint8Array, manifest: Omit<TemplateManifest, 'dump'>, gzip: boolean): void {
  const staged = `${dir}.${process.pid}.staged`;
  const old = `${dir}.${process.pid}.old`;
  rmSync(staged, { recursive: true, force: true });
  const file = gzip ? 'data.tar.gz' : 'data.tar';
  try {
    mkdirSync(staged, { recursive: true });
    writeFileSync(join(staged, file), gzip ? gzipSync(dump) : dump);
    writeFileSync(join(staged, MANIFEST), `${JSON.stringify({ ...manifest, dump: file }, null, 2)}\n`);
    if (existsSync(dir)) {
      if (isCurrentTemplate(dir, manifest.key)) return;
      renameSync(dir, old);
    }
    try {
      renameSync(staged, dir);
    } catch (err) {
      // Another writer renamed its template into place between our check and our rename.
      if (!isCurrentTemplate(dir, manifest.key)) throw err;
    }
  } finally {
    rmSync(staged, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
}
