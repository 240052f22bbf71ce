import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openDatabase } from '../../src/storage/database';

/**
 * A migrated embedded database, dumped once and reused across jest runs: opening from the
 * dump takes well under a second where a first PGlite start plus migrations takes several.
 * The cache key covers the migrations (names and contents) and the PGlite version.
 */
const ROOT = join(__dirname, '..', '..');

function templateKey(): string {
  const hash = createHash('sha256');
  const migrations = join(ROOT, 'migrations');
  for (const file of readdirSync(migrations).sort()) hash.update(file).update(readFileSync(join(migrations, file)));
  const pgliteDir = dirname(dirname(require.resolve('@electric-sql/pglite')));
  hash.update(JSON.parse(readFileSync(join(pgliteDir, 'package.json'), 'utf8')).version);
  return hash.digest('hex').slice(0, 16);
}

/** Where this set of migrations' template lives. */
export function templatePath(): string {
  return join(tmpdir(), `platform-authz-db-template-${templateKey()}.tar`);
}

/** Builds the template unless it exists; returns its path. Safe when several runs race. */
export async function ensureTemplate(): Promise<string> {
  const path = templatePath();
  if (existsSync(path)) return path;
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-db-template-'));
  try {
    const db = await openDatabase({ dataDir });
    let dump: Buffer;
    try {
      dump = await db.dump!();
    } finally {
      await db.close();
    }
    const staged = `${path}.${process.pid}`;
    writeFileSync(staged, dump);
    renameSync(staged, path);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return path;
}

/** The template's bytes (ensureTemplate must have run, e.g. in jest's globalSetup). */
export function readTemplate(): Buffer {
  return readFileSync(templatePath());
}

let cached: Buffer | undefined;

/** The template's bytes, built first if needed; read once per test file. */
export async function templateDump(): Promise<Buffer> {
  if (!cached) {
    await ensureTemplate();
    cached = readTemplate();
  }
  return cached;
}
