import { Clock } from '../../../src/apimachinery/clock';
import { UserInfo } from '../../../src/apimachinery/user-info';
import { AuthorizationAttributes } from '../../../src/authorization/authorizer';
import {
  CLUSTER_ROLE_BINDINGS_RESOURCE,
  CLUSTER_ROLES_RESOURCE,
  PolicyIndex,
  ROLE_BINDINGS_RESOURCE,
  ROLES_RESOURCE,
} from '../../../src/authorization/rbac/policy-index';
import { nonResourceAttributes, resourceAttributes } from '../../../src/authorization/request-attributes';
import { PolicyRule, Subject } from '../../../src/apis/rbac/types';

/** Objects and attributes for RBAC unit tests, written the way API clients write them. */

export const RBAC = 'rbac.authorization.platform.io';

export const user = (username: string, ...groups: string[]): UserInfo => ({ username, groups });
export const sa = (namespace: string, name: string): UserInfo => ({
  username: `system:serviceaccount:${namespace}:${name}`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
});

export const U = (name: string, extra: Partial<Subject> = {}): Subject => ({ kind: 'User', apiGroup: RBAC, name, ...extra });
export const G = (name: string, extra: Partial<Subject> = {}): Subject => ({ kind: 'Group', apiGroup: RBAC, name, ...extra });
export const SA = (name: string, namespace?: string): Subject => ({ kind: 'ServiceAccount', name, ...(namespace ? { namespace } : {}) });

export const clusterRole = (name: string, rules: PolicyRule[], labels?: Record<string, string>) => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRole',
  metadata: { name, ...(labels ? { labels } : {}) },
  rules,
});
export const role = (namespace: string, name: string, rules: PolicyRule[]) => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'Role',
  metadata: { namespace, name },
  rules,
});
export const clusterRoleBinding = (name: string, roleName: string, subjects: Subject[], roleKind = 'ClusterRole') => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: RBAC, kind: roleKind, name: roleName },
  subjects,
});
export const roleBinding = (namespace: string, name: string, roleKind: string, roleName: string, subjects: Subject[]) => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'RoleBinding',
  metadata: { namespace, name },
  roleRef: { apiGroup: RBAC, kind: roleKind, name: roleName },
  subjects,
});

export interface Objects {
  roles?: ReturnType<typeof role>[];
  clusterRoles?: ReturnType<typeof clusterRole>[];
  roleBindings?: ReturnType<typeof roleBinding>[];
  clusterRoleBindings?: ReturnType<typeof clusterRoleBinding>[];
}

export function indexOf(objects: Objects, clock?: Clock): PolicyIndex {
  const index = new PolicyIndex(clock);
  index.replaceAll([
    { resource: ROLES_RESOURCE, items: objects.roles ?? [] },
    { resource: CLUSTER_ROLES_RESOURCE, items: objects.clusterRoles ?? [] },
    { resource: ROLE_BINDINGS_RESOURCE, items: objects.roleBindings ?? [] },
    { resource: CLUSTER_ROLE_BINDINGS_RESOURCE, items: objects.clusterRoleBindings ?? [] },
  ]);
  return index;
}

/** A resource request: `verb group/resource[/subresource]` with optional namespace and name. */
export function req(
  who: UserInfo,
  verb: string,
  apiGroup: string,
  resource: string,
  opts: { ns?: string; name?: string; sub?: string } = {},
): AuthorizationAttributes {
  return resourceAttributes({
    user: who,
    verb,
    apiGroup,
    apiVersion: 'v1',
    resource,
    subresource: opts.sub,
    namespace: opts.ns,
    name: opts.name,
  });
}

export function url(who: UserInfo, verb: string, path: string): AuthorizationAttributes {
  return nonResourceAttributes(who, verb, path);
}
