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
    const trace = options.trace;
    // As kube's union authorizer: the deciding authorizer's answer stands alone; when nobody
    // decides, the reasons of all are joined by newlines and their errors aggregated.
    // Asked on every request: the lists are made only once some authorizer gives a reason,
    // and an authorizer that answers at once is not awaited.
    let errors: string[] | undefined;
    let reasons: string[] | undefined;
    const chain = this.chain;
    for (let i = 0; i < chain.length; i++) {
      const authorizer = chain[i];
      // system:masters needs no state; the configured authorizers wait for theirs to catch up.
      if (i === 1) {
        const caughtUp = this.consistent(options.arrivedAt);
        if (caughtUp) await caughtUp;
      }
      const answer = authorizer.authorize(attrs);
      const result = answer instanceof Promise ? await answer : answer;
      trace?.push({ type: authorizer.type, name: authorizer.name, result });
      if (result.decision !== 'NoOpinion') {
        // kube instruments the configured authorizers only, not the system:masters shortcut.
        if (authorizer !== privilegedGroupAuthorizer) {
          recordAuthorizationDecision(authorizer, result.decision === 'Allow' ? 'allowed' : 'denied');
          if (!trace && result.grantedBy) this.usage?.record(result, attrs);
          else if (!trace && result.decision === 'Deny') this.usage?.recordDenied(attrs);
        }
        return result;
      }
      if (result.evaluationError) (errors ??= []).push(result.evaluationError);
      if (result.reason) (reasons ??= []).push(result.reason);
    }
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
