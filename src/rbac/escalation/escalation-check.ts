import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { errors } from '../../apimachinery/errors';
import { AdmissionRequest } from '../../registry/rest/admission';
import { KubeObject } from '../../apimachinery/types';
import { UserInfo } from '../../apimachinery/user-info';
import { AuthorizerChain } from '../../authorization/authorizer-chain';
import { BindingUsageRecorder } from '../../authorization/binding-usage-recorder';
import { RbacAuthorizer } from '../../authorization/rbac/rbac-authorizer';
import { DecisionConsistency } from '../../authorization/decision-consistency';
import { RbacIndex } from '../../authorization/rbac/rbac-index.service';
import { OBJECT_STORE, ObjectStore } from '../../storage/mvcc/object-store';
import { ClusterRole, PolicyRule, RBAC_GROUP, RoleBinding } from '../../apis/rbac/types';
import { EscalationAuthorizer, escalationAllowed, RoleResource } from './escalation-authorization';
import { isOnlyMutatingGcFields } from './gc-fields';
import { confirmNoEscalation, FULL_AUTHORITY } from './no-escalation';
import { Authorizer } from '../../authorization/authorizer';
import { goQuote, goQuoteList } from '../../apimachinery/go-text';

/**
 * An authorizer that can say whether it would deny a user part of what rules grant (the
 * Guardrail authorizer): holding a permission RBAC grants but a guardrail denies is not
 * holding it, so it cannot be granted on.
 */
interface GrantDenier {
  denyingGrant(user: UserInfo, rules: readonly PolicyRule[], namespace: string | null): { guardrail: string; reason: string } | undefined;
}
const isGrantDenier = (a: Authorizer): a is Authorizer & GrantDenier => typeof (a as Partial<GrantDenier>).denyingGrant === 'function';

/** How long a check waits for the policy index to reach the store's current revision. */
const INDEX_SYNC_TIMEOUT_MS = 3000;

const ROLE_RESOURCES: ReadonlySet<string> = new Set<RoleResource>(['roles', 'clusterroles']);
const BINDING_RESOURCES: ReadonlySet<string> = new Set(['rolebindings', 'clusterrolebindings']);

function hasAggregationRule(role: KubeObject | undefined): boolean {
  const selectors = (role as ClusterRole | undefined)?.aggregationRule?.clusterRoleSelectors;
  return Array.isArray(selectors) && selectors.length > 0;
}

/**
 * RBAC's escalation prevention, the check of kube's rbac `policybased` storages: the
 * PolicyBasedStorage wrapping the Role, ClusterRole, RoleBinding and ClusterRoleBinding
 * storages runs it on every create and update of those kinds whatever the authorization
 * mode, at the point of the generic storage's write validation, so POST, PUT, every patch
 * type, server-side apply and dry runs all pass through it once.
 *
 * - A role may be written by a caller who holds `escalate` on its resource, or who already
 *   holds every permission it grants at its scope (its namespace; the cluster for a
 *   ClusterRole). Setting or changing an aggregationRule needs every permission.
 * - A binding may be written by a caller who holds `bind` on the role it references, or
 *   every permission of that role at the binding's scope.
 * - system:masters may do both; an update that only touches owner references or
 *   finalizers grants nothing and is not checked.
 */
@Injectable()
export class RbacEscalationCheck {
  private readonly log = new Logger('RbacEscalation');
  private readonly authorizer: EscalationAuthorizer;

  constructor(
    private readonly index: RbacIndex,
    private readonly chain: AuthorizerChain,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    @Optional() usage?: BindingUsageRecorder,
    @Optional() private readonly consistency?: DecisionConsistency | null,
  ) {
    this.authorizer = new EscalationAuthorizer(() => chain.authorizers, new RbacAuthorizer('rbac', index), (result) => usage?.record(result));
  }

  /** Refuses (403, or 404 for a binding's missing role) a create or update that would escalate. */
  async check(request: AdmissionRequest): Promise<void> {
    const { target, operation, object, old } = request;
    const resource = target.type.plural;
    const isRole = ROLE_RESOURCES.has(resource);
    if (operation === 'DELETE' || target.type.group !== RBAC_GROUP || (!isRole && !BINDING_RESOURCES.has(resource))) return;
    const user = request.options.user;
    if (escalationAllowed(user)) return;
    if (operation === 'UPDATE' && old && isOnlyMutatingGcFields(object, old)) return;
    await this.syncPolicy(request.options.receivedAt);
    // A Role and a RoleBinding act in their namespace, the cluster-scoped kinds cluster-wide.
    const namespace = target.type.namespaced ? target.namespace : '';
    if (isRole) {
      const pathName = operation === 'CREATE' ? (request.pathName ?? target.name) : target.name;
      await this.checkRole(request, user, resource as RoleResource, namespace, pathName);
    } else {
      await this.checkBinding(request, user, namespace);
    }
  }

