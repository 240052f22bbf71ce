import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { Database, DatabaseSettings, openDatabase } from '../../src/storage/engine/database';
import { MvccStore, serverStore } from '../../src/storage/mvcc/mvcc-store';
import { ensureTemplate } from './db-template';

export type TestEngine = 'pglite' | 'postgres';

export interface TestDatabase {
  engine: TestEngine;
  db: Database;
  store: MvccStore;
  /** Settings that reopen this database (same data dir or schema; a template only seeds a new directory). */
  settings: DatabaseSettings;
  /** Close the database, keeping its data (restart tests). */
  close(): Promise<void>;
  /** Close it and delete its data dir and schema. */
  destroy(): Promise<void>;
}

/** The engines a storage suite runs on: PGlite always, PostgreSQL when DATABASE_URL is set. */
export function testEngines(): TestEngine[] {
  return process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

/** The engine the server-level tests use: PostgreSQL when DATABASE_URL is set, else PGlite. */
export function defaultEngine(): TestEngine {
  return process.env.DATABASE_URL ? 'postgres' : 'pglite';
}

export const engineName = (engine: TestEngine = defaultEngine()) => (engine === 'postgres' ? 'PostgreSQL' : 'embedded PGlite');

/** A schema name no other test uses. */
export function newTestSchema(): string {
  return `t_${randomBytes(6).toString('hex')}`;
}

export async function dropTestSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, migrated, empty database: PGlite in a new temp dir seeded from the template
 * (about half a second), or a new schema on DATABASE_URL's (or the given) PostgreSQL.
 */
export async function openTestDatabase(engine: TestEngine = defaultEngine(), databaseUrl = process.env.DATABASE_URL): Promise<TestDatabase> {
  if (engine === 'postgres' && !databaseUrl) throw new Error('the postgres test engine needs DATABASE_URL');
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-db-'));
  const settings: DatabaseSettings =
    engine === 'postgres' ? { databaseUrl, dataDir, schema: newTestSchema() } : { dataDir, template: await ensureTemplate() };
  let db: Database;
  try {
    db = await openDatabase(settings);
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await db.close();
  };
  return {
    engine,
    db,
    store: serverStore(db),
    settings,
    close,
    async destroy() {
      await close();
      rmSync(dataDir, { recursive: true, force: true });
      if (settings.databaseUrl && settings.schema) await dropTestSchema(settings.databaseUrl, settings.schema);
    },
  };
}
