import { KubeObject } from '../../apimachinery/types';
import { keepListEncodings } from '../../runtime/serializer/kept-encodings';
import { cacheKey, Informer, InformerChangeListener } from './informer';
import { Change, ObjectKey } from '../mvcc/object-store';
import { sortInSteps } from './stepwise-sort';

/**
 * How long the event loop makes list encodings ahead of lists before it lets other work in,
 * and how many objects it takes at a time.
 */
const WARM_SLICE_MS = 4;
const WARM_BATCH = 256;
/** Written objects are encoded once no change has come for this long (writes come in bursts). */
export const WRITES_QUIET_MS = 1000;

export interface ListEncodingWarmerOptions {
  /** See WRITES_QUIET_MS (tests shorten it). */
  quietMs?: number;
}

/** Store keys in the store's order (namespace, then name). UTF-16 order, which differs from the store's bytewise order only for characters past U+FFFF: the order only decides how runs fall, never what a list holds. */
const keyOrder = (a: ObjectKey, b: ObjectKey): number => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Makes the list encodings of an informer's objects (kept-encodings.ts) ahead of the first list
 * that holds them, in the store's key order, so a full list writes them as whole runs; a slice
 * at a time after the event loop's other work:
 * - after each list of the informer (a start, a relist), every object, in its order (the store's);
 * - once writes have been quiet for a while, the objects they brought that are still current,
 *   sorted into key order (a step at a time too). Encoded a batch of changes at a time instead,
 *   they made runs of a few objects each, and a full list of 110,000 of those took 2.9 times its
 *   floor, every time; left to the first list, it spent 8.8 times its floor encoding them.
 * The first full list of 110,000 bindings after a start otherwise spent about 4 times its
 * floor encoding them, and collecting the garbage of that, while its client waited; the
 * encodings are what that list kept anyway (about the objects' JSON size, held outside the
 * JavaScript heap).
 */
export class ListEncodingWarmer implements InformerChangeListener {
  /** Objects whose encodings are still to be made (from `at` on), in the order to make them. */
  private queue: KubeObject[] = [];
  private at = 0;
  /** Keys of objects written since the last pass over written objects began. */
  private written = new Map<string, ObjectKey>();
  private lastWriteAt = 0;
  private quietTimer: NodeJS.Timeout | null = null;
  /** The pass over written objects: sorting their keys, then encoding the objects (from `keyAt` on). */
  private sorting: Generator<void, ObjectKey[], undefined> | null = null;
  private keys: ObjectKey[] = [];
  private keyAt = 0;
  private scheduled: NodeJS.Immediate | null = null;
  private readonly quietMs: number;

  constructor(
    private readonly informer: Pick<Informer, 'list' | 'get' | 'resource'>,
    private readonly make: (objects: readonly KubeObject[]) => void = keepListEncodings,
    options: ListEncodingWarmerOptions = {},
  ) {
    this.quietMs = options.quietMs ?? WRITES_QUIET_MS;
  }

  applied(changes: readonly Change[]): void {
    let wrote = false;
    for (const change of changes) {
      if (change.key.resource !== this.informer.resource || change.type === 'DELETED') continue;
      this.written.set(cacheKey(change.key.namespace, change.key.name), change.key);
      wrote = true;
    }
    if (!wrote) return;
    this.lastWriteAt = performance.now();
    this.waitForQuiet(this.quietMs);
  }

  relisted(): void {
    // The list's objects are all current ones: the written ones among them are warmed with them.
    this.written = new Map();
    this.sorting = null;
    this.keys = [];
    this.keyAt = 0;
    this.queue = [];
    this.at = 0;
    this.warm(this.informer.list());
  }

  /** Whether encodings are still to be made (or written objects wait for writes to go quiet). */
  pending(): boolean {
    return this.at < this.queue.length || this.sorting !== null || this.keyAt < this.keys.length || this.written.size > 0;
  }

  private warm(objects: readonly KubeObject[]): void {
    if (!objects.length) return;
    for (const obj of objects) this.queue.push(obj);
    this.schedule();
  }

  private waitForQuiet(ms: number): void {
    if (this.quietTimer) return;
    this.quietTimer = setTimeout(() => {
      this.quietTimer = null;
      const quietFor = performance.now() - this.lastWriteAt;
      if (quietFor < this.quietMs) return this.waitForQuiet(this.quietMs - quietFor);
      // One pass at a time: the next starts when this one is done.
      if (this.sorting || this.keyAt < this.keys.length) return this.waitForQuiet(this.quietMs);
      if (!this.written.size) return;
      this.sorting = sortInSteps([...this.written.values()], keyOrder);
      this.written = new Map();
      this.schedule();
    }, ms);
    // Nothing waits for it: a process that is done may exit.
    this.quietTimer.unref();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = setImmediate(() => this.warmSome());
    this.scheduled.unref();
  }

  private warmSome(): void {
    this.scheduled = null;
    const started = performance.now();
    while (performance.now() - started < WARM_SLICE_MS) {
      if (this.at < this.queue.length) {
        this.make(this.queue.slice(this.at, this.at + WARM_BATCH));
        this.at += WARM_BATCH;
      } else if (this.sorting) {
        const step = this.sorting.next();
        if (step.done) {
          this.sorting = null;
          this.keys = step.value;
          this.keyAt = 0;
        }
      } else if (this.keyAt < this.keys.length) {
        const objects: KubeObject[] = [];
        // Only objects still current: one written again or deleted since is not what lists hold.
        for (const key of this.keys.slice(this.keyAt, this.keyAt + WARM_BATCH)) {
          const obj = this.informer.get(key.namespace, key.name);
          if (obj) objects.push(obj);
        }
        this.keyAt += WARM_BATCH;
        if (objects.length) this.make(objects);
      } else break;
    }
    if (this.at >= this.queue.length) {
      this.queue = [];
      this.at = 0;
    }
    if (!this.sorting && this.keyAt >= this.keys.length) {
      this.keys = [];
      this.keyAt = 0;
    }
    if (this.at < this.queue.length || this.sorting || this.keyAt < this.keys.length) this.schedule();
  }
}
