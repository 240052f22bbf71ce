import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * A migrated embedded database, dumped once and reused: opening from the dump takes well
 * under a second where a fresh PGlite start plus migrations takes several.
 */
const ROOT = join(__dirname, '..', '..');

function migrationsHash(): string {
  const dir = join(ROOT, 'migrations');
  const h = createHash('sha256');
  for (const f of readdirSync(dir).sort()) h.update(f).update(readFileSync(join(dir, f)));
  return h.digest('hex').slice(0, 16);
}

export function templatePath(): string {
  return join(tmpdir(), `platform-authz-pg-template-${migrationsHash()}.tar`);
}

/** Builds the template dump if this set of migrations has none yet. */
export async function ensureTemplate(): Promise<string> {
  const path = templatePath();
  if (existsSync(path)) return path;
  // Imported lazily: ts-jest transpiles the app's migrations for this.
  const { openDatabase } = await import('../../src/storage/database');
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-template-'));
  const db = await openDatabase({ dataDir });
  await db.close();
  const pg = new PGlite(join(dataDir, 'db'));
  await pg.waitReady;
  const dump = await pg.dumpDataDir('none');
  await pg.close();
  const tmp = `${path}.${process.pid}`;
  writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  renameSync(tmp, path);
  rmSync(dataDir, { recursive: true, force: true });
  return path;
}

export function readTemplate(): Buffer {
  return readFileSync(templatePath());
}
