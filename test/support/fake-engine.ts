import type { EngineResults } from '../../src/storage/engine/embedded-engine';
import type { EngineMemory } from '../../src/storage/engine/pglite-loader';
import type { StoppingEngine } from '../../src/storage/engine/restarting-engine';

const MiB = 1024 * 1024;

/**
 * An embedded engine for tests of the wrapper that replaces it: it answers every statement with
 * its name until it is made to end (`end`) or closed, and reports the memory figure the test sets.
 */
export class FakeEngine implements StoppingEngine {
  closed = false;
  /** Resident bytes of its WebAssembly memory, as memory() reports them. */
  resident: number;
  private endWith!: (reason: Error) => void;
  readonly ended = new Promise<Error>((resolve) => (this.endWith = resolve));
  private failure: Error | undefined;
  readonly listeners: Array<{ channel: string; onNotify: (payload: string) => void }> = [];

  constructor(
    readonly name: string,
    resident = 40 * MiB,
  ) {
    this.resident = resident;
  }

  /** Ends by itself with `reason` (a PANIC): its statements fail with it from now on. */
  end(reason: Error): void {
    this.failure = reason;
    this.endWith(reason);
  }
  memory(): Promise<EngineMemory> {
    return this.closed ? Promise.reject(new Error('closed')) : Promise.resolve({ bytes: 128 * MiB, residentBytes: this.resident });
  }
  isInTransaction(): boolean {
    return false;
  }
  query<T>(): Promise<EngineResults<T>> {
    if (this.failure) return Promise.reject(this.failure);
    return this.closed ? Promise.reject(new Error(`${this.name} is closed`)) : Promise.resolve({ rows: [{ engine: this.name } as T], fields: [] });
  }
  exec(): Promise<EngineResults[]> {
    return this.failure ? Promise.reject(this.failure) : Promise.resolve([]);
  }
  transaction<T>(fn: (tx: this) => Promise<T>): Promise<T> {
    return fn(this);
  }
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    this.listeners.push({ channel, onNotify });
    return Promise.resolve(() => Promise.resolve());
  }
  close(): Promise<void> {
    this.closed = true;
    this.endWith(new Error('closed'));
    return Promise.resolve();
  }
}
