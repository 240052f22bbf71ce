import { errors, StatusError } from '../../apimachinery/errors';
import { fieldErrors } from '../../apimachinery/field-errors';
import { KubeObject } from '../../apimachinery/types';
import { SYSTEM_MASTERS, UserInfo } from '../../apimachinery/user-info';
import { Clock } from '../../apimachinery/clock';
import { GetOptions } from '../../registry/options/read-options';
import { Reader, ResourceStorage, Target, WriteOptions, WriteResult } from '../../registry/rest/storage';
import { RBAC_GROUP, RoleBinding } from '../../apis/rbac/types';
import { clusterRoleBindingType, roleBindingType } from '../../rbac/kinds/kinds';
import { AdmissionRequest } from '../../registry/rest/admission';
import { AccessRequest, AccessRequestPolicy } from './access-request-types';
import { decide, DecisionKind, newDecision } from './request-decisions';
import { PolicyWorld, recordedPolicy, subjectsInclude } from './policy-matching';
import { recordAccessRequestPhase } from '../../metrics/access-request-metrics';

export const DECISION_AUDIT_ANNOTATION = 'access.platform.io/decision';
export const TRANSITION_AUDIT_ANNOTATION = 'access.platform.io/transition';

/** How often a decision is recomputed when another write got in first and the client named no resourceVersion. */
const MAX_RETRIES = 5;

export interface ApprovalDeps {
  /** The request kind's status storage: every decision is written through it. */
  status: Required<Pick<ResourceStorage, 'get' | 'update'>>;
  world: PolicyWorld;
  /** Waits until the caches the checks read have every change committed before the request arrived. */
  sync(receivedAt?: number): Promise<void>;
  /** The escalation check of RoleBinding and ClusterRoleBinding writes (RBAC's own). */
  escalation(request: AdmissionRequest): Promise<void>;
  /** Removes the binding of a revoked request at once. */
  deleteBinding(request: AccessRequest): Promise<void>;
  /** Why a guardrail forbids what the request grants its requester (undefined: none does). */
  guardrailConflict(request: AccessRequest): string | undefined;
  clock: Clock;
  /** The decisions this subresource takes: approve, deny and revoke (`approval`), or cancel (`cancellation`). */
  decisions: readonly DecisionKind[];
}

/**
 * The `approval` subresource of AccessRequest and ClusterAccessRequest (verb update), as
 * kube's CSR approval: the body is the request with one more approval, denial or a
 * revocation; the server records who (the authenticated caller) and when, checks the
 * caller may decide, moves the phase and writes the status with optimistic concurrency, so
 * two approvers racing produce one decision each in order or a 409, never a lost one.
 */
export class ApprovalStorage implements ResourceStorage {
  constructor(private readonly deps: ApprovalDeps) {}

  get(target: Target, opts: GetOptions & Reader): Promise<KubeObject> {
    return this.deps.status.get(target, opts);
  }

  async update(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    const requested = (body.metadata as KubeObject['metadata'] | undefined)?.resourceVersion;
    for (let attempt = 0; ; attempt++) {
      const current = (await this.deps.status.get(target, { user: opts.user })) as AccessRequest;
      if (requested && requested !== current.metadata.resourceVersion) throw errors.staleResourceVersion(target.groupResource, target.name);
      const decision = newDecision(body, current, opts.user.username, !requested);
      if (Array.isArray(decision)) throw errors.invalid(target.type.kind, target.type.group, target.name, decision);
      if (!this.deps.decisions.includes(decision.kind)) {
        const where = decision.kind === 'cancel' ? 'the cancellation subresource' : 'the approval subresource';
        throw errors.invalid(target.type.kind, target.type.group, target.name, [fieldErrors.forbidden(decision.path, `written through ${where}`)]);
      }
      await this.deps.sync(opts.receivedAt);
      const policy = await this.authorize(target, current, decision.kind, opts);
      const next: AccessRequest = {
        ...current,
        status: decide(current, { kind: decision.kind, user: opts.user.username, comment: decision.comment }, policy?.spec.requiredApprovals ?? 1, this.deps.clock.now()),
      };
      try {
        const result = await this.deps.status.update(target, next as unknown as Record<string, unknown>, opts);
        const written = result.object as AccessRequest;
        // The audit event names what the write decided and the transition it made.
        opts.annotateAudit?.(DECISION_AUDIT_ANNOTATION, decision.kind);
        opts.annotateAudit?.(TRANSITION_AUDIT_ANNOTATION, `${current.status?.phase ?? 'Pending'}->${written.status?.phase ?? 'Pending'}`);
        if (!opts.dryRun && written.status?.phase !== current.status?.phase) {
          recordAccessRequestPhase(target.type.kind, written.status!.phase!, written.metadata.creationTimestamp, written.status?.validFrom);
        }
        if ((decision.kind === 'revoke' || decision.kind === 'cancel') && !opts.dryRun) await this.deps.deleteBinding(written);
        return result;
      } catch (err) {
        if (!requested && err instanceof StatusError && err.reason === 'Conflict' && attempt < MAX_RETRIES) continue;
        throw err;
      }
    }
  }

