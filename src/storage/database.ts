import { Logger } from '@nestjs/common';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Client, ClientConfig, Pool } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import { ALL_MIGRATIONS } from '../../migrations';
import { BUILT_TEMPLATE_DIR, seedFromTemplate, usableTemplate } from './data-dir-template';
import { ChangeNotifier, PGliteChangeNotifier, PostgresChangeNotifier } from './change-notifier';
import { DataDirLock } from './data-dir-lock';
import { createPGliteDriver } from './pglite-driver';
import { EngineThread } from './embedded-engine';
import { syncPath } from './pglite-loader';
import { pgliteSession, poolSession, SqlSession } from './sql-session';

export interface DatabaseSettings {
  /** PostgreSQL URL; unset = the embedded engine (PGlite) in `<dataDir>/db`. */
  databaseUrl?: string;
  /** The server's data directory (the embedded database lives in `db/` below it). */
  dataDir: string;
  /** PostgreSQL only: work in this schema (created if missing), e.g. to isolate tests. */
  schema?: string;
  /**
   * Embedded only: the template a new database directory is copied from (default: the one built
   * with the server, see data-dir-template.ts); false: initdb makes it.
   */
  template?: string | false;
  /** Embedded only: sync every commit to disk (default true; `--embedded-fsync`). */
  fsync?: boolean;
  /** Embedded only: PostgreSQL's shared_buffers in bytes (`--embedded-shared-buffers`). */
  sharedBuffersBytes?: number;
}

/** The PostgreSQL server of a database URL does not answer or refuses the connection. */
export class DatabaseUnreachableError extends Error {}

/** Where a PostgreSQL URL points, for messages: host, port and database, never the password. */
export function postgresTarget(url: string): string {
  const u = new URL(url);
  const host = u.hostname || new URLSearchParams(u.search).get('host') || 'localhost';
  return `${host}:${u.port || '5432'}${u.pathname.length > 1 ? u.pathname : ''}`;
}

/** How long the first connection to PostgreSQL may take before the start gives up. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface Database {
  engine: 'postgres' | 'pglite';
  dataSource: DataSource;
  /** The store's hot path: the same connections without TypeORM's result copies. */
  sql: SqlSession;
  notifier: ChangeNotifier;
  /** Closes listeners, connections and (embedded) the engine and its lock. */
  close(): Promise<void>;
}

/** Pool size on PostgreSQL. */
const POOL_SIZE = 10;
/** How long a request waits for a pooled connection (a new one, or a free one) before giving up. */
const POOL_CONNECT_TIMEOUT_MS = 10_000;

const BASE_OPTIONS = {
  type: 'postgres',
  migrations: ALL_MIGRATIONS,
  migrationsTableName: 'kv_migrations',
  logging: false,
} as const;

/** Opens the database on the configured engine and applies pending migrations. */
export function openDatabase(settings: DatabaseSettings): Promise<Database> {
  return settings.databaseUrl ? openPostgres(settings.databaseUrl, settings.schema) : openEmbedded(settings);
}

