import { Clock, systemClock } from '../apimachinery/clock';
import { StatusError } from '../apimachinery/errors';

import { deepClone } from '../apimachinery/system-metadata';
import { ResourceRegistry } from '../registry/resources/registry';
import { ResourceType } from '../runtime/schema/resource-type';
import { parseRfc3339, VALID_FROM_ANNOTATION, VALID_UNTIL_ANNOTATION } from '../apis/rbac/binding-window';
import { RBAC_GROUP, RoleBinding, SERVICE_ACCOUNT_KIND, Subject, USER_KIND } from '../apis/rbac/types';
import { clusterRoleBindingType, clusterRoleType, roleBindingType, roleType } from '../rbac/kinds/kinds';
import { namespaceType } from '../core/namespace';
import { ACCESS_REQUEST_TYPES, accessRequestPolicyType } from '../access/requests/access-request-kinds';
import {
  ACCESS_REQUEST_CONTROLLER,
  ACCESS_REQUEST_UID_LABEL,
  AccessRequest,
  AccessRequestPolicy,
  AccessRequestStatus,
  ENDED_PHASES,
  grantBindingName,
} from '../access/requests/access-request-types';
import { decide, setCondition } from '../access/requests/request-decisions';
import { autoApproves } from '../access/requests/auto-approve';
import { PolicyWorld, recordedPolicy } from '../access/requests/policy-matching';
import { recordAccessRequestPhase } from '../metrics/access-request-metrics';
import { ControllerContext, Controller } from './controller-context';

export const ACCESS_REQUEST_CONTROLLER_USER = ACCESS_REQUEST_CONTROLLER;
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** The bindings an access request granted (labelled with its uid): orphans are looked for among those only. */
const GRANT_INDEX = 'access-requests/grants';
const GRANT = 'grant';
const grantOf = (binding: RoleBinding): string[] => (binding.metadata.labels?.[ACCESS_REQUEST_UID_LABEL] ? [GRANT] : []);

/** The binding subject of the requester: a ServiceAccount for a service account's name, else the User. */
function requesterSubject(username: string): Subject {
  if (username.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const [namespace, name] = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
    if (namespace && name) return { kind: SERVICE_ACCOUNT_KIND, apiGroup: '', namespace, name };
  }
  return { kind: USER_KIND, apiGroup: RBAC_GROUP, name: username };
}

/** When an ended request ended: what its retention counts from. */
function endedAt(request: AccessRequest): number | undefined {
  const status = request.status ?? {};
  const time =
    status.phase === 'Expired'
      ? status.validUntil
      : status.phase === 'Revoked'
        ? status.revocation?.time
        : status.phase === 'Canceled'
          ? status.cancellation?.time
          : status.denials?.[status.denials.length - 1]?.time;
  return time === undefined ? undefined : parseRfc3339(time);
}

/**
 * Turns approved AccessRequests and ClusterAccessRequests into time-bound bindings and
 * moves their phases (leader only, as `system:controller:access-request-controller`,
 * through the normal write path). Everything it does is derived from the stored objects at
 * each sync, so a leader that dies between an approval and the binding leaves nothing the
 * next one does not finish; the binding is named after its request, so a repeated or raced
 * grant finds the one already made.
 *
 * - Pending, its policy's autoApprove conditions all true: approved by the controller.
 * - Approved or Active: the binding (valid-from/valid-until = the request's window, owned by
 *   the request) exists, then the phase is Active with status.bindingRef; at validUntil the
 *   phase is Expired (the window already stopped the access, to the second).
 * - Revoked or Canceled: the binding is deleted (the write deleted it already, unless that failed).
 * - Ended (Expired, Denied, Revoked, Canceled) longer than the retention: the request is deleted.
 * - A binding labelled as a request's grant whose request is gone is deleted.
 */
export class AccessRequestController implements Controller {
  readonly name = ACCESS_REQUEST_CONTROLLER;
  readonly watches: ResourceType[] = [...(ACCESS_REQUEST_TYPES as unknown as ResourceType[]), accessRequestPolicyType as unknown as ResourceType,
    roleBindingType,
    clusterRoleBindingType,
    // What policy matching reads (autoApprove): role labels and namespace labels.
    roleType,
    clusterRoleType,
    namespaceType as unknown as ResourceType,
  ];

