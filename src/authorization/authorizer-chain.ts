import { Injectable } from '@nestjs/common';
import { UserInfo } from '../authentication/user-info';
import { AuthorizationAttributes, AuthorizationResult, Authorizer, NonResourceRule, ResourceRule, RuleResolution } from './authorizer';
import { privilegedGroupAuthorizer } from './authorizers';

/**
 * The authorizer chain: system:masters first (before any mode, as kube does), then the
 * configured authorizers in order. The first Allow or Deny decides; all NoOpinion is a deny.
 * A plain service, so access reviews can ask it questions without an HTTP request. The list
 * is replaced as a whole (start-up, configuration reload), so a decision sees one version.
 */
@Injectable()
export class AuthorizerChain {
  private configured: Authorizer[] = [];

  /** The configured authorizers, in order (system:masters not included). */
  get authorizers(): readonly Authorizer[] {
    return this.configured;
  }

  /** Installs a new list; returns the previous one so the caller can close what it no longer uses. */
  replace(authorizers: Authorizer[]): Authorizer[] {
    const previous = this.configured;
    this.configured = [...authorizers];
    return previous;
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const errors: string[] = [];
    for (const authorizer of [privilegedGroupAuthorizer, ...this.configured]) {
      const result = await authorizer.authorize(attrs);
      if (result.evaluationError) errors.push(result.evaluationError);
      if (result.decision !== 'NoOpinion') return { ...result, evaluationError: errors.join('; ') || undefined };
    }
    return { decision: 'NoOpinion', reason: '', evaluationError: errors.join('; ') || undefined };
  }

  /**
   * The union of the rules every authorizer can list for a user in a namespace; incomplete
   * (with an error naming them) when some authorizer cannot list rules, as kube's
   * SelfSubjectRulesReview reports.
   */
  async rulesFor(user: UserInfo, namespace: string): Promise<RuleResolution> {
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
    return { resourceRules, nonResourceRules, incomplete, ...(errors.length ? { evaluationError: errors.join(', ') } : {}) };
  }
}
