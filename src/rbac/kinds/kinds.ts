import { ALL_STORAGE_VERBS, ResourceStrategy, ResourceType } from '../../runtime/schema/resource-type';
import { validatePathSegmentName } from '../../apimachinery/validation/names';
import { KubeObject } from '../../apimachinery/types';
import { StructSchema } from '../../runtime/schema/schema';
import { clusterRoleBindingSchema, clusterRoleSchema, roleBindingSchema, roleSchema } from './schemas';
import { clusterRoleBindingTable, roleBindingTable } from './table';
import { clusterRoleBindingStrategy, clusterRoleStrategy, roleBindingStrategy, roleStrategy } from './strategies';
import { ClusterRole, ClusterRoleBinding, RBAC_GROUP, RBAC_VERSION, Role, RoleBinding } from '../../apis/rbac/types';

/** The package of the RBAC messages in proto/ (kube's k8s.io.api.rbac.v1). */
const RBAC_PROTO_PACKAGE = 'platform.io.api.rbac.v1';

/**
 * The four RBAC kinds as discovery and the generic storage see them. Like kube: all eight
 * storage verbs, no short names, and names that only have to be one URL path segment.
 * Roles print kube's default table (Name, Created At); bindings have their own columns.
 */
function rbacType<T extends KubeObject>(
  kind: string,
  plural: string,
  namespaced: boolean,
  schema: StructSchema,
  strategy: ResourceStrategy<T>,
  table?: ResourceType<T>['table'],
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
    schema,
    strategy,
    table,
    protobuf: { message: `${RBAC_PROTO_PACKAGE}.${kind}`, listMessage: `${RBAC_PROTO_PACKAGE}.${kind}List` },
  };
}

export const roleType = rbacType<Role>('Role', 'roles', true, roleSchema, roleStrategy);
export const clusterRoleType = rbacType<ClusterRole>('ClusterRole', 'clusterroles', false, clusterRoleSchema, clusterRoleStrategy);
export const roleBindingType = rbacType<RoleBinding>('RoleBinding', 'rolebindings', true, roleBindingSchema, roleBindingStrategy, roleBindingTable);
export const clusterRoleBindingType = rbacType<ClusterRoleBinding>(
  'ClusterRoleBinding',
  'clusterrolebindings',
  false,
  clusterRoleBindingSchema,
  clusterRoleBindingStrategy,
  clusterRoleBindingTable,
);
