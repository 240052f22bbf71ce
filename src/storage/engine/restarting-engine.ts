import { Logger } from '@nestjs/common';
import type { EmbeddedEngine, EngineResults, EngineStatements } from './embedded-engine';

/** One engine thread, as this wrapper uses it (EngineThread). */
export interface StoppingEngine extends EmbeddedEngine {
  /** Resolves with the reason once the engine stops, closed or ended by an error. */
  readonly ended: Promise<Error>;
}

/** Pauses between attempts to start the engine again: doubling from the first to the last. */
const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 5_000;

interface Listening {
  channel: string;
  onNotify: (payload: string) => void;
  unlisten: () => Promise<void>;
}

/**
 * The embedded engine, started again in the same directory when it ends by itself. PostgreSQL
 * PANICs when it cannot write its log (a new write-ahead log segment on a full disk is the
 * usual cause) and PGlite cannot go on from a PANIC; a new engine recovers from the log as
 * PostgreSQL does after a crash: every committed write is kept, the transaction that was
 * running is gone (nothing is left half-written). Until an engine starts, every statement
 * fails with the reason the last one ended (a full disk is a 503 with that cause, see
 * storage-errors.ts); on a disk still full the start fails too, so it is tried again, with a
 * growing pause, until one starts.
 *
 * A new engine is put in place while holding the session (`exclusive`), so no transaction
 * begun on one engine goes on in the next; its listeners listen again and are called once with
 * an empty payload (what committed while nobody listened sent its notification to nobody).
 */
export class RestartingEngine implements EmbeddedEngine {
  private readonly logger = new Logger('EmbeddedStore');
  private readonly listening = new Map<number, Listening>();
  private nextListener = 1;
  private closing = false;
  private retry: NodeJS.Timeout | undefined;
  private delayMs = FIRST_RESTART_DELAY_MS;
  private failedStarts = 0;

  constructor(
    private current: StoppingEngine,
    private readonly start: () => Promise<StoppingEngine>,
    private readonly exclusive: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {
    this.follow(current);
  }

  get closed(): boolean {
    return this.closing;
  }

  isInTransaction(): boolean {
    return this.current.isInTransaction();
  }

  query<T>(sql: string, params?: unknown[]): Promise<EngineResults<T>> {
    return this.current.query<T>(sql, params);
  }

  exec(sql: string): Promise<EngineResults[]> {
    return this.current.exec(sql);
  }

  /** On the engine of the moment: a transaction's statements never reach the next one. */
  transaction<T>(fn: (tx: EngineStatements) => Promise<T>): Promise<T> {
    return this.current.transaction(fn);
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    const id = this.nextListener++;
    const entry: Listening = { channel, onNotify, unlisten: await this.current.listen(channel, onNotify) };
    this.listening.set(id, entry);
    return async () => {
      if (!this.listening.delete(id) || this.current.closed) return;
      await entry.unlisten();
    };
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.retry);
    await this.current.close();
  }

  /** Once `engine` ends by itself, a new one is started. */
  private follow(engine: StoppingEngine): void {
    void engine.ended.then((reason) => {
      if (this.closing || engine !== this.current) return;
      this.logger.error(`${reason.message}; starting it again`);
      this.scheduleRestart();
    });
  }

  private scheduleRestart(): void {
    this.retry = setTimeout(() => void this.restart(), this.delayMs);
    this.retry.unref();
    this.delayMs = Math.min(this.delayMs * 2, MAX_RESTART_DELAY_MS);
  }

  private async restart(): Promise<void> {
    try {
      await this.exclusive(async () => {
        if (this.closing) return;
        const engine = await this.start();
        try {
          for (const entry of this.listening.values()) entry.unlisten = await engine.listen(entry.channel, entry.onNotify);
        } catch (err) {
          await engine.close().catch(() => undefined);
          throw err;
        }
        if (this.closing) return void (await engine.close());
        this.current = engine;
        this.follow(engine);
      });
    } catch (err) {
      // Said once per outage; each later attempt only at debug level (a full disk may last).
      const message = `the embedded store engine did not start again (trying every ${MAX_RESTART_DELAY_MS / 1000}s at most): ${(err as Error).message}`;
      if (this.failedStarts++ === 0) this.logger.warn(message);
      else this.logger.debug(message);
      if (!this.closing) this.scheduleRestart();
      return;
    }
    if (this.closing) return;
    this.delayMs = FIRST_RESTART_DELAY_MS;
    this.failedStarts = 0;
    this.logger.log('the embedded store engine started again');
    for (const entry of this.listening.values()) entry.onNotify('');
  }
}
