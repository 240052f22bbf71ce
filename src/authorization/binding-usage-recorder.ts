import { AuthorizationAttributes, AuthorizationResult } from './authorizer';

/**
 * Where the details of a decision go besides the binding's count (rule-level usage and
 * refused attributes, attached by the access module): called on the decision path, so it
 * must only update memory. `now` is the recorder's clock (to the second).
 */
export interface DecisionDetailSink {
  allowed(result: AuthorizationResult, attrs: AuthorizationAttributes, now: number): void;
  denied(attrs: AuthorizationAttributes, now: number): void;
}

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
  private detail: DecisionDetailSink | undefined;

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

  /** Sends the details of each decision recorded from now on to `sink` as well. */
  attach(sink: DecisionDetailSink): void {
    this.detail = sink;
  }

  /**
   * Counts the binding an allow names; other answers (and RBAC-less allows) count nothing.
   * With the request's attributes, the attached sink also gets the rule and what was used.
   */
  record(result: AuthorizationResult, attrs?: AuthorizationAttributes): void {
    const uid = result.grantedBy?.uid;
    if (!uid || !this.enabled) return;
    const now = this.now();
    const usage = this.pending.get(uid);
    if (usage) {
      usage.grants++;
      usage.lastGranted = now;
    } else this.pending.set(uid, { grants: 1, lastGranted: now });
    if (attrs && this.detail) this.detail.allowed(result, attrs, now);
  }

  /** A request or access review the chain did not allow: the attached sink records what was refused. */
  recordDenied(attrs: AuthorizationAttributes): void {
    if (this.enabled && this.detail) this.detail.denied(attrs, this.now());
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
