import { Logger } from '@nestjs/common';
import type { EmbeddedEngine, EngineResults, EngineStatements } from './embedded-engine';
import type { EngineMemory } from './pglite-loader';

/** One engine thread, as this wrapper uses it (EngineThread). */
export interface StoppingEngine extends EmbeddedEngine {
  /** Resolves with the reason once the engine stops, closed or ended by an error. */
  readonly ended: Promise<Error>;
  /** Its WebAssembly memory (an engine that cannot tell is never recycled). */
  memory?(): Promise<EngineMemory>;
}

/** When an engine whose memory grew is replaced by a new one (see RestartingEngine). */
export interface RecyclePolicy {
  /** How far the engine's memory must have grown past its figure after start. */
  growthBytes: number;
  /** How long the store must have had no statement running or started. */
  idleMs: number;
  /** At most this many recycles... */
  maxRecycles: number;
  /** ...within this long. */
  recycleWindowMs: number;
  /** How often the engine is looked at once idle. */
  checkMs: number;
}

/**
 * What a fresh engine touches as it works normally, past its figure after start, is bounded by
 * its settings: shared_buffers as pages are read, then a few MiB each of catalog caches, one sort
 * (work_mem, 4MB) and a vacuum (maintenance_work_mem, 8MB, see pglite-loader.ts). The margin
 * above shared_buffers is twice that, so a store that is merely used is never recycled (a recycle
 * that its next engine's working set would undo again is a loop); only what a large input made
 * it allocate is. The fuzz benchmark's large objects grow it by about that much again.
 */
export const RECYCLE_MARGIN_BYTES = 32 * 1024 * 1024;

/**
 * A recycle pauses every statement (about half a second, most of it the new engine's start), so
 * the store must have been quiet for a while: a burst of large writes is usually followed by
 * more. Less than 10 s: the server's own background writes (usage recording flushes every 10 s)
 * keep it from ever being quiet longer, and such a write may wait the pause out. Looking costs a
 * comparison each second, and a measure (under a millisecond, in the engine's thread) once per
 * quiet spell after statements ran. At most three recycles an hour whatever the figures say: a
 * backstop should the margin ever be too small for some working set (a pause every twenty
 * minutes at worst), with room for a burst that went on after a pause (the fuzz benchmark's
 * decodes keep the store quiet for seconds, and it is recycled then and again after).
 */
export function recyclePolicy(sharedBuffersBytes: number, overrides: Partial<RecyclePolicy> = {}): RecyclePolicy {
  return { growthBytes: sharedBuffersBytes + RECYCLE_MARGIN_BYTES, idleMs: 5_000, maxRecycles: 3, recycleWindowMs: 3_600_000, checkMs: 1_000, ...overrides };
}

/** The figure an engine's growth is judged by: its resident pages where they can be counted, its size otherwise. */
export const memoryFigure = (memory: EngineMemory): number => memory.residentBytes ?? memory.bytes;

export interface RecycleState {
  /** The engine's memory figure right after it started. */
  startFigure: number;
  /** Its figure now. */
  figure: number;
  /** How long no statement has run. */
  idleMs: number;
  /** How long ago each earlier recycle was. */
  recyclesAgoMs?: readonly number[];
}

