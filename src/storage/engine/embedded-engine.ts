import { Worker } from 'node:worker_threads';
import { spawnModuleThread } from '../../apimachinery/module-thread';
import { recordEmbeddedCall, recordEmbeddedFsync } from '../../metrics/storage-metrics';
import { endsTheEngine, engineEndedError, EngineErrorFields, PGliteDatabaseError } from './engine-errors';
import type { EngineMemory, PGliteSettings } from './pglite-loader';

/** A statement's outcome as PGlite gives it: json columns parsed, int8 and numeric as strings. */
export interface EngineResults<T = Record<string, unknown>> {
  rows: T[];
  fields: Array<{ name: string; dataTypeID: number }>;
  affectedRows?: number;
}

export interface EngineStatements {
  /** One statement with parameters (the extended protocol). */
  query<T>(sql: string, params?: unknown[]): Promise<EngineResults<T>>;
  /** Statements without parameters (the simple protocol: several may be given). */
  exec(sql: string): Promise<EngineResults[]>;
}

/** The part of PGlite's API the store uses, wherever the engine runs. */
export interface EmbeddedEngine extends EngineStatements {
  readonly closed: boolean;
  isInTransaction(): boolean;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: EngineStatements) => Promise<T>): Promise<T>;
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

// The messages between the server and the engine's thread (embedded-engine.worker.ts).

export interface EngineThreadData {
  dir: string | undefined;
  settings: PGliteSettings;
}

type EngineCall =
  | { op: 'query'; sql: string; params?: unknown[] }
  | { op: 'exec'; sql: string }
  | { op: 'listen'; channel: string; listener: number }
  | { op: 'unlisten'; listener: number }
  | { op: 'close' }
  | { op: 'memory' };

export type EngineRequest = EngineCall & { id: number };

export interface EngineFsync {
  file: 'wal' | 'data';
  seconds: number;
}

export type EngineReply =
  | { started: true }
  | { started: false; error: EngineErrorFields }
  | { notify: number; payload: string }
  /** The engine ended (a PANIC in its log) while a call was running: that call will never be answered. */
  | { ended: EngineErrorFields }
  | ({ id: number; inTransaction: boolean; calls: number[]; fsyncs: EngineFsync[] } & ({ result: unknown } | { error: EngineErrorFields }));

const JSON_OIDS = new Set([114, 3802]);

/** json and jsonb cross the thread as text (cheaper to copy than objects) and are parsed here. */
function parseJsonColumns<T>(result: EngineResults<T>): EngineResults<T> {
  const json = result.fields.filter((f) => JSON_OIDS.has(f.dataTypeID)).map((f) => f.name);
  if (json.length === 0) return result;
  for (const row of result.rows as Record<string, unknown>[]) {
    for (const name of json) {
      const text = row[name];
      if (typeof text === 'string') row[name] = JSON.parse(text);
    }
  }
  return result;
}

/**
 * The engine thread's JavaScript heap: its young generation small (V8's default lets it grow
 * to 16 MiB per semi-space), since what the thread allocates is short-lived message and result
 * objects. Measured: 20,000 RoleBindings 320 vs 330 MiB RSS, a fresh server 190 vs 222 MiB,
 * creates unchanged.
 */
const ENGINE_THREAD_LIMITS = { maxYoungGenerationSizeMb: 4 };

