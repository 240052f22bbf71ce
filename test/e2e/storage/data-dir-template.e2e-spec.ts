import { Logger } from '@nestjs/common';
import { cpSync, existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrationNames, pgliteVersion } from '../../../src/storage/engine/data-dir-template';
import { openDatabase } from '../../../src/storage/engine/database';
import { ensureTemplate } from '../../support/db-template';
// The module object itself (not an import copy), so the spy below sees the store's calls.
import fs = require('node:fs');

/** A new embedded data directory: copied from the template when it fits, made by initdb when not. */
describe('a new embedded data directory', () => {
  let work: string;
  let logged: jest.SpyInstance;
  let warned: jest.SpyInstance;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'platform-seed-'));
    logged = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    logged.mockRestore();
    warned.mockRestore();
    rmSync(work, { recursive: true, force: true });
  });

  /** Opens a new data directory from `template`; the migrations it holds afterwards. */
  async function openNew(template: string, fsync = false): Promise<{ dataDir: string; migrations: string[] }> {
    const dataDir = join(work, 'server');
    const db = await openDatabase({ dataDir, template, fsync });
    try {
      const rows: { name: string }[] = await db.dataSource.query('SELECT name FROM kv_migrations ORDER BY id');
      return { dataDir, migrations: rows.map((r) => r.name) };
    } finally {
      await db.close();
    }
  }

  it('is copied from the template, and synced to disk when durable', async () => {
    const template = await ensureTemplate();
    const fsync = fs.fsyncSync;
    const synced: string[] = [];
    const spy = jest.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
      synced.push(readlinkSync(`/proc/self/fd/${fd}`));
      fsync(fd);
    });
    let opened: { dataDir: string; migrations: string[] };
    try {
      opened = await openNew(template, true);
    } finally {
      spy.mockRestore();
    }
    expect(opened.migrations).toEqual(migrationNames());
    expect(logged).toHaveBeenCalledWith(`new data directory copied from the template in ${template} (PGlite ${pgliteVersion()})`);
    expect(warned).not.toHaveBeenCalled();
    // The copied files reach the disk before the store is used, as initdb's do.
    const db = join(opened.dataDir, 'db');
    expect(synced).toEqual(expect.arrayContaining([join(db, 'PG_VERSION'), join(db, 'global', 'pg_control'), db, opened.dataDir]));
    expect(readFileSync(join(db, 'PG_VERSION'), 'utf8')).toBe(readFileSync(join(template, 'data', 'PG_VERSION'), 'utf8'));
    // Copied beside the database directory and renamed into place: nothing of the copy is left.
    expect(existsSync(`${db}.seeding`)).toBe(false);
  });

  it('is made by initdb, with a log line, when the template was made by another PGlite version', async () => {
    const other = join(work, 'other-version');
    cpSync(await ensureTemplate(), other, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(other, 'template.json'), 'utf8'));
    writeFileSync(join(other, 'template.json'), JSON.stringify({ ...manifest, pgliteVersion: '0.0.1' }));
    const opened = await openNew(other);
    expect(warned).toHaveBeenCalledWith(`new data directory made by initdb: the template in ${other} was made by PGlite 0.0.1, this server runs ${pgliteVersion()}`);
    expect(logged).not.toHaveBeenCalledWith(expect.stringContaining('copied from the template'));
    expect(opened.migrations).toEqual(migrationNames());
  }, 120_000);

  it('is made by initdb, with a log line, when there is no template', async () => {
    const missing = join(work, 'no-template');
    const opened = await openNew(missing);
    expect(warned).toHaveBeenCalledWith(`new data directory made by initdb: no template in ${missing}`);
    expect(opened.migrations).toEqual(migrationNames());
  }, 120_000);
});