/** Whether to replace the engine with a new one now (pure: RestartingEngine measures, this decides). */
export function shouldRecycle(policy: RecyclePolicy, state: RecycleState): boolean {
  if (state.figure - state.startFigure < policy.growthBytes) return false;
  if (state.idleMs < policy.idleMs) return false;
  return (state.recyclesAgoMs ?? []).filter((ago) => ago < policy.recycleWindowMs).length < policy.maxRecycles;
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
 *
 * With a `recycle` policy, an engine whose memory grew well past its figure after start is also
 * replaced, once the store has been idle a while: its WebAssembly memory never shrinks, and a
 * thread that ends gives it back. The old engine is shut down cleanly (a checkpoint) and the new
 * one starts on the same directory, within one hold of the session: statements wait meanwhile,
 * none fails, and no notification is missed.
 */
export class RestartingEngine implements EmbeddedEngine {
  private readonly logger = new Logger('EmbeddedStore');
  private readonly listening = new Map<number, Listening>();
  private nextListener = 1;
  private closing = false;
  private retry: NodeJS.Timeout | undefined;
  private delayMs = FIRST_RESTART_DELAY_MS;
  private failedStarts = 0;
  /** Statements (or transactions) running now, and when the last one started or ended. */
  private running = 0;
  private lastActiveAt = Date.now();
  /** Counts statements started, to tell whether the engine's memory may have changed since measured. */
  private started = 0;
  private measured: { started: number; engine: StoppingEngine; figure: number } | undefined;
  /** The current engine's memory figure right after it started. */
  private startFigure: number | undefined;
  /** When the recycles of the last window were (older ones are dropped). */
  private recycledAt: number[] = [];
  /** The engine being shut down by a recycle (its end is no failure). */
  private retiring: StoppingEngine | undefined;
  private checking = false;
  private readonly checker: NodeJS.Timeout | undefined;

  constructor(
    private current: StoppingEngine,
    private readonly start: () => Promise<StoppingEngine>,
    private readonly exclusive: <T>(fn: () => Promise<T>) => Promise<T>,
    private readonly recycle?: RecyclePolicy,
  ) {
    this.follow(current);
    if (recycle && current.memory) {
      void this.measureStart(current);
      this.checker = setInterval(() => void this.check(), recycle.checkMs);
      this.checker.unref();
    }
  }

  get closed(): boolean {
    return this.closing;
  }

  isInTransaction(): boolean {
    return this.current.isInTransaction();
  }

  query<T>(sql: string, params?: unknown[]): Promise<EngineResults<T>> {
    return this.track(this.current.query<T>(sql, params));
  }

  exec(sql: string): Promise<EngineResults[]> {
    return this.track(this.current.exec(sql));
  }

  /** On the engine of the moment: a transaction's statements never reach the next one. */
  transaction<T>(fn: (tx: EngineStatements) => Promise<T>): Promise<T> {
    return this.track(this.current.transaction(fn));
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
    clearInterval(this.checker);
    await this.current.close();
  }

  /** Counts a statement as running until `promise` settles: the store is idle when none is. */
  private track<T>(promise: Promise<T>): Promise<T> {
    // Only a store that may be recycled needs to know when it is idle.
    if (!this.checker) return promise;
    this.running++;
    this.started++;
    this.lastActiveAt = Date.now();
    const done = () => {
      this.running--;
      this.lastActiveAt = Date.now();
    };
    promise.then(done, done);
    return promise;
  }

  private async measureStart(engine: StoppingEngine): Promise<void> {
    try {
      const figure = memoryFigure(await engine.memory!());
      if (engine === this.current) this.startFigure = figure;
    } catch {
      // not measured: this engine is not recycled
    }
  }

  /** Once the store is idle, measures the engine (again only if statements ran since) and recycles it if it grew. */
  private async check(): Promise<void> {
    const policy = this.recycle!;
    const engine = this.current;
    if (this.checking || this.closing || this.running > 0 || this.startFigure === undefined || engine.closed || !engine.memory) return;
    if (Date.now() - this.lastActiveAt < policy.idleMs) return;
    this.checking = true;
    try {
      if (this.measured?.engine !== engine || this.measured.started !== this.started) {
        this.measured = { started: this.started, engine, figure: memoryFigure(await engine.memory()) };
      }
      const state = {
        startFigure: this.startFigure,
        figure: this.measured.figure,
        idleMs: this.running > 0 ? 0 : Date.now() - this.lastActiveAt,
        recyclesAgoMs: this.recycledAt.map((at) => Date.now() - at),
      };
      if (shouldRecycle(policy, state)) await this.recycleEngine(engine, state.startFigure, state.figure);
    } catch (err) {
      this.logger.debug(`the embedded store engine's memory was not looked at: ${(err as Error).message}`);
    } finally {
      this.checking = false;
    }
  }

  /** Shuts `old` down and starts a new engine in its place, holding the session throughout. */
  private async recycleEngine(old: StoppingEngine, startFigure: number, figure: number): Promise<void> {
    let waitedMs = 0;
    let fresh: number | undefined;
    const swapped = await this.exclusive(async () => {
      // Someone may have come and gone while this waited for the session: swapping is safe all the same.
      if (this.closing || old !== this.current || old.closed) return false;
      const held = performance.now();
      this.recycledAt = [...this.recycledAt.filter((at) => Date.now() - at < this.recycle!.recycleWindowMs), Date.now()];
      this.retiring = old;
      await old.close();
      let engine: StoppingEngine;
      try {
        engine = await this.startListening();
      } catch (err) {
        // As if it had ended by itself: started again with growing pauses, statements failing meanwhile.
        this.logger.error(`the embedded store engine did not start again after it was shut down to give its memory back: ${(err as Error).message}`);
        this.retiring = undefined;
        this.scheduleRestart();
        return false;
      }
      if (this.closing) return void (await engine.close()), false;
      this.adopt(engine);
      fresh = await this.figureOf(engine);
      if (fresh !== undefined) this.startFigure = fresh;
      waitedMs = performance.now() - held;
      return true;
    });
    if (!swapped) return;
    const mib = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MiB`;
    this.logger.log(
      `the embedded store engine's memory grew from ${mib(startFigure)} to ${mib(figure)}: started it anew to give it back ` +
        `(${fresh === undefined ? 'not measured' : mib(fresh)} now; statements waited ${waitedMs.toFixed(0)} ms)`,
    );
    // Unlike after an engine that ended, listeners are not woken: every commit ended before the
    // session was taken (its NOTIFY delivered before its answer), none could happen until the
    // new engine listened, and an empty wake-up makes the change feed read back what it lately
    // delivered (large rows, which grew the new engine again) and its informers list anew.
  }

  /** A new engine with every listener listening on it (closed again if one cannot). */
  private async startListening(): Promise<StoppingEngine> {
    const engine = await this.start();
    try {
      for (const entry of this.listening.values()) entry.unlisten = await engine.listen(entry.channel, entry.onNotify);
    } catch (err) {
      await engine.close().catch(() => undefined);
      throw err;
    }
    return engine;
  }

  /** `engine` answers from now on. */
  private adopt(engine: StoppingEngine): void {
    this.current = engine;
    this.retiring = undefined;
    this.measured = undefined;
    this.startFigure = undefined;
    this.follow(engine);
  }

  private async figureOf(engine: StoppingEngine): Promise<number | undefined> {
    if (!this.recycle || !engine.memory) return undefined;
    try {
      return memoryFigure(await engine.memory());
    } catch {
      return undefined;
    }
  }

  /** Once `engine` ends by itself, a new one is started. */
  private follow(engine: StoppingEngine): void {
    void engine.ended.then((reason) => {
      if (this.closing || engine !== this.current || engine === this.retiring) return;
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
        const engine = await this.startListening();
        if (this.closing) return void (await engine.close());
        this.adopt(engine);
        this.startFigure = await this.figureOf(engine);
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
