import { KubeObject } from '../../apimachinery/types';
import { keepListEncodings, listEncodingMade } from '../../runtime/serializer/kept-encodings';
import { Informer, InformerChangeListener } from './informer';
import { Change } from '../mvcc/object-store';
import { sortInSteps } from './stepwise-sort';

/**
 * How long the event loop makes list encodings ahead of lists before it lets other work in,
 * and how many objects it takes at a time.
 */
const WARM_SLICE_MS = 4;
const WARM_BATCH = 256;
/** Objects looked at per step of the pass that finds those without encodings. */
const SCAN_BATCH = 4096;
/** Written objects are encoded once no change has come for this long (writes come in bursts). */
export const WRITES_QUIET_MS = 1000;

export interface ListEncodingWarmerOptions {
  /** See WRITES_QUIET_MS (tests shorten it). */
  quietMs?: number;
}

/**
 * Objects in the store's key order (namespace, then name). UTF-16 order, which differs from the
 * store's bytewise order only for characters past U+FFFF: the order only decides how runs fall,
 * never what a list holds.
 */
function keyOrder(a: KubeObject, b: KubeObject): number {
  const x = a.metadata.namespace ?? '';
  const y = b.metadata.namespace ?? '';
  if (x !== y) return x < y ? -1 : 1;
  const m = a.metadata.name ?? '';
  const n = b.metadata.name ?? '';
  return m < n ? -1 : m > n ? 1 : 0;
}

/**
 * Makes the list encodings of an informer's objects (kept-encodings.ts) ahead of the first list
 * that holds them, in the store's key order, so a full list writes them as whole runs; a slice
 * at a time after the event loop's other work:
 * - after each list of the informer (a start, a relist), every object, in its order (the store's);
 * - once writes to the resource have been quiet for a while, every cached object that has no
 *   encoding (those the writes brought), found a step at a time and sorted into key order a step
 *   at a time. Nothing is kept per write meanwhile. Encoded a batch of changes at a time
 *   instead, they made runs of a few objects each, and a full list of 110,000 of those took 2.9
 *   times its floor, every time; left to the first list, it spent 8 times its floor encoding them.
 * The first full list of 110,000 bindings after a start otherwise spent about 4 times its
 * floor encoding them, and collecting the garbage of that, while its client waited; the
 * encodings are what that list kept anyway (about the objects' JSON size, held outside the
 * JavaScript heap).
 */
export class ListEncodingWarmer implements InformerChangeListener {
  /** Objects whose encodings are still to be made (from `at` on), in the order to make them. */
  private queue: KubeObject[] = [];
  private at = 0;
  /** Writes came since the last pass over written objects began. */
  private wrote = false;
  private lastWriteAt = 0;
  private quietTimer: NodeJS.Timeout | null = null;
  /** The pass over written objects: finding those without encodings (from `scanAt` on), then sorting them. */
  private scanning: KubeObject[] | null = null;
  private scanAt = 0;
  private found: KubeObject[] = [];
  private sorting: Generator<void, KubeObject[], undefined> | null = null;
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
    if (!changes.some((change) => change.key.resource === this.informer.resource && change.type !== 'DELETED')) return;
    this.wrote = true;
    this.lastWriteAt = performance.now();
    this.waitForQuiet(this.quietMs);
  }

  relisted(): void {
    // The list's objects are all current ones: the written ones among them are warmed with them.
    this.wrote = false;
    this.scanning = null;
    this.found = [];
    this.sorting = null;
    this.queue = [];
    this.at = 0;
    this.warm(this.informer.list());
  }

  /** Whether encodings are still to be made (or written objects wait for writes to go quiet). */
  pending(): boolean {
    return this.wrote || this.passRunning() || this.at < this.queue.length;
  }

  private passRunning(): boolean {
    return this.scanning !== null || this.sorting !== null;
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
      if (this.passRunning() || this.at < this.queue.length) return this.waitForQuiet(this.quietMs);
      if (!this.wrote) return;
      this.wrote = false;
      this.scanning = this.informer.list();
      this.scanAt = 0;
      this.found = [];
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
    while (performance.now() - started < WARM_SLICE_MS && this.step());
    if (this.at >= this.queue.length) {
      this.queue = [];
      this.at = 0;
    }
    if (this.at < this.queue.length || this.passRunning()) this.schedule();
  }

  /** One step of the work there is; false when there is none. */
  private step(): boolean {
    if (this.at < this.queue.length) {
      // Objects written again or deleted since the pass found them are not what lists hold.
      const batch = this.queue.slice(this.at, this.at + WARM_BATCH).filter((obj) => this.informer.get(obj.metadata.namespace ?? '', obj.metadata.name ?? '') === obj);
      this.at += WARM_BATCH;
      if (batch.length) this.make(batch);
      return true;
    }
    if (this.scanning) {
      const end = Math.min(this.scanAt + SCAN_BATCH, this.scanning.length);
      for (let i = this.scanAt; i < end; i++) if (!listEncodingMade(this.scanning[i])) this.found.push(this.scanning[i]);
      this.scanAt = end;
      if (end < this.scanning.length) return true;
      this.scanning = null;
      this.sorting = sortInSteps(this.found, keyOrder);
      this.found = [];
      return true;
    }
    if (this.sorting) {
      const next = this.sorting.next();
      if (next.done) {
        this.sorting = null;
        this.warm(next.value);
      }
      return true;
    }
    return false;
  }
}
