import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { EmbeddedEngine, EngineStatements } from './embedded-engine';

/** Runs one statement and answers its rows as the driver made them (no copies). */
export type SqlQuery = <T>(sql: string, params?: unknown[]) => Promise<T[]>;

/**
 * The store's hot path to its database, under TypeORM rather than through it: TypeORM's
 * query runner copies every result and wraps every transaction in its own bookkeeping,
 * which costs a create more CPU than its SQL. TypeORM still migrates and runs the cold
 * paths (compaction, lists).
 */
export interface SqlSession {
  query: SqlQuery;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (query: SqlQuery) => Promise<T>): Promise<T>;
}

/**
 * node-postgres: statements on the pool TypeORM uses (its size, timeouts and search_path),
 * asked for each time: the pool is replaced when its server turns out read-only.
 */
export function poolSession(pool: () => Pool): SqlSession {
  return {
    query: async <T>(sql: string, params?: unknown[]) => (await pool().query(sql, params)).rows as T[],
    async transaction<T>(fn: (query: SqlQuery) => Promise<T>): Promise<T> {
      const client: PoolClient = await pool().connect();
      let broken: Error | undefined;
      // A connection lost while held is reported as an event: no listener would crash the process.
      const lost = (err: Error) => (broken = err);
      client.on('error', lost);
      try {
        await client.query('BEGIN');
        const result = await fn(async <R>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as R[]);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        // A connection whose rollback fails is not given back to the pool.
        await client.query('ROLLBACK').catch((rollbackFailed: Error) => (broken = rollbackFailed));
        throw err;
      } finally {
        client.off('error', lost);
        client.release(broken);
      }
    },
  };
}

/**
 * PGlite: statements while holding its one session. The engine's errors arrive with `pg`'s
 * fields (engine-errors.ts); the store's own (KeyExistsError, ...) pass as they are.
 */
export function pgliteSession(db: EmbeddedEngine, exclusive: <T>(fn: () => Promise<T>) => Promise<T>): SqlSession {
  return {
    query: <T>(sql: string, params?: unknown[]) => exclusive(async () => (await db.query<T>(sql, params)).rows),
    transaction: <T>(fn: (query: SqlQuery) => Promise<T>) =>
      exclusive(() => db.transaction((tx: EngineStatements) => fn(async <R>(sql: string, params?: unknown[]) => (await tx.query<R>(sql, params)).rows))),
  };
}

/** Through TypeORM (a store opened on a bare DataSource, as some tests do). */
export function dataSourceSession(dataSource: DataSource): SqlSession {
  return {
    query: (sql, params) => dataSource.query(sql, params),
    transaction: (fn) => dataSource.transaction((tx) => fn((sql, params) => tx.query(sql, params))),
  };
}
