import { KubeObject } from '../../apimachinery/types';
import { GROUP_KIND, SERVICE_ACCOUNT_KIND, Subject, USER_KIND } from '../../apis/rbac/types';
import { clusterRoleSelectorMatcher } from '../../rbac/aggregation/cluster-role-selector';
import { parseGoDuration } from '../../config/go-duration';
import { AccessRequest, AccessRequestPolicy, PolicyRoleSelector } from './access-request-types';

/** kube's service-account user names: `system:serviceaccount:<namespace>:<name>`. */
const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';

/** What matching reads: the policies, namespaces and roles as the caches hold them now. */
export interface PolicyWorld {
  policies(): AccessRequestPolicy[];
  /** A namespace's labels; undefined when there is no such namespace. */
  namespaceLabels(name: string): Record<string, string> | undefined;
  role(kind: string, namespace: string, name: string): KubeObject | undefined;
}

/** Whether a user (name and groups) is one of the subjects, as RBAC matches binding subjects. */
export function subjectsInclude(subjects: readonly Subject[] | undefined, username: string, groups: readonly string[]): boolean {
  return (subjects ?? []).some((s) => {
    switch (s.kind) {
      case USER_KIND:
        return s.name === username;
      case GROUP_KIND:
        return groups.includes(s.name);
      case SERVICE_ACCOUNT_KIND:
        return username === `${SERVICE_ACCOUNT_USER_PREFIX}${s.namespace ?? ''}:${s.name}`;
      default:
        return false;
    }
  });
}

function roleSelected(entry: PolicyRoleSelector, request: AccessRequest, world: PolicyWorld): boolean {
  const ref = request.spec.roleRef;
  if (entry.kind !== ref.kind) return false;
  if (entry.names?.includes(ref.name)) return true;
  if (entry.selector === undefined || entry.selector === null) return false;
  const role = world.role(ref.kind, request.metadata.namespace ?? '', ref.name);
  const matcher = clusterRoleSelectorMatcher(entry.selector);
  return !!role && !!matcher && matcher.matches(role.metadata.labels);
}

function scopeCovered(policy: AccessRequestPolicy, request: AccessRequest, world: PolicyWorld): boolean {
  const namespace = request.metadata.namespace;
  if (!namespace) return policy.spec.clusterWide === true;
  if (policy.spec.namespaces?.includes(namespace)) return true;
  if (!policy.spec.namespaceSelector) return false;
  const labels = world.namespaceLabels(namespace);
  const matcher = clusterRoleSelectorMatcher(policy.spec.namespaceSelector);
  return labels !== undefined && !!matcher && matcher.matches(labels);
}

/** Whether the policy covers the request's role, scope and requester (not yet its duration or justification). */
export function policyCovers(policy: AccessRequestPolicy, request: AccessRequest, world: PolicyWorld): boolean {
  const requester = request.spec.requester;
  if (!requester || !policy.spec) return false;
  return (
    subjectsInclude(policy.spec.requesters, requester.username, requester.groups ?? []) &&
    scopeCovered(policy, request, world) &&
    (policy.spec.roles ?? []).some((entry) => roleSelected(entry, request, world))
  );
}

/** Why a covering policy still does not allow the request (duration, justification); undefined when it does. */
export function policyRefusal(policy: AccessRequestPolicy, request: AccessRequest): { field: string; detail: string } | undefined {
  const max = parseGoDuration(policy.spec.maxDuration ?? '1h');
  if (parseGoDuration(request.spec.duration) > max) {
    return { field: 'spec.duration', detail: `must be at most ${policy.spec.maxDuration ?? '1h'}, the maxDuration of AccessRequestPolicy "${policy.metadata.name}"` };
  }
  if (policy.spec.requireJustification && !request.spec.justification?.trim()) {
    return { field: 'spec.justification', detail: `AccessRequestPolicy "${policy.metadata.name}" requires a justification` };
  }
  return undefined;
}

export interface PolicyMatch {
  /** The policy that allows the request: the first by name among those that do. */
  policy?: AccessRequestPolicy;
  /** Policies that cover the request but refuse its duration or justification. */
  refusals: Array<{ field: string; detail: string }>;
}

export function matchPolicy(request: AccessRequest, world: PolicyWorld): PolicyMatch {
  const covering = world
    .policies()
    .filter((p) => !p.metadata.deletionTimestamp && policyCovers(p, request, world))
    .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  const refusals: PolicyMatch['refusals'] = [];
  for (const policy of covering) {
    const refusal = policyRefusal(policy, request);
    if (!refusal) return { policy, refusals };
    refusals.push(refusal);
  }
  return { refusals };
}

/** The policy a request recorded, if it still exists and still allows the request. */
export function recordedPolicy(request: AccessRequest, world: PolicyWorld): AccessRequestPolicy | undefined {
  const name = request.status?.policy;
  if (!name) return undefined;
  const policy = world.policies().find((p) => p.metadata.name === name && !p.metadata.deletionTimestamp);
  if (!policy || !policyCovers(policy, request, world) || policyRefusal(policy, request)) return undefined;
  return policy;
}