/** The engine's thread, running embedded-engine.worker.ts. */
function spawnEngineThread(data: EngineThreadData): Worker {
  return spawnModuleThread(__dirname, 'embedded-engine.worker', { workerData: data, resourceLimits: ENGINE_THREAD_LIMITS });
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/**
 * PGlite in a thread of its own. Every statement of the embedded engine, and each commit's
 * fsync, runs synchronously inside it: in this process's main thread a slow one (an fsync on
 * a busy disk, a vacuum) held every request and watch until it ended. Here the server posts
 * each statement and goes on; the thread answers in order. The caller still holds the
 * session (pglite-driver.ts) from a transaction's BEGIN to its end.
 */
export class EngineThread implements EmbeddedEngine {
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<number, (payload: string) => void>();
  private nextId = 1;
  private inTransaction = false;
  private stopped: Error | undefined;
  private closing: Promise<void> | undefined;
  private markEnded!: (reason: Error) => void;
  /** Resolves with the reason once the engine has stopped: closed, or ended by an error it cannot go on from. */
  readonly ended = new Promise<Error>((resolve) => (this.markEnded = resolve));

  private constructor(private readonly worker: Worker) {}

  /** Starts PGlite in a new thread, in `dir`; rejects with the engine's own error if it does not start. */
  static start(dir: string | undefined, settings: PGliteSettings): Promise<EngineThread> {
    const worker = spawnEngineThread({ dir, settings });
    return new Promise((resolve, reject) => {
      const failed = (err: Error) => {
        worker.off('message', started);
        void worker.terminate();
        reject(err);
      };
      const exited = (code: number) => failed(new Error(`the embedded store engine's thread ended while starting (exit ${code})`));
      const started = (reply: EngineReply) => {
        worker.off('error', failed).off('exit', exited).off('message', started);
        if (!('started' in reply)) return failed(new Error('the embedded store engine answered before it started'));
        if (!reply.started) return failed(PGliteDatabaseError.from(reply.error));
        resolve(new EngineThread(worker).attach());
      };
      worker.once('message', started).once('error', failed).once('exit', exited);
    });
  }

  get closed(): boolean {
    return this.stopped !== undefined;
  }

  isInTransaction(): boolean {
    return this.inTransaction;
  }

  async query<T>(sql: string, params?: unknown[]): Promise<EngineResults<T>> {
    return parseJsonColumns((await this.request({ op: 'query', sql, params })) as EngineResults<T>);
  }

  async exec(sql: string): Promise<EngineResults[]> {
    return ((await this.request({ op: 'exec', sql })) as EngineResults[]).map(parseJsonColumns);
  }

  async transaction<T>(fn: (tx: EngineStatements) => Promise<T>): Promise<T> {
    await this.exec('BEGIN');
    let result: T;
    try {
      result = await fn(this);
    } catch (err) {
      if (!this.closed && this.inTransaction) await this.exec('ROLLBACK').catch(() => undefined);
      throw err;
    }
    // A COMMIT that fails ends the transaction too.
    await this.exec('COMMIT');
    return result;
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    const listener = this.nextId++;
    this.listeners.set(listener, onNotify);
    try {
      await this.request({ op: 'listen', channel, listener });
    } catch (err) {
      this.listeners.delete(listener);
      throw err;
    }
    return async () => {
      if (!this.listeners.delete(listener) || this.closed) return;
      await this.request({ op: 'unlisten', listener });
    };
  }

  /** The engine's WebAssembly memory: its size, and how much of it is resident. */
  memory(): Promise<EngineMemory> {
    return this.request({ op: 'memory' }) as Promise<EngineMemory>;
  }

  /** Shuts the engine down (a checkpoint) and ends its thread. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        if (!this.closed) await this.request({ op: 'close' });
      } finally {
        this.stop(new Error('the embedded store is closed'));
        await this.worker.terminate();
      }
    })();
    return this.closing;
  }

  /** Wires the thread's replies and its end; returns this. */
  private attach(): this {
    // No request waiting: an idle engine does not keep the process alive (as PGlite in this thread did not).
    this.worker.unref();
    this.worker.on('message', (reply: EngineReply) => this.received(reply));
    this.worker.on('error', (err: Error) => this.stop(new Error(`the embedded store engine failed: ${err.message}`)));
    this.worker.on('exit', (code: number) => this.stop(new Error(`the embedded store engine's thread ended (exit ${code})`)));
    return this;
  }

  private request(call: EngineCall): Promise<unknown> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...call, id });
    });
  }

  private received(reply: EngineReply): void {
    if ('notify' in reply) {
      this.listeners.get(reply.notify)?.(reply.payload);
      return;
    }
    if ('ended' in reply) return this.end(reply.ended);
    if (!('id' in reply)) return;
    for (const seconds of reply.calls) recordEmbeddedCall(seconds);
    for (const { file, seconds } of reply.fsyncs) recordEmbeddedFsync(file, seconds);
    this.inTransaction = reply.inTransaction;
    const pending = this.pending.get(reply.id);
    if (pending) {
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.worker.unref();
      if ('error' in reply) pending.reject(PGliteDatabaseError.from(reply.error));
      else pending.resolve(reply.result);
    }
    if ('error' in reply && endsTheEngine(reply.error)) this.end(reply.error);
  }

  /** The thread's engine will never answer again: it goes, and every call waiting or to come fails with the cause. */
  private end(cause: EngineErrorFields): void {
    this.stop(engineEndedError(cause));
    void this.worker.terminate();
  }

  /** Every waiting request fails with `reason`, and every later one. */
  private stop(reason: Error): void {
    this.stopped ??= reason;
    this.markEnded(this.stopped);
    this.inTransaction = false;
    for (const pending of this.pending.values()) pending.reject(this.stopped);
    this.pending.clear();
    this.listeners.clear();
  }
}
