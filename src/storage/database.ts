import { PGlite } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import { ALL_MIGRATIONS } from '../../migrations';
import { WakeupSource } from '../api/watch/change-feed';
import { ServerOptions } from '../config/options';
import { DataDirLock } from './data-dir-lock';
import { createPGliteDriver } from './pglite-driver';

/** The channel writers NOTIFY after each committed change; the payload is the revision. */
export const CHANGES_CHANNEL = 'kv_changes';

/** Serialises migrations of several servers starting at once on one PostgreSQL. */
const MIGRATION_LOCK_KEY = 727_000_001;

export interface DatabaseSettings {
  /** PostgreSQL URL; unset = the embedded store in `<dataDir>/db`. */
  databaseUrl?: string;
  dataDir: string;
  /** Test isolation on PostgreSQL: work in this schema (created if missing). */
  schema?: string;
  /** Test speed-up on the embedded store: start from this dump of a migrated database. */
  templateDump?: Buffer;
}

export interface Database {
  dataSource: DataSource;
  /** Wakes the change feed when any server commits a change. */
  wakeups: WakeupSource;
  engine: 'postgres' | 'pglite';
  close(): Promise<void>;
}

const BASE: Partial<DataSourceOptions> = { type: 'postgres', migrations: ALL_MIGRATIONS, migrationsTableName: 'migrations', logging: false };

/** Opens the database, applies migrations, and returns it ready for the store. */
export async function openDatabase(settings: DatabaseSettings): Promise<Database> {
  return settings.databaseUrl ? openPostgres(settings.databaseUrl, settings.schema) : openEmbedded(settings);
}

async function openPostgres(url: string, schema?: string): Promise<Database> {
  const searchPath = schema ? { options: `-c search_path=${schema}` } : {};
  const admin = new Client({ connectionString: url, ...searchPath });
  await admin.connect();
  try {
    if (schema) await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const dataSource = new DataSource({
      ...BASE,
      url,
      schema,
      poolSize: 10,
      extra: { ...searchPath, max: 10 },
    } as DataSourceOptions);
    await dataSource.initialize();
    // Several replicas may start together: one migrates, the others wait and find it done.
    await admin.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await dataSource.runMigrations({ transaction: 'all' });
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
    const wakeups: WakeupSource = {
      async subscribe(onWake) {
        const listener = new Client({ connectionString: url });
        listener.on('notification', () => onWake());
        listener.on('error', () => undefined); // the poll covers a lost listener
        await listener.connect();
        await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
        return async () => {
          await listener.end().catch(() => undefined);
        };
      },
    };
    return {
      dataSource,
      wakeups,
      engine: 'postgres',
      close: async () => {
        if (dataSource.isInitialized) await dataSource.destroy();
      },
    };
  } finally {
    await admin.end();
  }
}

async function openEmbedded(settings: DatabaseSettings): Promise<Database> {
  const dir = join(settings.dataDir, 'db');
  mkdirSync(settings.dataDir, { recursive: true });
  const lock = DataDirLock.acquire(join(settings.dataDir, 'db.lock'), settings.dataDir);
  let db: PGlite | undefined;
  try {
    mkdirSync(dir, { recursive: true });
    db = new PGlite(dir, {
      // int8 and numeric as strings, as `pg` returns them.
      parsers: { 20: (v: string) => v, 1700: (v: string) => v },
      ...(settings.templateDump ? { loadDataDir: new Blob([settings.templateDump]) } : {}),
    });
    await db.waitReady;
    const driver = createPGliteDriver(db);
    const dataSource = new DataSource({ ...BASE, driver: driver.pg } as DataSourceOptions);
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: 'all' });
    const pglite = db;
    const wakeups: WakeupSource = {
      async subscribe(onWake) {
        // LISTEN must not land inside another caller's transaction on the one session.
        const unlisten = await driver.exclusive(() => pglite.listen(CHANGES_CHANNEL, () => onWake()));
        return async () => {
          await driver.exclusive(() => unlisten()).catch(() => undefined);
        };
      },
    };
    return {
      dataSource,
      wakeups,
      engine: 'pglite',
      close: async () => {
        try {
          if (dataSource.isInitialized) await dataSource.destroy();
          await pglite.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (err) {
    await db?.close().catch(() => undefined);
    lock.release();
    throw err;
  }
}

/** `--migrate-only`: apply migrations and close. */
export async function migrateOnly(options: ServerOptions): Promise<void> {
  const db = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir });
  await db.close();
}