  /** Refuses (403, 409) a decision the caller may not make now; answers the policy that governs it. */
  private async authorize(target: Target, request: AccessRequest, kind: DecisionKind, opts: WriteOptions): Promise<AccessRequestPolicy | undefined> {
    const user = opts.user;
    const phase = request.status?.phase ?? 'Pending';
    const refuse = (message: string) => errors.forbiddenResource(target.groupResource, target.name, message);
    const conflict = (message: string) => errors.conflict(target.groupResource, target.name, message);
    const isMaster = user.groups.includes(SYSTEM_MASTERS);
    const policy = recordedPolicy(request, this.deps.world);
    const namedApprover = !!policy && subjectsInclude(policy.spec.approvers, user.username, user.groups);

    if (kind === 'cancel') {
      // Only the requester takes their own request back, pending or granted; others deny or revoke.
      if (request.spec.requester?.username !== user.username) throw refuse(`only the requester ("${request.spec.requester?.username ?? ''}") can cancel this request`);
      if (phase !== 'Pending' && phase !== 'Approved' && phase !== 'Active') throw conflict(`the request is ${phase}: only a Pending, Approved or Active request can be canceled`);
      return policy;
    }
    if (kind === 'revoke') {
      if (phase !== 'Approved' && phase !== 'Active') throw conflict(`the request is ${phase}: only an Approved or Active request can be revoked`);
      // A revocation only takes access away: an approver of the policy or an administrator may.
      if (!namedApprover && !isMaster) throw refuse(`user "${user.username}" is not an approver of this request's AccessRequestPolicy`);
      return policy;
    }
    if (phase !== 'Pending') throw conflict(`the request is ${phase}: only a Pending request can be ${kind === 'approve' ? 'approved' : 'denied'}`);
    if (request.spec.requester?.username === user.username) throw refuse(`user "${user.username}" made this request and cannot ${kind} it`);
    if (!policy) {
      throw conflict(
        request.status?.policy
          ? `AccessRequestPolicy "${request.status.policy}" no longer exists or no longer allows this request: it stays Pending`
          : 'no AccessRequestPolicy allows this request: it stays Pending',
      );
    }
    if (!namedApprover) throw refuse(`user "${user.username}" is not an approver of AccessRequestPolicy "${policy.metadata.name}"`);
    if (kind === 'approve') {
      if (request.status?.approvals?.some((a) => a.user === user.username)) throw conflict(`user "${user.username}" has already approved this request`);
      // Guardrails may have appeared since the request was made; approval must not bypass them.
      const guardrail = this.deps.guardrailConflict(request);
      if (guardrail) throw refuse(guardrail);
      await this.checkEscalation(target, request, user, opts);
    }
    return policy;
  }

  /**
   * Approving must never be an escalation path: the approver must be able to create the
   * binding the approval leads to (hold the role's permissions in that scope, or `bind` on
   * it), which RBAC's own escalation check answers.
   */
  private async checkEscalation(target: Target, request: AccessRequest, user: UserInfo, opts: WriteOptions): Promise<void> {
    const namespace = request.metadata.namespace ?? '';
    const type = namespace ? roleBindingType : clusterRoleBindingType;
    const binding = { metadata: { name: target.name, namespace: namespace || undefined }, roleRef: request.spec.roleRef, subjects: [] } as unknown as RoleBinding;
    try {
      await this.deps.escalation({
        operation: 'CREATE',
        target: { type, groupResource: { group: RBAC_GROUP, resource: type.plural }, namespace, name: target.name },
        object: binding,
        options: { user, dryRun: true, receivedAt: opts.receivedAt },
      });
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      if (err.code === 404) throw errors.conflict(target.groupResource, target.name, `the requested ${request.spec.roleRef.kind} "${request.spec.roleRef.name}" does not exist`);
      throw errors.forbiddenResource(target.groupResource, target.name, `approving would grant what user "${user.username}" cannot grant: ${err.message}`);
    }
  }
}