  constructor(
    private readonly ctx: ControllerContext,
    private readonly registry: ResourceRegistry,
    private readonly world: PolicyWorld,
    private readonly retentionMs: number,
    private readonly clock: Clock = systemClock,
  ) {}

  async sync(): Promise<number | void> {
    const now = this.clock.now();
    let next: number | undefined;
    const due = (at: number | undefined) => {
      if (at !== undefined && Number.isFinite(at) && at > now) next = Math.min(next ?? at, at);
    };
    const uids = new Set<string>();
    for (const type of ACCESS_REQUEST_TYPES as unknown as ResourceType[]) {
      for (const request of await this.ctx.list<AccessRequest>(type)) {
        uids.add(request.metadata.uid!);
        if (request.metadata.deletionTimestamp) continue;
        due(await this.reconcile(type, request, now));
      }
    }
    await this.collectOrphans(uids);
    return next;
  }

  /** One request; answers when it next needs attention. */
  private async reconcile(type: ResourceType, request: AccessRequest, now: number): Promise<number | undefined> {
    const phase = request.status?.phase ?? 'Pending';
    if (phase === 'Pending') return void (await this.autoApprove(type, request, now));
    if (ENDED_PHASES.has(phase)) {
      if (phase === 'Revoked' || phase === 'Canceled') await this.deleteGrant(request);
      const ended = endedAt(request);
      if (ended === undefined) return undefined;
      if (this.retentionMs > 0 && ended + this.retentionMs <= now) {
        await this.ctx.delete(type, request);
        return undefined;
      }
      return this.retentionMs > 0 ? ended + this.retentionMs : undefined;
    }
    // Approved or Active.
    const validUntil = parseRfc3339(request.status?.validUntil ?? '');
    if (validUntil === undefined) return undefined;
    if (validUntil <= now) {
      await this.writeStatus(type, request, (status) => {
        status.phase = 'Expired';
        setCondition(status, { type: 'Expired', status: 'True', reason: 'Expired', message: `the access ended at ${status.validUntil}` }, now);
      });
      return undefined;
    }
    const binding = await this.ensureGrant(request);
    if (!binding) {
      await this.writeStatus(type, request, (status) =>
        setCondition(status, { type: 'Granted', status: 'False', reason: 'BindingNameTaken', message: `a binding named "${grantBindingName(request)}" exists and was not made for this request` }, now),
      );
      return validUntil;
    }
    if (phase === 'Approved' || request.status?.bindingRef?.uid !== binding.metadata.uid) {
      await this.writeStatus(type, request, (status) => {
        status.phase = 'Active';
        status.bindingRef = {
          kind: binding.kind as 'RoleBinding' | 'ClusterRoleBinding',
          ...(binding.metadata.namespace ? { namespace: binding.metadata.namespace } : {}),
          name: binding.metadata.name!,
          uid: binding.metadata.uid!,
        };
        setCondition(status, { type: 'Granted', status: 'True', reason: 'BindingCreated', message: `granted by ${binding.kind} "${binding.metadata.name}" until ${status.validUntil}` }, now);
      });
    }
    return validUntil;
  }

  private async autoApprove(type: ResourceType, request: AccessRequest, now: number): Promise<void> {
    const policy: AccessRequestPolicy | undefined = recordedPolicy(request, this.world);
    const expressions = (policy?.spec.autoApprove ?? []).map((c) => c.expression);
    if (!policy || !expressions.length || !autoApproves(expressions, request).approved) return;
    const status = decide(request, { kind: 'approve', user: this.ctx.user.username, comment: `auto-approved by AccessRequestPolicy "${policy.metadata.name}"` }, 1, now);
    await this.writeStatus(type, request, (s) => Object.assign(s, status));
  }

  private bindingType(request: AccessRequest): ResourceType {
    return request.metadata.namespace ? roleBindingType : clusterRoleBindingType;
  }

