import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database, DatabaseSettings, openDatabase } from '../../src/storage/database';
import { MvccStore } from '../../src/storage/mvcc-store';
import { ensureTemplate, readTemplate } from './db-template';
import { dropSchema, newSchemaName } from './test-server';

export interface TestDatabase {
  db: Database;
  store: MvccStore;
  settings: DatabaseSettings;
  /** Close the database (keeps the data, for reopen tests). */
  close(): Promise<void>;
  /** Close and delete the data dir or schema. */
  destroy(): Promise<void>;
}

/** A fresh migrated database on the engine under test: PostgreSQL when DATABASE_URL is set, else embedded. */
export async function openTestDatabase(): Promise<TestDatabase> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-db-'));
  let settings: DatabaseSettings;
  if (databaseUrl) settings = { databaseUrl, dataDir, schema: newSchemaName() };
  else {
    await ensureTemplate();
    settings = { dataDir, templateDump: readTemplate() };
  }
  const db = await openDatabase(settings);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await db.close();
  };
  return {
    db,
    store: new MvccStore(db.dataSource),
    // Reopening an embedded dir must not load the template again.
    settings: { ...settings, templateDump: undefined },
    close,
    async destroy() {
      await close();
      rmSync(dataDir, { recursive: true, force: true });
      if (databaseUrl && settings.schema) await dropSchema(databaseUrl, settings.schema);
    },
  };
}

export const engineName = () => (process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite');