  private async checkRole(request: AdmissionRequest, user: UserInfo, resource: RoleResource, namespace: string, pathName: string): Promise<void> {
    if (await this.authorizer.mayEscalate(user, resource, namespace, pathName)) return;
    const { target, object, old } = request;
    this.refuseEscalation(request, user, namespace, (object as ClusterRole).rules ?? []);
    // An aggregationRule can gather any rules, and stop them from being tightened.
    if (resource === 'clusterroles' && (hasAggregationRule(object) || hasAggregationRule(old))) {
      if (confirmNoEscalation(user, this.index.rulesFor(user, ''), FULL_AUTHORITY) !== null) {
        throw errors.forbiddenResource(target.groupResource, target.name, 'must have cluster-admin privileges to use the aggregationRule');
      }
    }
  }

  private async checkBinding(request: AdmissionRequest, user: UserInfo, namespace: string): Promise<void> {
    const roleRef = (request.object as RoleBinding).roleRef;
    if (await this.authorizer.mayBind(user, roleRef, namespace)) return;
    this.refuseEscalation(request, user, namespace, this.rulesOfRoleRef(roleRef, namespace));
  }

  /**
   * 403 listing what the caller lacks, unless their rules at `namespace` cover `granted`; and
   * 403 when a guardrail before RBAC denies the caller part of it (else a caller could hand a
   * permission it may not use to an identity the guardrail spares, and use it through that one).
   */
  private refuseEscalation(request: AdmissionRequest, user: UserInfo, namespace: string, granted: readonly PolicyRule[]): void {
    const why = confirmNoEscalation(user, this.index.rulesFor(user, namespace), granted);
    if (why !== null) throw errors.forbiddenResource(request.target.groupResource, request.target.name, why);
    for (const authorizer of this.chain.authorizers) {
      if (authorizer.type === 'RBAC') break;
      if (!isGrantDenier(authorizer)) continue;
      const conflict = authorizer.denyingGrant(user, granted, namespace || null);
      if (!conflict) continue;
      const message = `user ${goQuote(user.username)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions it may not use: ${conflict.reason}`;
      throw errors.forbiddenResource(request.target.groupResource, request.target.name, message);
    }
  }

  /**
   * The rules a binding would grant. A role that does not exist is 404, as kube's role
   * lookup answers (a caller allowed to bind it may still create the binding first).
   */
  private rulesOfRoleRef(roleRef: RoleBinding['roleRef'], namespace: string): readonly PolicyRule[] {
    switch (roleRef.kind) {
      case 'Role': {
        const role = this.index.role(namespace, roleRef.name);
        if (!role) throw errors.notFound({ group: RBAC_GROUP, resource: 'roles' }, roleRef.name);
        return role.rules ?? [];
      }
      case 'ClusterRole': {
        const role = this.index.clusterRole(roleRef.name);
        if (!role) throw errors.notFound({ group: RBAC_GROUP, resource: 'clusterroles' }, roleRef.name);
        return role.rules ?? [];
      }
      default:
        // Validation refuses other kinds before admission runs.
        throw errors.badRequest(`unsupported role reference kind: "${roleRef.kind}"`);
    }
  }

  /**
   * kube reads roles and bindings from storage for these checks; the index follows the
   * store a moment behind, so wait until it has every change committed before the request
   * arrived (whatever --consistent-authorization says): a grant or revocation made just
   * before this write is taken into account.
   */
  private async syncPolicy(arrivedAt?: number): Promise<void> {
    await this.index.ready();
    if (this.consistency) return this.consistency.ensure([this.index.followsStore], arrivedAt);
    const revision = await this.store.currentRevision();
    if (!(await this.index.waitForRevision(revision, INDEX_SYNC_TIMEOUT_MS))) {
      this.log.warn(`the RBAC policy index is behind revision ${revision}; checking escalation against ${this.index.syncedRevision()}`);
    }
  }
}