/** Schema names go into connection options and DDL, so only plain identifiers are accepted. */
function checkSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}: use lower-case letters, digits and _`);
  return schema;
}

async function openPostgres(url: string, schemaName?: string): Promise<Database> {
  const schema = schemaName === undefined ? undefined : checkSchemaName(schemaName);
  const connection: ClientConfig = { connectionString: url, ...(schema ? { options: `-c search_path=${schema}` } : {}) };
  const dataSource = new DataSource({
    ...BASE_OPTIONS,
    url,
    schema,
    poolSize: POOL_SIZE,
    // A database that does not answer fails a request (504) instead of holding it forever.
    extra: { connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS, ...(connection.options ? { options: connection.options } : {}) },
  } as DataSourceOptions);

  // Several servers may start at once on one database: one migrates, the others wait for
  // it and then find nothing left to do. The lock is per schema and held by its own session.
  const admin = new Client({ ...connection, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await admin.connect();
  } catch (err) {
    await admin.end().catch(() => undefined);
    // pg's messages name the host and the user, never the password.
    throw new DatabaseUnreachableError(`cannot connect to PostgreSQL at ${postgresTarget(url)}: ${(err as Error).message || (err as NodeJS.ErrnoException).code}`);
  }
  try {
    const lockName = `platform-authz migrations ${schema ?? 'public'}`;
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [lockName]);
    try {
      if (schema) await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await dataSource.initialize();
      await dataSource.runMigrations({ transaction: 'all' });
    } finally {
      await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [lockName]);
    }
  } catch (err) {
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
    throw err;
  } finally {
    await admin.end().catch(() => undefined);
  }

  const notifier = new PostgresChangeNotifier(connection);
  return {
    engine: 'postgres',
    dataSource,
    sql: poolSession((dataSource.driver as unknown as { master: Pool }).master),
    notifier,
    async close() {
      await notifier.close();
      if (dataSource.isInitialized) await dataSource.destroy();
    },
  };
}

/** fsyncs every file and directory below `dir`, then `dir` and each parent up to `top`. */
function syncTree(dir: string, top: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) syncTree(path, path);
    else if (entry.isFile()) syncPath(path);
  }
  for (let at = resolve(dir); ; at = dirname(at)) {
    syncPath(at);
    if (at === resolve(top) || at === dirname(at)) break;
  }
}

function isEmptyDir(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

const logger = new Logger('EmbeddedStore');

/**
 * Starts PGlite in a new (empty) database directory: copied from the template when there is a
 * usable one, made by initdb otherwise.
 */
async function startNewPGlite(dir: string, settings: DatabaseSettings, durable: boolean) {
  const engine = { durable, sharedBuffersBytes: settings.sharedBuffersBytes };
  if (settings.template === false) return EngineThread.start(dir, engine);
  const templateDir = settings.template ?? BUILT_TEMPLATE_DIR;
  const template = usableTemplate(templateDir);
  if ('unusable' in template) {
    logger.warn(`new data directory made by initdb: ${template.unusable}`);
    return EngineThread.start(dir, engine);
  }
  try {
    seedFromTemplate(template, dir);
    const pglite = await EngineThread.start(dir, engine);
    logger.log(`new data directory copied from the template in ${templateDir} (PGlite ${template.manifest.pgliteVersion})`);
    return pglite;
  } catch (err) {
    // What a failed copy left behind is removed before initdb starts over in the same directory.
    logger.warn(`new data directory made by initdb: the template in ${templateDir} did not start: ${(err as Error).message}`);
    for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
    return EngineThread.start(dir, engine);
  }
}

async function openEmbedded(settings: DatabaseSettings): Promise<Database> {
  mkdirSync(settings.dataDir, { recursive: true });
  const lock = DataDirLock.acquire(join(settings.dataDir, 'db.lock'), settings.dataDir);
  const dir = join(settings.dataDir, 'db');
  try {
    // The template only seeds a new directory; an existing database is never replaced.
    const fresh = isEmptyDir(dir);
    const durable = settings.fsync !== false;
    mkdirSync(dir, { recursive: true });
    const pglite = fresh ? await startNewPGlite(dir, settings, durable) : await EngineThread.start(dir, { durable, sharedBuffersBytes: settings.sharedBuffersBytes });
    // PostgreSQL syncs what it writes from now on; the files initdb (or the seed) wrote before
    // it ran are synced once here, with the directory entries that lead to them.
    if (fresh && durable) syncTree(dir, settings.dataDir);
    const driver = createPGliteDriver(pglite);
    const dataSource = new DataSource({ ...BASE_OPTIONS, driver: driver.pg } as DataSourceOptions);
    try {
      await dataSource.initialize();
      await dataSource.runMigrations({ transaction: 'all' });
    } catch (err) {
      if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
      await pglite.close().catch(() => undefined);
      throw err;
    }

    const notifier = new PGliteChangeNotifier(pglite, driver.exclusive);
    let closing: Promise<void> | null = null;
    return {
      engine: 'pglite',
      dataSource,
      sql: pgliteSession(pglite, driver.exclusive),
      notifier,
      close() {
        closing ??= (async () => {
          try {
            await notifier.close();
            if (dataSource.isInitialized) await dataSource.destroy();
            // Waits for the session's current holder before shutting the engine down.
            await driver.exclusive(() => pglite.close());
          } finally {
            lock.release();
          }
        })();
        return closing;
      },
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}
