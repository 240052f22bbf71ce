import { Inject, Logger, Module, OnModuleInit } from '@nestjs/common';
import { RegistryModule } from '../../registry/registry.module';
import { ResourceRegistry } from '../../registry/resources/registry';
import { GenericStorageFactory } from '../../registry/generic/generic-storage.factory';
import { AdmissionRequest } from '../../registry/rest/admission';
import { AuthorizationModule } from '../../authorization/authorization.module';
import { RbacAuthorizationModule } from '../../authorization/rbac/rbac-authorization.module';
import { RbacEscalationCheck } from '../../rbac/escalation/escalation-check';
import { PolicyBasedStorage } from '../../rbac/escalation/policy-based-storage';
import { clusterRoleBindingType, roleBindingType } from '../../rbac/kinds/kinds';
import { errors, StatusError } from '../../apimachinery/errors';
import { fieldErrors } from '../../apimachinery/field-errors';
import { Clock, CLOCK } from '../../apimachinery/clock';
import { controllerUser, SYSTEM_MASTERS } from '../../apimachinery/user-info';
import { OBJECT_STORE, ObjectStore } from '../../storage/mvcc/object-store';
import { SharedInformerFactory } from '../../storage/informer/shared-informer-factory';
import { ResourceType } from '../../runtime/schema/resource-type';
import { Target, WriteOptions, WriteResult } from '../../registry/rest/storage';
import { recordAccessRequestPhase } from '../../metrics/access-request-metrics';
import { ACCESS_REQUEST_TYPES, accessRequestPolicyType, decisionSubresourceType, statusSubresourceType } from './access-request-kinds';
import { ACCESS_REQUEST_CONTROLLER, ACCESS_REQUEST_UID_LABEL, AccessRequest, grantBindingName } from './access-request-types';
import { ApprovalStorage } from './approval-storage';
import { DecisionKind } from './request-decisions';
import { loadAutoApproveEnvironment } from './auto-approve';
import { matchPolicy } from './policy-matching';
import { InformerWorld } from './informer-world';
import { GuardrailsModule } from '../guardrails/guardrails.module';
import { GuardrailState } from '../guardrails/guardrail-state.service';
import { guardrailDenyingGrant } from '../guardrails/guardrail-grant-check';
import { PolicyRule } from '../../apis/rbac/types';
import { UserInfo } from '../../apimachinery/user-info';

/** The request kinds' storage: the create check on every write path, and each new request counted. */
class AccessRequestStorage extends PolicyBasedStorage {
  override async create(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    const result = await super.create(target, body, opts);
    if (!opts.dryRun) recordAccessRequestPhase(target.type.kind, 'Pending');
    return result;
  }
}

/** How long a check waits for the caches to reach the store's current revision. */
const CACHE_SYNC_TIMEOUT_MS = 3000;

/**
 * AccessRequestPolicy, AccessRequest and ClusterAccessRequest with their `status` and
 * `approval` subresources, on the generic storage. A request's create is checked against
 * the policies (the requester is the authenticated caller); approval is ApprovalStorage's.
 * The controller that grants approved requests runs with the other controllers.
 */
