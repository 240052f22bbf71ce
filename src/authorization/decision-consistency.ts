import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { StatusError } from '../apimachinery/errors';
import { CurrentRevision } from '../storage/mvcc/current-revision';
import { storageFailureOf } from '../storage/engine/storage-errors';
import { recordDecisionConsistencyWait } from '../metrics/authorization-metrics';

/** State an authorizer decides from that follows the store's changes (the RBAC index, the Node graph). */
export interface StoreFollowingState {
  /** Every change of the store up to this revision is applied. */
  appliedRevision(): bigint;
  /** Resolves true once `revision` is applied, false after `timeoutMs`. */
  waitForRevision(revision: bigint, timeoutMs: number): Promise<boolean>;
}

/** How long a decision waits for the indexes to apply the store's revision before it is refused. */
export const DECISION_CONSISTENCY_TIMEOUT_MS = 3000;
/** While it waits, it looks this often whether the store still answers the change feed. */
const STORE_CHECK_STEP_MS = 250;

/**
 * Decisions that never contradict an acknowledged write, on any replica (the "new enemy"
 * problem Zanzibar's consistency tokens solve; kube-apiserver has it, kubernetes#41077):
 * before an authorizer that answers from state fed by the change feed decides, that state
 * must have applied every change the store committed before the request arrived. The
 * store's revision is read once for the requests that arrive together (CurrentRevision;
 * no read at all when this process is the store's only writer), then the decision waits
 * until the state has it. Past DECISION_CONSISTENCY_TIMEOUT_MS the answer is 503 with
 * Retry-After, never a stale decision.
 *
 * While the store cannot be read at all no write can be acknowledged either, so decisions
 * go on from the state as it is (an outage must not stop authorization: DESIGN's
 * "decisions keep being served from memory"); the metric counts them. The same holds for a
 * decision whose revision was read just before the store went away: when its wait runs out
 * while the change feed cannot read the store either, it is decided from the state as it is.
 */
export class DecisionConsistency {
  private readonly logger = new Logger('DecisionConsistency');
  private unreadable = false;

  constructor(
    private readonly revision: CurrentRevision,
    /** `--consistent-authorization`: whether every decision waits (escalation checks always do). */
    readonly everyDecision: boolean,
    private readonly timeoutMs = DECISION_CONSISTENCY_TIMEOUT_MS,
    /** Whether the store answers the change feed now (false while its reads fail or hang: an outage, a failover). */
    private readonly storeFollowed: () => boolean = () => true,
  ) {}

  /**
   * Resolves once every `state` has applied the store's revision as of `arrivedAt`
   * (performance.now(); now when not given). Nothing to await when they already have it.
   */
  ensure(states: readonly StoreFollowingState[], arrivedAt?: number): void | Promise<void> {
    if (states.length === 0) return;
    let revision: bigint | Promise<bigint>;
    try {
      revision = this.revision.since(arrivedAt);
    } catch (err) {
      return this.readFailed(err);
    }
    if (typeof revision === 'bigint') {
      if (states.every((s) => s.appliedRevision() >= revision)) return;
      return this.waitFor(states, revision);
    }
    return revision.then(
      (r) => {
        this.readSucceeded();
        if (states.every((s) => s.appliedRevision() >= r)) return;
        return this.waitFor(states, r);
      },
      (err) => this.readFailed(err),
    );
  }

  private async waitFor(states: readonly StoreFollowingState[], revision: bigint): Promise<void> {
    const started = performance.now();
    for (const state of states) {
      while (state.appliedRevision() < revision) {
        const left = this.timeoutMs - (performance.now() - started);
        // In steps, so a store that went away after its revision was read is noticed within one.
        if (left > 0 && (await state.waitForRevision(revision, Math.min(left, STORE_CHECK_STEP_MS)))) break;
        // The store went away after its revision was read: as when it cannot be read at all.
        if (!this.storeFollowed()) return this.storeAway('the change feed cannot read it');
        if (performance.now() - started < this.timeoutMs) continue;
        recordDecisionConsistencyWait('timeout', (performance.now() - started) / 1000);
        throw new StatusError(
          503,
          'ServiceUnavailable',
          `authorization is not yet up to date with the store (revision ${revision}); try again`,
          { retryAfterSeconds: 1 },
          { 'Retry-After': '1' },
        );
      }
    }
    recordDecisionConsistencyWait('caught-up', (performance.now() - started) / 1000);
  }

  private readSucceeded(): void {
    if (!this.unreadable) return;
    this.unreadable = false;
    this.logger.log('reading the store revision again: decisions wait for it');
  }

  /** The store is unreachable: decide from the state as it is (nothing new can be acknowledged meanwhile). */
  private readFailed(err: unknown): void {
    const failure = storageFailureOf(err);
    if (failure !== 'unavailable' && failure !== 'timeout') throw err;
    this.storeAway(`its revision cannot be read: ${(err as Error).message}`);
  }

  private storeAway(why: string): void {
    recordDecisionConsistencyWait('store-unavailable', 0);
    if (this.unreadable) return;
    this.unreadable = true;
    this.logger.warn(`the store is away (${why}): deciding from the indexes as they are until its revision can be read`);
  }
}
