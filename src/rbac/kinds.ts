import { ALL_STORAGE_VERBS, ResourceStrategy, ResourceType } from '../api/resource-type';
import { validatePathSegmentName } from '../api/validation/names';
import { KubeObject } from '../api/types';
import { clusterRoleBindingStrategy, clusterRoleStrategy, roleBindingStrategy, roleStrategy } from './strategies';
import { ClusterRole, ClusterRoleBinding, RBAC_GROUP, RBAC_VERSION, Role, RoleBinding } from './types';

/**
 * The four RBAC kinds as discovery and the generic storage see them. Like kube: all eight
 * storage verbs, no short names, and names that only have to be one URL path segment.
 */
function rbacType<T extends KubeObject>(
  kind: string,
  plural: string,
  namespaced: boolean,
  strategy: ResourceStrategy<T>,
): ResourceType<T> {
  return {
    group: RBAC_GROUP,
    version: RBAC_VERSION,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [],
    namespaced,
    verbs: [...ALL_STORAGE_VERBS],
    nameValidator: validatePathSegmentName,
    strategy,
  };
}

export const roleType = rbacType<Role>('Role', 'roles', true, roleStrategy);
export const clusterRoleType = rbacType<ClusterRole>('ClusterRole', 'clusterroles', false, clusterRoleStrategy);
export const roleBindingType = rbacType<RoleBinding>('RoleBinding', 'rolebindings', true, roleBindingStrategy);
export const clusterRoleBindingType = rbacType<ClusterRoleBinding>(
  'ClusterRoleBinding',
  'clusterrolebindings',
  false,
  clusterRoleBindingStrategy,
);
