import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ALL_MIGRATIONS } from '../../../migrations';

/**
 * A template of the embedded store's database directory, made once at build time: a directory
 * that initdb made and the migrations brought up to date, closed cleanly. A new data directory
 * is seeded by copying it instead of running initdb (most of a first start).
 *
 * The files are kept as they are, not as an archive: copying them is what a start needs, without
 * unpacking (a gzipped tar, unpacked by PGlite, started slower and left ~160 MiB more resident).
 * Layout: `data/` (the database directory) and `template.json`, which says what made it. The
 * manifest is written last: a directory without one is incomplete and not a template.
 */
export interface TemplateManifest {
  /** Changes when the migrations or the PGlite version change: the build makes a new template then. */
  key: string;
  /** The PGlite that ran initdb: another version's files are never used. */
  pgliteVersion: string;
  /** The migrations applied to the template (TypeORM's names). */
  migrations: string[];
}

export const TEMPLATE_MANIFEST = 'template.json';
export const TEMPLATE_DATA = 'data';
/** Bumped when what the builder writes changes, so that a build replaces older templates. */
const FORMAT = '1';

/** The template built with the server: dist/db-template next to the compiled dist/src. */
export const BUILT_TEMPLATE_DIR = join(__dirname, '..', '..', '..', 'db-template');

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

function readManifest(dir: string): Partial<TemplateManifest> | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, TEMPLATE_MANIFEST), 'utf8')) as Partial<TemplateManifest>;
  } catch {
    return undefined;
  }
}

/** Whether `dir` holds a complete template with this key. */
export function isCurrentTemplate(dir: string, key: string): boolean {
  return readManifest(dir)?.key === key;
}

/** A template this server can seed a new directory from, or why it cannot. */
export type UsableTemplate = { dataDir: string; manifest: TemplateManifest } | { unusable: string };

/**
 * The template in `dir`, checked for the running server: refused when it is missing or
 * incomplete, of another PGlite version, or migrated further than this server's migrations know.
 */
export function usableTemplate(dir: string): UsableTemplate {
  if (!existsSync(join(dir, TEMPLATE_MANIFEST))) return { unusable: `no template in ${dir}` };
  const manifest = readManifest(dir);
  if (typeof manifest?.pgliteVersion !== 'string' || !Array.isArray(manifest.migrations)) return { unusable: `${join(dir, TEMPLATE_MANIFEST)} is not a template manifest` };
  const version = pgliteVersion();
  if (manifest.pgliteVersion !== version) return { unusable: `the template in ${dir} was made by PGlite ${manifest.pgliteVersion}, this server runs ${version}` };
  const known = new Set(migrationNames());
  const unknown = manifest.migrations.filter((name) => !known.has(name));
  if (unknown.length) return { unusable: `the template in ${dir} has migrations this server does not know: ${unknown.join(', ')}` };
  const dataDir = join(dir, TEMPLATE_DATA);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) return { unusable: `the template in ${dir} has no database directory` };
  return { dataDir, manifest: manifest as TemplateManifest };
}

/**
 * Copies a template's database directory into `dir` (new and empty): into a sibling first, then
 * renamed over `dir`, so that a copy cut short leaves `dir` empty (a new directory again at the
 * next start) rather than half a database. Synchronously: Node's promise-based cp took ~10x as
 * long (1.1 s against 0.1 s for the ~1,000 files), and nothing else runs before the store is open.
 */
export function seedFromTemplate(template: { dataDir: string }, dir: string): void {
  const staged = `${dir}.seeding`;
  rmSync(staged, { recursive: true, force: true });
  cpSync(template.dataDir, staged, { recursive: true, errorOnExist: true, force: false });
  renameSync(staged, dir);
}
