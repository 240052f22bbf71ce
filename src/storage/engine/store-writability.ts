import { performance } from 'node:perf_hooks';
import { withinTimeout } from '../../health/health-checks';
import { storageFailureOf } from './storage-errors';
import { DISK_FULL_REASON } from './store-disk-space';

/** How long the write of `/readyz`'s `storage-writable` check may take. */
export const WRITE_CHECK_TIMEOUT_MS = 2000;

/** The check's write: one row, committed as the store's writes are (a synchronous standby waited for). */
export const WRITE_CHECK = `UPDATE write_check SET written_at = now() WHERE id = 1`;

/**
 * `/readyz`'s `storage-writable` check: a real write, so readiness passes only when a write
 * would. `SELECT 1` (the `storage` check) is answered by a standby, a demoted primary and a
 * primary whose commits wait for a synchronous standby that is not there; none of them stores
 * a write. Callers that arrive while a write is under way share it; one that has not completed
 * within the timeout fails the check at once (no second write piles up behind a hung one)
 * until it ends.
 */
export class StoreWritability {
  private pending: { startedAt: number; done: Promise<void> } | null = null;

  constructor(
    private readonly write: () => Promise<unknown>,
    private readonly timeoutMs = WRITE_CHECK_TIMEOUT_MS,
  ) {}

  async check(): Promise<void> {
    const pending = this.pending ?? this.begin();
    const left = this.timeoutMs - (performance.now() - pending.startedAt);
    if (left <= 0) throw new Error(timeoutReason(this.timeoutMs));
    try {
      await withinTimeout(pending.done, left, 'the store');
    } catch (err) {
      if (/did not answer/.test((err as Error).message)) throw new Error(timeoutReason(this.timeoutMs));
      throw new Error(reasonOf(err));
    }
  }

  private begin(): { startedAt: number; done: Promise<void> } {
    const probe = { startedAt: performance.now(), done: this.write().then(() => undefined) };
    this.pending = probe;
    const settled = () => {
      if (this.pending === probe) this.pending = null;
    };
    probe.done.then(settled, settled);
    return probe;
  }
}

const timeoutReason = (ms: number) => `a write to the store did not complete within ${ms / 1000}s`;

/** Worded by the server, never by the driver (its text names hosts). */
function reasonOf(err: unknown): string {
  switch (storageFailureOf(err)) {
    case 'read-only':
      return 'the store is read-only (a standby, or a server set read-only)';
    case 'unavailable':
      return 'the store is unreachable';
    case 'timeout':
      return timeoutReason(WRITE_CHECK_TIMEOUT_MS);
    case 'disk-full':
      return DISK_FULL_REASON;
    case 'insufficient-resources':
      return 'the store is out of resources';
    default:
      return 'the store refused a write';
  }
}