@Module({ imports: [RegistryModule, AuthorizationModule, RbacAuthorizationModule, GuardrailsModule], providers: [RbacEscalationCheck] })
export class AccessRequestsModule implements OnModuleInit {
  private readonly log = new Logger('AccessRequests');
  private readonly world: InformerWorld;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly factory: GenericStorageFactory,
    private readonly escalation: RbacEscalationCheck,
    informers: SharedInformerFactory,
    private readonly guardrails: GuardrailState,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.world = new InformerWorld(informers);
  }

  async onModuleInit(): Promise<void> {
    await loadAutoApproveEnvironment();
    this.registry.register(accessRequestPolicyType as unknown as ResourceType, this.factory.create(accessRequestPolicyType as unknown as ResourceType));
    for (const type of ACCESS_REQUEST_TYPES) {
      const parent = type as unknown as ResourceType;
      this.registry.register(parent, new AccessRequestStorage(this.factory.create(parent), (request) => this.checkCreate(request)));
      const statusType = statusSubresourceType(type) as unknown as ResourceType;
      const status = this.factory.create(statusType);
      this.registry.registerSubresource(parent, 'status', statusType, status);
      const decisions = (kinds: DecisionKind[]) =>
        new ApprovalStorage({
          status,
          world: this.world,
          sync: (receivedAt) => this.sync(receivedAt),
          escalation: (request) => this.escalation.check(request),
          deleteBinding: (request) => this.deleteBinding(request),
          guardrailConflict: (request) => this.guardrailConflict(request),
          clock: this.clock,
          decisions: kinds,
        });
      const decisionType = decisionSubresourceType(type) as unknown as ResourceType;
      this.registry.registerSubresource(parent, 'approval', decisionType, decisions(['approve', 'deny', 'revoke']));
      this.registry.registerSubresource(parent, 'cancellation', decisionType, decisions(['cancel']));
    }
  }

  /** The caches reflect every write committed before the request arrived (a policy made just before a request counts). */
  private async sync(_receivedAt?: number): Promise<void> {
    const revision = await this.store.currentRevision();
    if (!(await this.world.syncedTo(revision, CACHE_SYNC_TIMEOUT_MS))) this.log.warn(`the access request caches are behind revision ${revision}`);
    // A guardrail written just before the request or approval counts too.
    await this.guardrails.ready();
    if (!(await this.guardrails.followsStore.waitForRevision(BigInt(revision), CACHE_SYNC_TIMEOUT_MS))) this.log.warn(`the guardrail cache is behind revision ${revision}`);
  }

  /**
   * Why a guardrail refuses the request (undefined: none does): one that applies to the
   * requester denies something the requested role grants in the requested scope, so the
   * binding would grant what the guardrail forbids (issue 35: approval is no bypass).
   */
  private guardrailConflict(request: AccessRequest): string | undefined {
    const ref = request.spec.roleRef;
    const namespace = request.metadata.namespace ?? '';
    const role = this.world.role(ref.kind, namespace, ref.name) as { rules?: PolicyRule[] } | undefined;
    const requester = request.spec.requester;
    if (!role || !requester) return undefined;
    const user: UserInfo = { username: requester.username, uid: requester.uid, groups: requester.groups ?? [], extra: requester.extra };
    const conflict = guardrailDenyingGrant(this.guardrails, user, role.rules ?? [], namespace || null);
    if (!conflict) return undefined;
    return `access guardrail "${conflict.guardrail}" denies what ${ref.kind} "${ref.name}" grants${conflict.message ? `: ${conflict.message}` : ''}`;
  }

  /**
   * A new request names an existing role and is allowed by a policy: the first by name that
   * covers its role, scope and requester and allows its duration and justification, which
   * is recorded in status.policy. Without one it is refused (403), except for
   * system:masters, whose requests stay Pending with no policy (nobody can approve them).
   */
  private async checkCreate(admission: AdmissionRequest): Promise<void> {
    if (admission.operation !== 'CREATE') return;
    const request = admission.object as AccessRequest;
    const { type, groupResource, name } = admission.target;
    await this.sync(admission.options.receivedAt);
    const ref = request.spec.roleRef;
    const namespace = request.metadata.namespace ?? '';
    if (!this.world.role(ref.kind, namespace, ref.name)) {
      throw errors.invalid(type.kind, type.group, name, [{ ...fieldErrors.notFound('spec.roleRef.name', ref.name), detail: `${ref.kind} "${ref.name}" does not exist${ref.kind === 'Role' ? ` in namespace "${namespace}"` : ''}` }]);
    }
    const refusal = this.guardrailConflict(request);
    if (refusal) throw errors.forbiddenResource(groupResource, name, refusal);
    const match = matchPolicy(request, this.world);
    if (match.policy) {
      // Recorded as the request is created (this check is the kind's admission).
      request.status = { ...request.status, policy: match.policy.metadata.name };
      return;
    }
    if (match.refusals.length) {
      throw errors.invalid(type.kind, type.group, name, match.refusals.map((r) => fieldErrors.invalid(r.field, r.field === 'spec.duration' ? request.spec.duration : (request.spec.justification ?? ''), r.detail)));
    }
    if (admission.options.user.groups.includes(SYSTEM_MASTERS)) return;
    const where = namespace ? `in namespace "${namespace}"` : 'cluster-wide';
    throw errors.forbiddenResource(groupResource, name, `no AccessRequestPolicy allows user "${admission.options.user.username}" to request ${ref.kind} "${ref.name}" ${where}`);
  }

  /** A revocation or cancellation removes the grant at once, not at the controller's next sync. */
  private async deleteBinding(request: AccessRequest): Promise<void> {
    const namespace = request.metadata.namespace ?? '';
    const type = namespace ? roleBindingType : clusterRoleBindingType;
    const storage = this.registry.lookup(type.group, type.version, type.plural)?.storage;
    const target = { type, groupResource: { group: type.group, resource: type.plural }, namespace, name: grantBindingName(request) };
    try {
      const binding = await storage!.get!(target, { user: controllerUser(ACCESS_REQUEST_CONTROLLER) } as never);
      if (binding.metadata.labels?.[ACCESS_REQUEST_UID_LABEL] !== request.metadata.uid) return;
      await storage!.delete!(target, { user: controllerUser(ACCESS_REQUEST_CONTROLLER), dryRun: false, preconditions: { uid: binding.metadata.uid } });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }
}
