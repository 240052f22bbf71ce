import { KubeObject } from '../../apimachinery/types';
import { LabelSelector } from '../../apimachinery/validation/labels';
import { RoleRef, Subject } from '../../apis/rbac/types';

/**
 * Access requests (access.platform.io/v1): AccessRequestPolicy says which roles may be
 * requested where, by whom, approved by whom and for how long; an AccessRequest (a Role or
 * ClusterRole in its own namespace) or ClusterAccessRequest (a ClusterRole cluster-wide)
 * asks for one; approval turns it into a time-bound binding owned by the request.
 */

export const ACCESS_REQUEST_POLICY_KIND = 'AccessRequestPolicy';
export const ACCESS_REQUEST_KIND = 'AccessRequest';
export const CLUSTER_ACCESS_REQUEST_KIND = 'ClusterAccessRequest';

export const PHASES = ['Pending', 'Approved', 'Active', 'Expired', 'Denied', 'Revoked', 'Canceled'] as const;
export type AccessRequestPhase = (typeof PHASES)[number];
/** Phases after which nothing more happens to a request: it is kept as history, then deleted. */
export const ENDED_PHASES: ReadonlySet<AccessRequestPhase> = new Set(['Expired', 'Denied', 'Revoked', 'Canceled']);

/** The label on the bindings the controller makes, naming the request (its uid) they grant. */
export const ACCESS_REQUEST_UID_LABEL = 'access.platform.io/access-request-uid';

export interface PolicyRoleSelector {
  kind: 'Role' | 'ClusterRole';
  names?: string[];
  selector?: LabelSelector;
}

export interface AutoApproveCondition {
  expression: string;
}

export interface AccessRequestPolicySpec {
  roles: PolicyRoleSelector[];
  namespaces?: string[];
  namespaceSelector?: LabelSelector;
  clusterWide?: boolean;
  requesters: Subject[];
  approvers?: Subject[];
  requiredApprovals?: number;
  maxDuration?: string;
  requireJustification?: boolean;
  autoApprove?: AutoApproveCondition[];
}

export interface AccessRequestPolicy extends KubeObject {
  spec: AccessRequestPolicySpec;
}

/** Who asked, as the server authenticated them (kube's CSR username, uid, groups, extra). */
export interface Requester {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AccessRequestSpec {
  roleRef: RoleRef;
  duration: string;
  justification?: string;
  requester?: Requester;
}

export interface Decision {
  user: string;
  time: string;
  comment?: string;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface BindingReference {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  namespace?: string;
  name: string;
  uid?: string;
}

export interface AccessRequestStatus {
  phase?: AccessRequestPhase;
  policy?: string;
  approvals?: Decision[];
  denials?: Decision[];
  revocation?: Decision;
  cancellation?: Decision;
  validFrom?: string;
  validUntil?: string;
  bindingRef?: BindingReference;
  conditions?: Condition[];
}

export interface AccessRequest extends KubeObject {
  spec: AccessRequestSpec;
  status?: AccessRequestStatus;
}

/** The binding that grants an approved request: named after it, so a retried or raced grant finds the one already made. */
export function grantBindingName(request: AccessRequest): string {
  return request.metadata.namespace ? `accessrequest-${request.metadata.name}` : `clusteraccessrequest-${request.metadata.name}`;
}

/** The identity the access request controller (and a revocation's binding removal) acts as. */
export const ACCESS_REQUEST_CONTROLLER = 'access-request-controller';
