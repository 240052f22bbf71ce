import { EventEmitter } from 'node:events';
import { EmbeddedEngine, EngineResults } from './embedded-engine';
import { SessionMutex, Unlock } from './session-mutex';

/**
 * A stand-in for the `pg` module, for TypeORM's postgres driver (`driver` option), backed
 * by the embedded engine (PGlite).
 *
 * PGlite has one session, so the pool hands out its one client to one holder at a time:
 * a query runner holds the session from connect() to release(), which keeps each
 * transaction's statements together and everyone else's out of it (a rolled-back insert
 * stays invisible). Consequence: code inside a transaction must use that transaction's
 * manager; asking the pool for another connection from inside one waits forever.
 */

/** The subset of `pg`'s QueryResult TypeORM reads. */
export interface PgQueryResult {
  command: string;
  rowCount: number;
  rows: Record<string, unknown>[];
  fields: Array<{ name: string; dataTypeID: number }>;
}

type QueryCallback = (err: Error | null, result?: PgQueryResult) => void;
type ConnectCallback = (err: Error | null, client?: PGliteClient, release?: (err?: unknown) => void) => void;

/** Date types PGlite parses into Date objects; rebuilt below in the caller's realm. */
const DATE_OIDS = new Set([1082, 1114, 1184]);

/** The first SQL keyword, which `pg` reports as `command` and TypeORM switches on. */
export function commandOf(sql: string): string {
  const m = /^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*([a-zA-Z]+)/.exec(sql);
  return m ? m[1].toUpperCase() : '';
}

function toPgResult(sql: string, result: EngineResults | undefined): PgQueryResult {
  const fields = (result?.fields ?? []).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }));
  const dateFields = fields.filter((f) => DATE_OIDS.has(f.dataTypeID)).map((f) => f.name);
  // Fresh row objects (and Dates): PGlite may live in another realm than the caller.
  const rows = Array.from(result?.rows ?? [], (row) => {
    const copy: Record<string, unknown> = { ...(row as Record<string, unknown>) };
    for (const name of dateFields) {
      const value = copy[name] as Date | null;
      if (value) copy[name] = new Date(value.getTime());
    }
    return copy;
  });
  return { command: commandOf(sql), rowCount: result?.affectedRows ?? rows.length, rows, fields };
}

/** The one client: a `pg.Client` look-alike over the PGlite session. */
class PGliteClient extends EventEmitter {
  constructor(private readonly db: EmbeddedEngine) {
    super();
  }

  query(sql: string, params?: unknown[], callback?: QueryCallback): Promise<PgQueryResult> | undefined {
    const run = this.run(sql, params);
    if (!callback) return run;
    run.then(
      (result) => callback(null, result),
      (err: Error) => callback(err),
    );
    return undefined;
  }

  /** The engine's errors come with `pg`'s fields already (engine-errors.ts). */
  private async run(sql: string, params?: unknown[]): Promise<PgQueryResult> {
    if (params && params.length > 0) return toPgResult(sql, await this.db.query(sql, params));
    // Without parameters `pg` uses the simple protocol, which allows several statements.
    const results = await this.db.exec(sql);
    return toPgResult(sql, results[results.length - 1]);
  }
}

export interface PGliteDriver {
  /** The `pg`-shaped module for TypeORM's `driver` option. */
  pg: { Pool: new () => EventEmitter };
  /** Runs `fn` while holding the session (for PGlite calls made outside TypeORM: LISTEN, dump, close). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

/** `mutex`: the session's lock, when others must take it too (a restart of the engine). */
export function createPGliteDriver(db: EmbeddedEngine, mutex = new SessionMutex()): PGliteDriver {
  const client = new PGliteClient(db);

  /** Gives the session back, first ending any transaction its holder left open. */
  const releaser = (unlock: Unlock) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (db.closed || !db.isInTransaction()) return unlock();
      db.exec('ROLLBACK').then(unlock, unlock);
    };
  };

  class Pool extends EventEmitter {
    /** TypeORM's form: the callback gets the client and the release that ends the hold. */
    connect(callback: ConnectCallback): void {
      mutex.acquire().then(
        (unlock) => callback(null, client, releaser(unlock)),
        (err: Error) => callback(err),
      );
    }

    end(callback?: (err?: Error) => void): Promise<void> {
      callback?.();
      return Promise.resolve();
    }
  }

  return { pg: { Pool }, exclusive: (fn) => mutex.run(fn) };
}
