import { Logger } from '@nestjs/common';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Pool } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import { ALL_MIGRATIONS } from '../../../migrations';
import { BUILT_TEMPLATE_DIR, seedFromTemplate, usableTemplate } from './data-dir-template';
import { ChangeNotifier, PGliteChangeNotifier, PostgresChangeNotifier } from './change-notifier';
import { DataDirLock } from './data-dir-lock';
import { createPGliteDriver } from './pglite-driver';
import { EngineThread } from './embedded-engine';
import { RestartingEngine, RecyclePolicy, recyclePolicy } from './restarting-engine';
import { SessionMutex } from './session-mutex';
import { DEFAULT_SHARED_BUFFERS_BYTES, syncPath } from './pglite-loader';
import { pgliteSession, poolSession, SqlSession } from './sql-session';
import { PostgresConnections } from './postgres-connections';
import { parsePostgresUrl, PostgresUrlError } from './postgres-url';
import { EMBEDDED_SESSION_FEATURES, probeSessionFeatures, SessionFeatures } from './session-features';

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
  /** Embedded only: when an engine whose memory grew is replaced (tests lower the figures); false: never. */
  engineRecycle?: Partial<RecyclePolicy> | false;
}

/** The PostgreSQL server of a database URL does not answer or refuses the connection. */
export class DatabaseUnreachableError extends Error {}

/** Where a PostgreSQL URL points, for messages: hosts, ports and database, never the password. */
export function postgresTarget(url: string): string {
  try {
    return parsePostgresUrl(url).describe();
  } catch {
    return 'an unreadable URL';
  }
}

export interface Database {
  engine: 'postgres' | 'pglite';
  dataSource: DataSource;
  /** The store's hot path: the same connections without TypeORM's result copies. */
  sql: SqlSession;
  notifier: ChangeNotifier;
  /** Whether LISTEN and session advisory locks work on its connections (not behind a transaction pooler). */
  sessionFeatures: SessionFeatures;
  /** PostgreSQL: how connections find their host, and sessions of their own for listeners and leader election. */
  connections?: PostgresConnections;
  /** Closes listeners, connections and (embedded) the engine and its lock. */
  close(): Promise<void>;
}

/** Pool size on PostgreSQL. */
const POOL_SIZE = 10;
/** How long a request (and the first connection at start) waits for a pooled connection before giving up. */
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
  let connections: PostgresConnections;
  try {
    connections = new PostgresConnections(url, { schema });
  } catch (err) {
    if (err instanceof PostgresUrlError) throw new DatabaseUnreachableError(err.message);
    throw err;
  }
  const poolOptions = { connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS, Client: connections.Client };
  const dataSource = new DataSource({
    ...BASE_OPTIONS,
    // TypeORM reads one host from it; every connection chooses its own (connections.Client).
    url: connections.firstHostUrl(),
    schema,
    poolSize: POOL_SIZE,
    // A database that does not answer fails a request (504) instead of holding it forever.
    extra: poolOptions,
  } as DataSourceOptions);

  try {
    await dataSource.initialize();
  } catch (err) {
    // pg's messages name the host and the user, never the password.
    throw new DatabaseUnreachableError(`cannot connect to PostgreSQL at ${postgresTarget(url)}: ${(err as Error).message || (err as NodeJS.ErrnoException).code}`);
  }
  try {
    await migrateUnderLock(dataSource, schema);
  } catch (err) {
    await dataSource.destroy().catch(() => undefined);
    throw err;
  }

  // TypeORM's pool, replaced when its server is found read-only: the old one closes its idle
  // connections at once and the others as they are given back, once nobody waits on it.
  const driver = dataSource.driver as unknown as { master: Pool };
  const retiring = new Set<Promise<void>>();
  const unwatch = connections.onReadOnly(() => {
    const old = driver.master;
    const fresh = new Pool({ ...poolOptions, connectionString: connections.firstHostUrl(), max: POOL_SIZE } as ConstructorParameters<typeof Pool>[0]);
    fresh.on('error', (err) => poolLogger.warn(`a pooled PostgreSQL connection failed: ${err.message}`));
    driver.master = fresh;
    const ended = endWhenIdle(old).finally(() => retiring.delete(ended));
    retiring.add(ended);
  });
  const sql = poolSession(() => driver.master);

  let sessionFeatures: SessionFeatures;
  try {
    sessionFeatures = await probeSessionFeatures(() => connections.connect(), sql);
  } catch (err) {
    unwatch();
    await dataSource.destroy().catch(() => undefined);
    throw err;
  }
  if (!sessionFeatures.listen) {
    poolLogger.warn(
      'LISTEN/NOTIFY and session advisory locks do not work on these connections (a pooler in transaction mode?): ' +
        `the change log is polled every ${POLLED_CHANGE_LOG_MS} ms and leaders are elected with a lease row`,
    );
  }

  const notifier = new PostgresChangeNotifier(() => connections.connect({ keepAlive: true }));
  // A listener on a server that turned read-only hears no more commits: it connects again.
  const unwatchListener = connections.onReadOnly(() => notifier.reconnect());
  return {
    engine: 'postgres',
    dataSource,
    sql,
    notifier,
    sessionFeatures,
    connections,
    async close() {
      unwatch();
      unwatchListener();
      await notifier.close();
      if (dataSource.isInitialized) await dataSource.destroy();
      await Promise.all(retiring);
    },
  };
}