  /** The request's binding: made if missing; undefined when its name is taken by a binding that is not this request's. */
  private async ensureGrant(request: AccessRequest): Promise<RoleBinding | undefined> {
    const type = this.bindingType(request);
    const namespace = request.metadata.namespace ?? '';
    const name = grantBindingName(request);
    const existing = this.ctx.get<RoleBinding>(type, namespace, name);
    if (existing) return existing.metadata.labels?.[ACCESS_REQUEST_UID_LABEL] === request.metadata.uid ? existing : undefined;
    const binding: RoleBinding = {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: type.kind,
      metadata: {
        name,
        ...(namespace ? { namespace } : {}),
        labels: { [ACCESS_REQUEST_UID_LABEL]: request.metadata.uid! },
        annotations: { [VALID_FROM_ANNOTATION]: request.status!.validFrom!, [VALID_UNTIL_ANNOTATION]: request.status!.validUntil! },
        ownerReferences: [{ apiVersion: request.apiVersion ?? 'access.platform.io/v1', kind: request.kind ?? 'AccessRequest', name: request.metadata.name!, uid: request.metadata.uid!, controller: true }],
      },
      roleRef: { apiGroup: RBAC_GROUP, kind: request.spec.roleRef.kind, name: request.spec.roleRef.name },
      subjects: [requesterSubject(request.spec.requester!.username)],
    };
    const storage = this.registry.lookup(type.group, type.version, type.plural)!.storage;
    try {
      const created = await storage.create!({ type, groupResource: { group: type.group, resource: type.plural }, namespace, name: '' }, binding as unknown as Record<string, unknown>, {
        user: this.ctx.user,
        dryRun: false,
        fieldManager: this.name,
      });
      return created.object as RoleBinding;
    } catch (err) {
      // Another leader made it in between: the next sync reads it.
      if (err instanceof StatusError && err.reason === 'AlreadyExists') return undefined;
      throw err;
    }
  }

  private async deleteGrant(request: AccessRequest): Promise<void> {
    const type = this.bindingType(request);
    const binding = this.ctx.get<RoleBinding>(type, request.metadata.namespace ?? '', grantBindingName(request));
    if (binding && binding.metadata.labels?.[ACCESS_REQUEST_UID_LABEL] === request.metadata.uid) await this.ctx.delete(type, binding);
  }

  /** A grant whose request was deleted goes too (no garbage collector follows ownerReferences here). */
  private async collectOrphans(requestUids: ReadonlySet<string>): Promise<void> {
    for (const type of [roleBindingType, clusterRoleBindingType]) {
      for (const binding of this.ctx.byIndex<RoleBinding>(type, GRANT_INDEX, grantOf, GRANT)) {
        const uid = binding.metadata.labels?.[ACCESS_REQUEST_UID_LABEL];
        if (uid && !requestUids.has(uid) && !binding.metadata.deletionTimestamp) await this.ctx.delete(type, binding);
      }
    }
  }

  /** Writes the status through the `status` subresource, at the version read (a conflict is the next sync's). */
  private async writeStatus(type: ResourceType, request: AccessRequest, change: (status: AccessRequestStatus) => void): Promise<void> {
    const next = deepClone(request) as AccessRequest;
    const before = next.status?.phase;
    next.status ??= {};
    change(next.status);
    const status = this.registry.lookupSubresource(type.group, type.version, type.plural, 'status')!.storage;
    try {
      await status.update!(
        { type, groupResource: { group: type.group, resource: type.plural }, namespace: request.metadata.namespace ?? '', name: request.metadata.name! },
        next as unknown as Record<string, unknown>,
        { user: this.ctx.user, dryRun: false, fieldManager: this.name },
      );
    } catch (err) {
      if (err instanceof StatusError && (err.reason === 'Conflict' || err.reason === 'NotFound')) return;
      throw err;
    }
    if (next.status.phase !== before) recordAccessRequestPhase(type.kind, next.status.phase!, request.metadata.creationTimestamp, next.status.validFrom);
  }
}

