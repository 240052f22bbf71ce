/**
 * Runtime cost accounting for CEL evaluations. Every evaluated expression node costs one
 * unit and extension functions charge in proportion to the data they walk (strings, lists,
 * regular expressions), as kube's cost model does. An evaluation that goes past its budget
 * is stopped with an error, so a runaway expression cannot hold a request.
 */

/** kube's per-evaluation runtime cost limit (celconfig.PerCallLimit). */
export const DEFAULT_COST_LIMIT = 1_000_000;

/** How many units pass between two looks at the clock (reading it on every node is costly). */
const CLOCK_CHECK_INTERVAL = 1024;

export class CelBudgetExceededError extends Error {}

export interface EvaluationBudget {
  /** Cost units one evaluation may spend (default kube's per-call limit). */
  costLimit?: number;
  /** Wall-clock time one evaluation may take, in milliseconds (none by default). */
  timeLimitMs?: number;
}

export class CostMeter {
  private spent = 0;
  private nextClockCheck = CLOCK_CHECK_INTERVAL;
  private readonly deadline: number | undefined;

  constructor(
    private readonly limit: number,
    timeLimitMs?: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.deadline = timeLimitMs === undefined ? undefined : now() + timeLimitMs;
  }

  static for(budget: EvaluationBudget = {}): CostMeter {
    return new CostMeter(budget.costLimit ?? DEFAULT_COST_LIMIT, budget.timeLimitMs);
  }

  /** Units spent so far. */
  get cost(): number {
    return this.spent;
  }

  /**
   * Set once the budget is gone. CEL absorbs some errors (`true || error` is true, `all`
   * keeps iterating past a failed element), so evaluators must check this after a run:
   * an exhausted budget fails the whole evaluation, as kube's interrupt does.
   */
  exceeded: CelBudgetExceededError | undefined;

  charge(units: number): void {
    if (this.exceeded) throw this.exceeded;
    this.spent += units;
    if (this.spent > this.limit) this.trip('operation cancelled: actual cost limit exceeded');
    if (this.deadline !== undefined && this.spent >= this.nextClockCheck) {
      this.nextClockCheck = this.spent + CLOCK_CHECK_INTERVAL;
      if (this.now() > this.deadline) this.trip('operation interrupted: evaluation time limit exceeded');
    }
  }

  private trip(message: string): never {
    this.exceeded = new CelBudgetExceededError(message);
    throw this.exceeded;
  }
}

/** Evaluation is synchronous, so the meter of the evaluation in progress can live here. */
let activeMeter: CostMeter | undefined;

/** Charges the evaluation in progress (no-op outside one, e.g. constant folding in tests). */
export function chargeCost(units: number): void {
  activeMeter?.charge(units);
}

/** Runs `fn` with `meter` collecting every charge made meanwhile. */
export function metered<T>(meter: CostMeter, fn: () => T): T {
  const previous = activeMeter;
  activeMeter = meter;
  try {
    return fn();
  } finally {
    activeMeter = previous;
  }
}
