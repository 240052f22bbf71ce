import { AuthorizationResult } from './authorizer';

/** What one replica counted for one binding since its last flush. */
export interface PendingUsage {
  grants: number;
  /** Epoch milliseconds of the latest grant. */
  lastGranted: number;
}

/**
 * Counts, per binding uid, the allows each RBAC binding granted since the last flush (binding
 * usage). Recording is on the decision path, so it is one map lookup and two field writes:
 * no I/O and no allocation once a binding has been seen. The usage service takes the counts
 * every flush interval and writes them to the database in one statement.
 */
export class BindingUsageRecorder {
  private pending = new Map<string, PendingUsage>();
  private ticker: NodeJS.Timeout | undefined;
  private lastTick = 0;
  private now: () => number;

  constructor(
    /** `--binding-usage-recording`: off, nothing is counted (the benchmark compares both). */
    readonly enabled = true,
    /** A clock of the caller's (tests): used as is, never replaced by the ticking one. */
    private readonly clock?: () => number,
  ) {
    this.now = clock ?? Date.now;
  }

  /**
   * Reads the clock once a second instead of at every grant: times are kept to the second,
   * and reading the clock is most of what recording a grant costs.
   */
  startClock(): void {
    if (this.clock || this.ticker) return;
    this.lastTick = Date.now();
    this.ticker = setInterval(() => (this.lastTick = Date.now()), 1000);
    this.ticker.unref();
    this.now = () => this.lastTick;
  }

  stopClock(): void {
    clearInterval(this.ticker);
    this.ticker = undefined;
    this.now = this.clock ?? Date.now;
  }

  /** Counts the binding an allow names; other answers (and RBAC-less allows) count nothing. */
  record(result: AuthorizationResult): void {
    const uid = result.grantedBy?.uid;
    if (!uid || !this.enabled) return;
    const usage = this.pending.get(uid);
    if (usage) {
      usage.grants++;
      usage.lastGranted = this.now();
    } else this.pending.set(uid, { grants: 1, lastGranted: this.now() });
  }

  /** What was counted and not yet taken, for one binding (a list adds it to the flushed counts). */
  pendingFor(uid: string): PendingUsage | undefined {
    return this.pending.get(uid);
  }

  /** Hands over everything counted so far and starts counting afresh. */
  take(): Map<string, PendingUsage> {
    const taken = this.pending;
    this.pending = new Map();
    return taken;
  }

  /** Puts back counts a flush could not write, so the next flush writes them. */
  restore(taken: ReadonlyMap<string, PendingUsage>): void {
    for (const [uid, usage] of taken) {
      const current = this.pending.get(uid);
      if (!current) this.pending.set(uid, usage);
      else {
        current.grants += usage.grants;
        current.lastGranted = Math.max(current.lastGranted, usage.lastGranted);
      }
    }
  }

  /** A deleted binding's counts are dropped (its uid never grants again). */
  forget(uid: string): void {
    this.pending.delete(uid);
  }
}
