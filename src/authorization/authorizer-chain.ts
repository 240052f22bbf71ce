import { Injectable, Optional } from '@nestjs/common';
import { UserInfo } from '../apimachinery/user-info';
import { AuthorizationAttributes, AuthorizationResult, Authorizer, NonResourceRule, ResourceRule, RuleResolution } from './authorizer';
import { recordAuthorizationDecision } from '../metrics/authorization-metrics';
import { privilegedGroupAuthorizer } from './authorizers';
import { aggregateErrors } from '../apimachinery/aggregate-errors';
import { BindingUsageRecorder } from './binding-usage-recorder';
import { DecisionConsistency, StoreFollowingState } from './decision-consistency';

/** How a decision is asked for. */
export interface DecisionOptions {
  /** Receives each authorizer asked and its answer, in order (access explanations). */
  trace?: AuthorizerAnswer[];
  /**
   * When the request the decision is for arrived (performance.now()): the decision reflects
   * every write the store committed before then. Now, when not given.
   */
  arrivedAt?: number;
}

/** What the authorizers that had no opinion said, collected as a decision goes on. */
interface Undecided {
  errors: string[] | undefined;
  reasons: string[] | undefined;
}

/** One authorizer's answer to a question, as a traced decision records it. */
export interface AuthorizerAnswer {
  type: string;
  name: string;
  result: AuthorizationResult;
}

/**
 * The authorizer chain: system:masters first (before any mode, as kube does), then the
 * configured authorizers in order. The first Allow or Deny decides; all NoOpinion is a deny.
 * A plain service, so access reviews can ask it questions without an HTTP request. The list
 * is replaced as a whole (start-up, configuration reload), so a decision sees one version.
 * Past system:masters, a decision first waits until the state of the authorizers that follow
 * the store (RBAC, Node) has the store's revision as of the request's arrival.
 */
@Injectable()
export class AuthorizerChain {
  private configured: Authorizer[] = [];
  /** system:masters, then the configured ones: the order a decision asks them in. */
  private chain: Authorizer[] = [privilegedGroupAuthorizer];
  /** The state of the configured authorizers that follow the store. */
  private followed: StoreFollowingState[] = [];

  constructor(
    @Optional() private readonly usage?: BindingUsageRecorder,
    @Optional() private readonly consistency?: DecisionConsistency,
  ) {}

  /** The configured authorizers, in order (system:masters not included). */
  get authorizers(): readonly Authorizer[] {
    return this.configured;
  }

  /** Installs a new list; returns the previous one so the caller can close what it no longer uses. */
  replace(authorizers: Authorizer[]): Authorizer[] {
    const previous = this.configured;
    this.configured = [...authorizers];
    this.chain = [privilegedGroupAuthorizer, ...authorizers];
    this.followed = [...new Set(authorizers.flatMap((a) => (a.followsStore ? [a.followsStore] : [])))];
    return previous;
  }

  /**
   * Resolves once the authorizers' state reflects every write committed before `arrivedAt`
   * (now when not given): what reviews that read the state directly (rules reviews, who-can)
   * call first. Nothing to await when it already does.
   */
  consistent(arrivedAt?: number): void | Promise<void> {
    if (this.consistency?.everyDecision) return this.consistency.ensure(this.followed, arrivedAt);
  }

  /**
   * `trace`, when given, receives each authorizer asked and its answer, in order (the
   * access explanations show them). An untraced allow is a grant (a request's or an access
   * review's): the binding usage counts the RBAC binding that granted it. An explanation
   * grants nothing, so a traced decision is not counted.
   */
  async authorize(attrs: AuthorizationAttributes, options: DecisionOptions = {}): Promise<AuthorizationResult> {
    return this.decide(attrs, options);
  }

