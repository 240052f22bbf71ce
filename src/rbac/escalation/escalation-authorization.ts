import { Logger } from '@nestjs/common';
import { SYSTEM_MASTERS, UserInfo } from '../../apimachinery/user-info';
import { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../../authorization/authorizer';
import { alwaysAllowAuthorizer } from '../../authorization/authorizers';
import { resourceAttributes } from '../../authorization/request-attributes';
import { RBAC_GROUP, RoleRef } from '../../apis/rbac/types';

/** The resources whose writes can escalate, as the escalate and bind checks name them. */
export type RoleResource = 'roles' | 'clusterroles';

const ROLE_RESOURCE_OF_KIND: Record<string, RoleResource> = { Role: 'roles', ClusterRole: 'clusterroles' };

/** kube's EscalationAllowed: members of system:masters may grant anything. */
export function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes(SYSTEM_MASTERS);
}

/**
 * Answers whether a caller holds `escalate` on a role resource or `bind` on a role, as
 * kube's RoleEscalationAuthorized and BindingAuthorized ask the server's authorizers.
 *
 * Escalation prevention holds whatever the authorization mode, so these questions are not
 * put to AlwaysAllow (kube's would answer yes to everyone and switch the prevention off).
 * The other configured authorizers are asked in order, first decision wins; when none
 * decides, the RBAC policy is asked even if RBAC authorization is off, since the
 * permissions a caller holds are read from the RBAC objects in every mode too.
 */
export class EscalationAuthorizer {
  private readonly log = new Logger('EscalationAuthorizer');

  constructor(
    /** The configured chain, read at each question (it is replaced on reload). */
    private readonly configured: () => readonly Authorizer[],
    /** An RBAC authorizer over the server's policy. */
    private readonly rbac: Authorizer,
    /** Told of each allow (a `bind` or `escalate` granted is a grant: binding usage counts it). */
    private readonly onAllow: (result: AuthorizationResult) => void = () => undefined,
  ) {}

  /** `escalate` on roles/clusterroles, with the request's namespace and name ('' for a POST). */
  mayEscalate(user: UserInfo, resource: RoleResource, namespace: string, name: string): Promise<boolean> {
    return this.allows(resourceAttributes({ user, verb: 'escalate', apiGroup: RBAC_GROUP, apiVersion: '*', resource, namespace, name }));
  }

  /**
   * `bind` on the referenced role, asked in the binding's namespace ('' for a
   * ClusterRoleBinding), so it can be delegated per namespace and per role name.
   */
  mayBind(user: UserInfo, roleRef: RoleRef, bindingNamespace: string): Promise<boolean> {
    const resource = ROLE_RESOURCE_OF_KIND[roleRef.kind];
    if (!resource) return Promise.resolve(false);
    return this.allows(
      resourceAttributes({ user, verb: 'bind', apiGroup: roleRef.apiGroup, apiVersion: '', resource, namespace: bindingNamespace, name: roleRef.name }),
    );
  }

  private async allows(attrs: AuthorizationAttributes): Promise<boolean> {
    const asked = this.configured().filter((a) => a.type !== alwaysAllowAuthorizer.type);
    if (!asked.some((a) => a.type === this.rbac.type)) asked.push(this.rbac);
    for (const authorizer of asked) {
      try {
        const result = await authorizer.authorize(attrs);
        if (result.decision === 'Allow') this.onAllow(result);
        if (result.decision !== 'NoOpinion') return result.decision === 'Allow';
      } catch (err) {
        // As kube's union: an authorizer that fails has no opinion.
        this.log.warn(`authorizer ${authorizer.name} failed to answer ${attrs.verb} on ${attrs.resource}: ${(err as Error).message}`);
      }
    }
    return false;
  }
}
