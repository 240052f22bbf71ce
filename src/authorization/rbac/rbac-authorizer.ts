import { UserInfo } from '../../apimachinery/user-info';
import { AuthorizationAttributes, AuthorizationResult, Authorizer, NonResourceRule, ResourceRule, RuleResolution } from '../authorizer';
import { aggregateErrors } from '../../apimachinery/aggregate-errors';
import { PolicyIndex, RuleSource, RuleVisiting } from './policy-index';
import { ruleAllows } from './rule-matching';
import { PolicyRule } from '../../apis/rbac/types';
import { StoreFollowingState } from '../decision-consistency';

/**
 * kube's RBAC authorizer over the policy index. Rules only add permissions, so it allows
 * or has no opinion, never denies. The first rule that matches allows, with a reason that
 * names the binding, role and subject. Without a match, errors met on the way (a roleRef
 * that does not resolve, a malformed subject naming the caller) become the reason
 * (`RBAC: ...`, as kube's 403 messages show them) and the evaluation error.
 */
export class RbacAuthorizer implements Authorizer {
  readonly type = 'RBAC';

  constructor(
    readonly name: string,
    private readonly rules: RuleVisiting & Pick<PolicyIndex, 'rulesFor'>,
    /** The index's progress through the store's changes, when it follows the store. */
    readonly followsStore?: StoreFollowingState,
  ) {}

  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    let allowedBy: RuleSource | undefined;
    let allowedRule: PolicyRule | undefined;
    let errors: string[] | undefined;
    this.rules.visitRulesFor(attrs.user, attrs.namespace, (source, rule, error) => {
      if (rule && source && ruleAllows(rule, attrs)) {
        allowedBy = source;
        allowedRule = rule;
        return false;
      }
      if (error) (errors ??= []).push(error);
      return true;
    });
    if (allowedBy !== undefined) return { decision: 'Allow', reason: allowedBy.allowReason(), grantedBy: allowedBy.binding, grantedByRule: allowedRule };
    if (!errors) return { decision: 'NoOpinion', reason: '' };
    const evaluationError = aggregateErrors(errors);
    return { decision: 'NoOpinion', reason: `RBAC: ${evaluationError}`, evaluationError };
  }

  /**
   * kube's RBAC RulesFor: every rule of the bindings applying in the namespace, split into
   * resource rules (those with resources) and non-resource rules (those with URLs). Never
   * incomplete: rules that could not be resolved are named in the evaluation error.
   */
  rulesFor(user: UserInfo, namespace: string): RuleResolution {
    const { rules, errors } = this.rules.rulesFor(user, namespace);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const rule of rules) {
      if (rule.resources?.length) {
        resourceRules.push({
          verbs: [...(rule.verbs ?? [])],
          apiGroups: [...(rule.apiGroups ?? [])],
          resources: [...rule.resources],
          ...(rule.resourceNames?.length ? { resourceNames: [...rule.resourceNames] } : {}),
        });
      }
      if (rule.nonResourceURLs?.length) nonResourceRules.push({ verbs: [...(rule.verbs ?? [])], nonResourceURLs: [...rule.nonResourceURLs] });
    }
    return { resourceRules, nonResourceRules, incomplete: false, ...(errors.length ? { evaluationError: aggregateErrors(errors) } : {}) };
  }
}
