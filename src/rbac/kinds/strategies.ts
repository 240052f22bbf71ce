import { ResourceStrategy } from '../../runtime/schema/resource-type';
import { isPlainObject, KubeObject } from '../../apimachinery/types';
import {
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
  validateRoleUpdate,
} from './rbac-validation';
import { ClusterRole, ClusterRoleBinding, GROUP_KIND, RBAC_GROUP, Role, RoleBinding, SERVICE_ACCOUNT_KIND, USER_KIND } from '../../apis/rbac/types';

/**
 * Create/update behaviour of the RBAC kinds, as kube's pkg/registry/rbac strategies:
 * PUT may create, updates need no resourceVersion, and the objects have no status.
 */

/** The apiGroup kube's v1 defaulting gives a subject that names none. */
const DEFAULT_SUBJECT_API_GROUP: Record<string, string> = {
  [USER_KIND]: RBAC_GROUP,
  [GROUP_KIND]: RBAC_GROUP,
  [SERVICE_ACCOUNT_KIND]: '',
};

/**
 * kube's v1 defaults for bindings: an empty roleRef.apiGroup becomes the RBAC group and a
 * subject without apiGroup gets its kind's. Values of the wrong JSON type are left for
 * validation to report.
 */
export function setBindingDefaults(binding: KubeObject): void {
  if (binding.roleRef === undefined || binding.roleRef === null) binding.roleRef = {};
  if (isPlainObject(binding.roleRef) && !binding.roleRef.apiGroup) binding.roleRef.apiGroup = RBAC_GROUP;
  if (!Array.isArray(binding.subjects)) return;
  for (const subject of binding.subjects) {
    if (!isPlainObject(subject) || subject.apiGroup || typeof subject.kind !== 'string') continue;
    const group = DEFAULT_SUBJECT_API_GROUP[subject.kind];
    if (group !== undefined) subject.apiGroup = group;
  }
}

/** RBAC objects have no status; a client-sent one is dropped rather than stored. */
function dropStatus(obj: KubeObject): void {
  delete obj.status;
}

export const roleStrategy: ResourceStrategy<Role> = {
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate: dropStatus,
  prepareForUpdate: dropStatus,
  validate: (role) => validateRole(role),
  validateUpdate: (role, old) => validateRoleUpdate(role, old),
};

export const clusterRoleStrategy: ResourceStrategy<ClusterRole> = {
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate: dropStatus,
  prepareForUpdate: dropStatus,
  validate: (role) => validateClusterRole(role),
  validateUpdate: (role, old) => validateClusterRoleUpdate(role, old),
};

function prepareBinding(binding: KubeObject): void {
  dropStatus(binding);
  setBindingDefaults(binding);
}

export const roleBindingStrategy: ResourceStrategy<RoleBinding> = {
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate: prepareBinding,
  prepareForUpdate: prepareBinding,
  validate: (binding) => validateRoleBinding(binding),
  validateUpdate: (binding, old) => validateRoleBindingUpdate(binding, old),
};

export const clusterRoleBindingStrategy: ResourceStrategy<ClusterRoleBinding> = {
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate: prepareBinding,
  prepareForUpdate: prepareBinding,
  validate: (binding) => validateClusterRoleBinding(binding),
  validateUpdate: (binding, old) => validateClusterRoleBindingUpdate(binding, old),
};
