import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { spawnModuleThread } from '../../apimachinery/module-thread';
import { yieldToEventLoop } from './loop-turn';
import { CodecError, CodecOp, CodecResults, CodecTask, CodecTaskOf, errorFromCodec } from './codec-tasks';

/**
 * A small pool of threads that decode, patch and encode large payloads (src/runtime/offload/
 * codec-tasks.ts), so that parsing a 3 MiB YAML body or writing a list of 30,000-rule Roles as
 * YAML never holds the event loop (seconds each, measured by `npm run bench -- stalls`).
 * Threads start on first use and end after IDLE_MS without work, giving their memory back;
 * an idle thread does not keep the process alive. Work goes to the thread with the fewest
 * tasks waiting; each thread runs its tasks in order.
 */

/** One thread for two cores (the event loop and the store engine's thread have the others), two beyond. */
const THREADS = Math.min(2, Math.max(1, availableParallelism() - 1));
/** A thread with nothing to do this long ends (what it held of a large payload goes with it). */
const IDLE_MS = 10_000;

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

interface Reply {
  id: number;
  value?: unknown;
  error?: CodecError;
}

/** A codec thread, running codec-thread.worker.ts. */
function spawnCodecThread(): Worker {
  return spawnModuleThread(__dirname, 'codec-thread.worker');
}

class CodecThread {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  private failure: Error | undefined;

  constructor(
    private readonly worker: Worker,
    private readonly onEnd: (thread: CodecThread) => void,
  ) {
    worker.unref();
    worker.on('message', (reply: Reply) => this.received(reply));
    worker.on('error', (err: Error) => this.end(new Error(`a codec thread failed: ${err.message}`)));
    worker.on('exit', (code: number) => this.end(new Error(`a codec thread ended (exit ${code})`)));
    this.armIdleTimer();
  }

  get load(): number {
    return this.pending.size;
  }

  run(task: CodecTask, transfer: ArrayBuffer[]): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    clearTimeout(this.idleTimer);
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, task }, transfer);
    });
  }

  private received(reply: Reply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) {
      this.worker.unref();
      this.armIdleTimer();
    }
    if (reply.error) pending.reject(errorFromCodec(reply.error));
    else pending.resolve(reply.value);
  }

  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.end(new Error('the codec thread ended for being idle')), IDLE_MS);
    this.idleTimer.unref();
  }

  /** Every task waiting fails with `reason` (a thread that failed or was ended); the pool forgets it. */
  private end(reason: Error): void {
    if (this.failure) return;
    this.failure = reason;
    clearTimeout(this.idleTimer);
    for (const pending of this.pending.values()) pending.reject(reason);
    this.pending.clear();
    this.onEnd(this);
    void this.worker.terminate();
  }
}

class CodecThreadPool {
  private readonly threads: CodecThread[] = [];

  run<K extends CodecOp>(task: CodecTaskOf<K>, transfer: ArrayBuffer[] = []): Promise<CodecResults[K]> {
    return this.pick().run(task, transfer) as Promise<CodecResults[K]>;
  }

  private pick(): CodecThread {
    const idle = this.threads.find((t) => t.load === 0);
    if (idle) return idle;
    if (this.threads.length < THREADS) {
      const thread = new CodecThread(spawnCodecThread(), (ended) => this.forget(ended));
      this.threads.push(thread);
      return thread;
    }
    return this.threads.reduce((least, t) => (t.load < least.load ? t : least));
  }

  private forget(thread: CodecThread): void {
    const at = this.threads.indexOf(thread);
    if (at >= 0) this.threads.splice(at, 1);
  }
}

let pool: CodecThreadPool | undefined;

/**
 * Runs one codec task on a thread of the process's pool. A large result costs the event loop
 * its copy (the message's decoding); what the caller does with it comes in a later turn.
 */
export async function runOnCodecThread<K extends CodecOp>(task: CodecTaskOf<K>, transfer: ArrayBuffer[] = []): Promise<CodecResults[K]> {
  pool ??= new CodecThreadPool();
  const result = await pool.run(task, transfer);
  await yieldToEventLoop();
  return result;
}

/** A body's bytes in a buffer of their own, to hand to a thread without copying them again. */
export function ownBytes(body: Buffer): { bytes: Uint8Array; transfer: ArrayBuffer[] } {
  const bytes = new Uint8Array(body.byteLength);
  bytes.set(body);
  return { bytes, transfer: [bytes.buffer] };
}
