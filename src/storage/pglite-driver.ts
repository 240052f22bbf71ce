import { EventEmitter } from 'node:events';
import type { PGlite } from '@electric-sql/pglite';

/**
 * A stand-in for the `pg` module that TypeORM's postgres driver loads, backed by PGlite.
 *
 * PGlite has one session, so connections are handed out one at a time: a query runner
 * holds the session from connect() to release(), which keeps a transaction's statements
 * together and other callers' statements out of it (a rolled-back insert stays rolled
 * back). Code inside a transaction must use that transaction's manager; asking the pool
 * for a second connection from inside one would wait forever.
 */

type Callback = (err: Error | null, connection?: PGliteConnection, release?: (err?: Error) => void) => void;

interface QueryResultLike {
  rows: unknown[];
  rowCount: number;
  command: string;
  fields: Array<{ name: string; dataTypeID: number }>;
}

/** The first SQL keyword, which `pg` reports as `command` and TypeORM switches on. */
function commandOf(sql: string): string {
  const m = /^\s*(?:--[^\n]*\n\s*)*([a-zA-Z]+)/.exec(sql);
  return m ? m[1].toUpperCase() : '';
}

class PGliteConnection extends EventEmitter {
  constructor(private readonly db: PGlite) {
    super();
  }

  async query(text: string, params?: unknown[]): Promise<QueryResultLike> {
    if (!params || params.length === 0) {
      // exec runs several statements (migrations); the last result is the answer.
      const results = await this.db.exec(text);
      const last = results[results.length - 1];
      return {
        rows: last?.rows ?? [],
        rowCount: last?.affectedRows ?? last?.rows.length ?? 0,
        command: commandOf(text),
        fields: (last?.fields ?? []).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
      };
    }
    const result = await this.db.query(text, params);
    return {
      rows: result.rows,
      rowCount: result.affectedRows ?? result.rows.length,
      command: commandOf(text),
      fields: result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
    };
  }
}

/** Serialises holders of the single session, first come first served. */
class SessionMutex {
  private tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const ready = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return ready;
  }
}

export interface PGliteDriver {
  /** The `pg`-shaped module for TypeORM's `driver` option. */
  pg: unknown;
  /** Runs `fn` while holding the session (for PGlite calls made outside TypeORM). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

export function createPGliteDriver(db: PGlite): PGliteDriver {
  const mutex = new SessionMutex();
  const connection = new PGliteConnection(db);

  class Pool extends EventEmitter {
    connect(callback?: Callback): Promise<PGliteConnection> | void {
      const acquired = mutex.acquire().then((unlock) => {
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          unlock();
        };
        return { release };
      });
      if (callback) {
        acquired.then(
          ({ release }) => callback(null, connection, release),
          (err) => callback(err as Error),
        );
        return;
      }
      return acquired.then(() => connection);
    }

    end(callback?: (err?: Error) => void): void {
      callback?.();
    }
  }

  return {
    pg: { Pool, Client: Pool, defaults: {} },
    async exclusive(fn) {
      const unlock = await mutex.acquire();
      try {
        return await fn();
      } finally {
        unlock();
      }
    },
  };
}