  /**
   * authorize's decision, at once when nothing has to be awaited (the authorizers' state has
   * caught up and each asked answers at once, as on almost every request), else a promise.
   * As kube's union authorizer: the deciding authorizer's answer stands alone; when nobody
   * decides, the reasons of all are joined by newlines and their errors aggregated. Asked on
   * every request: the lists are made only once some authorizer gives a reason.
   */
  decide(attrs: AuthorizationAttributes, options: DecisionOptions = {}): AuthorizationResult | Promise<AuthorizationResult> {
    const chain = this.chain;
    const undecided: Undecided = { errors: undefined, reasons: undefined };
    for (let i = 0; i < chain.length; i++) {
      // system:masters needs no state; the configured authorizers wait for theirs to catch up.
      if (i === 1) {
        const caughtUp = this.consistent(options.arrivedAt);
        if (caughtUp) return this.decideLater(chain, i, caughtUp, undefined, attrs, options, undecided);
      }
      const answer = chain[i].authorize(attrs);
      if (answer instanceof Promise) return this.decideLater(chain, i, undefined, answer, attrs, options, undecided);
      if (this.decides(chain[i], answer, attrs, options.trace, undecided)) return answer;
    }
    return this.noOpinion(attrs, options.trace, undecided);
  }

  /**
   * The rest of a decision from authorizer `from` on, once something is awaited: the state
   * catching up before `from` asks, or the answer `from` gave.
   */
  private async decideLater(
    chain: Authorizer[],
    from: number,
    caughtUp: Promise<void> | undefined,
    pendingAnswer: Promise<AuthorizationResult> | undefined,
    attrs: AuthorizationAttributes,
    options: DecisionOptions,
    undecided: Undecided,
  ): Promise<AuthorizationResult> {
    for (let i = from; i < chain.length; i++) {
      let result: AuthorizationResult;
      if (i === from && pendingAnswer) result = await pendingAnswer;
      else {
        if (i === from && caughtUp) await caughtUp;
        else if (i === 1) {
          const wait = this.consistent(options.arrivedAt);
          if (wait) await wait;
        }
        const answer = chain[i].authorize(attrs);
        result = answer instanceof Promise ? await answer : answer;
      }
      if (this.decides(chain[i], result, attrs, options.trace, undecided)) return result;
    }
    return this.noOpinion(attrs, options.trace, undecided);
  }

  /** Records an authorizer's answer; whether it decides (else its reason and error are kept). */
  private decides(authorizer: Authorizer, result: AuthorizationResult, attrs: AuthorizationAttributes, trace: AuthorizerAnswer[] | undefined, undecided: Undecided): boolean {
    trace?.push({ type: authorizer.type, name: authorizer.name, result });
    if (result.decision !== 'NoOpinion') {
      // kube instruments the configured authorizers only, not the system:masters shortcut.
      if (authorizer !== privilegedGroupAuthorizer) {
        recordAuthorizationDecision(authorizer, result.decision === 'Allow' ? 'allowed' : 'denied');
        if (!trace && result.grantedBy) this.usage?.record(result, attrs);
        else if (!trace && result.decision === 'Deny') this.usage?.recordDenied(attrs);
      }
      return true;
    }
    if (result.evaluationError) (undecided.errors ??= []).push(result.evaluationError);
    if (result.reason) (undecided.reasons ??= []).push(result.reason);
    return false;
  }

  /** The decision when no authorizer decides. */
  private noOpinion(attrs: AuthorizationAttributes, trace: AuthorizerAnswer[] | undefined, { errors, reasons }: Undecided): AuthorizationResult {
    if (!trace) this.usage?.recordDenied(attrs);
    return { decision: 'NoOpinion', reason: reasons?.join('\n') ?? '', ...(errors ? { evaluationError: aggregateErrors(errors) } : {}) };
  }

  /**
   * The union of the rules every authorizer can list for a user in a namespace; incomplete
   * (with an error naming them) when some authorizer cannot list rules, as kube's
   * SelfSubjectRulesReview reports.
   */
  async rulesFor(user: UserInfo, namespace: string, arrivedAt?: number): Promise<RuleResolution> {
    await this.consistent(arrivedAt);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    const errors: string[] = [];
    let incomplete = false;
    for (const authorizer of this.configured) {
      if (!authorizer.rulesFor) {
        incomplete = true;
        errors.push(`authorizer ${authorizer.name} (${authorizer.type}) cannot list rules`);
        continue;
      }
      const r = await authorizer.rulesFor(user, namespace);
      resourceRules.push(...r.resourceRules);
      nonResourceRules.push(...r.nonResourceRules);
      if (r.incomplete) incomplete = true;
      if (r.evaluationError) errors.push(r.evaluationError);
    }
    // kube aggregates the resolvers' errors: one as is, several as `[a, b]`.
    return { resourceRules, nonResourceRules, incomplete, ...(errors.length ? { evaluationError: aggregateErrors(errors) } : {}) };
  }
}
