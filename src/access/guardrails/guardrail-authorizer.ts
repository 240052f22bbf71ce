import { UserInfo } from '../../apimachinery/user-info';
import { AuthorizationAttributes, AuthorizationResult, Authorizer, RuleResolution } from '../../authorization/authorizer';
import { StoreFollowingState } from '../../authorization/decision-consistency';
import { PolicyRule } from '../../apis/rbac/types';
import { GuardrailConflict, guardrailDenyingGrant } from './guardrail-grant-check';
import { GuardrailState } from './guardrail-state.service';

export const GUARDRAIL_AUTHORIZER_TYPE = 'Guardrail';

/**
 * The `Guardrail` authorizer: denies what an AccessGuardrail matches, otherwise has no
 * opinion. Placed first in the chain unless the configuration places it (only the
 * system:masters short-circuit comes before it), so no allow of RBAC, a webhook or any
 * later authorizer can override a guardrail.
 */
export class GuardrailAuthorizer implements Authorizer {
  readonly type = GUARDRAIL_AUTHORIZER_TYPE;
  readonly followsStore: StoreFollowingState;

  constructor(
    readonly name: string,
    private readonly state: GuardrailState,
  ) {
    this.followsStore = state.followsStore;
  }

  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    return this.state.decide(attrs);
  }

  /** Whether a guardrail in force matches the request, whoever makes it (only those can deny it). */
  mayDenySomeone(attrs: AuthorizationAttributes): boolean {
    return this.state.all.some((g) => g.matchesRequest(attrs, this.state.namespaceLabels));
  }

  /** The first guardrail that would deny `user` part of what `rules` allow in `namespace` (null: everywhere), among the requests `only` keeps. */
  denyingGrant(user: UserInfo, rules: readonly PolicyRule[], namespace: string | null, only?: (attrs: AuthorizationAttributes) => boolean): GuardrailConflict | undefined {
    return guardrailDenyingGrant(this.state, user, rules, namespace, only);
  }

  /**
   * Guardrails grant nothing. When one applies to the user, the other authorizers' rules
   * may list what it denies, so the answer says it is incomplete and names them.
   */
  rulesFor(user: UserInfo): RuleResolution {
    const applying = this.state.all.filter((g) => g.appliesTo(user)).map((g) => `"${g.name}"`);
    if (!applying.length) return { resourceRules: [], nonResourceRules: [], incomplete: false };
    return {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: `access guardrails ${applying.join(', ')} deny some requests these rules would allow`,
    };
  }
}
