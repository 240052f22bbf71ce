import { KubeObject } from '../../apimachinery/types';
import { keepListEncodings } from '../../runtime/serializer/kept-encodings';
import { Informer, InformerChangeListener } from './informer';
import { Change } from '../mvcc/object-store';

/**
 * How long the event loop makes list encodings ahead of lists before it lets other work in,
 * and how many objects it takes at a time.
 */
const WARM_SLICE_MS = 4;
const WARM_BATCH = 256;

/**
 * Makes the list encodings of an informer's objects (kept-encodings.ts) ahead of the first list
 * that holds them, after each list of the informer (a start, a relist): in its order, the
 * store's key order, so a full list writes them as whole runs. A slice at a time after the
 * event loop's other work. The first full list of 110,000 bindings after a start otherwise
 * spent about 4 times its floor encoding them, and collecting the garbage of that, while its
 * client waited; the encodings are what that list kept anyway (about the objects' JSON size,
 * held outside the JavaScript heap). Objects that changes bring are left to the first list
 * that holds them: encoded a batch of changes at a time, they made runs of a few objects
 * each, and a full list of 110,000 of those took 2.9 times its floor, every time, instead of 1.1.
 */
export class ListEncodingWarmer implements InformerChangeListener {
  /** Objects whose encodings are still to be made (from `at` on), in the order to make them. */
  private queue: KubeObject[] = [];
  private at = 0;
  private scheduled: NodeJS.Immediate | null = null;

  constructor(
    private readonly informer: Pick<Informer, 'list'>,
    private readonly make: (objects: readonly KubeObject[]) => void = keepListEncodings,
  ) {}

  applied(_changes: readonly Change[]): void {
    // See the class: a list encodes changed objects in its own order.
  }

  relisted(): void {
    this.queue = [];
    this.at = 0;
    this.warm(this.informer.list());
  }

  /** Whether encodings are still to be made. */
  pending(): boolean {
    return this.at < this.queue.length;
  }

  private warm(objects: readonly KubeObject[]): void {
    if (!objects.length) return;
    for (const obj of objects) this.queue.push(obj);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = setImmediate(() => this.warmSome());
    // Nothing waits for it: a process that is done may exit.
    this.scheduled.unref();
  }

  private warmSome(): void {
    this.scheduled = null;
    const started = performance.now();
    while (this.at < this.queue.length && performance.now() - started < WARM_SLICE_MS) {
      this.make(this.queue.slice(this.at, this.at + WARM_BATCH));
      this.at += WARM_BATCH;
    }
    if (this.pending()) return this.schedule();
    this.queue = [];
    this.at = 0;
  }
}
