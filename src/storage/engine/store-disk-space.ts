import { recordDiskFullWrite } from '../../metrics/storage-metrics';

/**
 * How long a write refused for a full disk keeps `/readyz` failing. Nothing short of a write
 * tells that space is back (PostgreSQL's disk is not this process's to measure), and one write
 * stored proves little (a small one may fit in a page where a larger one does not): readiness
 * fails while refusals keep coming and for this long after the last, so it does not flap, and
 * a replica taken out of rotation (which then gets no write to try) comes back.
 */
export const DISK_FULL_REPORT_MS = 10_000;

/** What `/readyz` says while writes are refused for lack of space. */
export const DISK_FULL_REASON = "the store's disk is full";

/**
 * Whether the store's disk has lately been too full to store writes: counted on
 * `apiserver_storage_disk_full_total`, and `/readyz`'s `storage-space` check while it lasts.
 * Reads keep being served meanwhile, as kube's are while etcd refuses writes for space.
 */
export class StoreDiskSpace {
  private refusedAt: number | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** A write was refused: the disk holding the database is full. */
  refused(): void {
    this.refusedAt = this.now();
    recordDiskFullWrite();
  }

  /** The readiness check: fails while writes are refused for a full disk (and DISK_FULL_REPORT_MS after). */
  check(): void {
    if (this.refusedAt !== undefined && this.now() - this.refusedAt < DISK_FULL_REPORT_MS) throw new Error(DISK_FULL_REASON);
  }
}