const poolLogger = new Logger('PostgreSQL');

/**
 * Several servers may start at once on one database: one migrates, the others wait for it
 * and then find nothing left to do. The lock is per schema, taken in a transaction of one
 * TypeORM query runner that stays open while the migrations run on the pool's other
 * connections (a transaction keeps its server connection even behind a pooler in transaction
 * mode, where a session lock would not).
 */
async function migrateUnderLock(dataSource: DataSource, schema: string | undefined): Promise<void> {
  const lockName = `platform-authz migrations ${schema ?? 'public'}`;
  const holder = dataSource.createQueryRunner();
  const underLock = async (work: () => Promise<unknown>) => {
    await holder.startTransaction();
    try {
      await holder.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockName]);
      await work();
      await holder.commitTransaction();
    } catch (err) {
      await holder.rollbackTransaction().catch(() => undefined);
      throw err;
    }
  };
  try {
    if (schema) await underLock(() => holder.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`));
    await underLock(() => dataSource.runMigrations({ transaction: 'all' }));
  } finally {
    await holder.release().catch(() => undefined);
  }
}

/**
 * How often the change log is read for other replicas' writes where NOTIFYs cannot arrive (the
 * change feed's poll interval; a change of another replica is seen within about this long).
 */
export const POLLED_CHANGE_LOG_MS = 500;

/** How often a retired pool looks whether callers still wait for it (they may also give up waiting). */
const RETIRED_POOL_CHECK_MS = 200;

/** Ends a pool once no caller waits for one of its connections (ending it earlier would strand them). */
function endWhenIdle(pool: Pool): Promise<void> {
  return new Promise((resolve) => {
    const tryEnd = () => {
      if (pool.waitingCount > 0) return;
      clearInterval(timer);
      pool.off('acquire', tryEnd);
      pool.end().then(resolve, () => resolve());
    };
    const timer = setInterval(tryEnd, RETIRED_POOL_CHECK_MS);
    timer.unref();
    pool.on('acquire', tryEnd);
    tryEnd();
  });
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
    const engineSettings = { durable, sharedBuffersBytes: settings.sharedBuffersBytes };
    mkdirSync(dir, { recursive: true });
    const first = fresh ? await startNewPGlite(dir, settings, durable) : await EngineThread.start(dir, engineSettings);
    // PostgreSQL syncs what it writes from now on; the files initdb (or the seed) wrote before
    // it ran are synced once here, with the directory entries that lead to them.
    if (fresh && durable) syncTree(dir, settings.dataDir);
    // An engine that ends by itself (a PANIC: its log could not be written, the disk full) is
    // started again on the directory it left, while nobody holds the session; so is one whose
    // memory a large input grew, once the store is idle.
    const session = new SessionMutex();
    const recycle = settings.engineRecycle === false ? undefined : recyclePolicy(settings.sharedBuffersBytes ?? DEFAULT_SHARED_BUFFERS_BYTES, settings.engineRecycle);
    const pglite = new RestartingEngine(first, () => EngineThread.start(dir, engineSettings), (fn) => session.run(fn), recycle);
    const driver = createPGliteDriver(pglite, session);
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
      sessionFeatures: EMBEDDED_SESSION_FEATURES,
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
