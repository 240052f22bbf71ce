import { ageColumn, nameColumn } from '../../runtime/table/columns';
import { TableDefinition } from '../../runtime/table/table';
import { GROUP_KIND, RoleBinding, SERVICE_ACCOUNT_KIND, Subject, USER_KIND } from '../../apis/rbac/types';

/** The subjects of a binding by kind, as kube's rbac.SubjectsStrings lists them. */
function subjectsByKind(subjects: Subject[] | null | undefined): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  for (const s of subjects ?? []) {
    if (s.kind === SERVICE_ACCOUNT_KIND) out.serviceAccounts.push(`${s.namespace ?? ''}/${s.name}`);
    else if (s.kind === USER_KIND) out.users.push(s.name);
    else if (s.kind === GROUP_KIND) out.groups.push(s.name);
  }
  return out;
}

/**
 * kube's printer for RoleBinding and ClusterRoleBinding: NAME, ROLE (`Kind/name`), AGE, and
 * for `-o wide` USERS, GROUPS, SERVICEACCOUNTS (`namespace/name`), comma-separated.
 */
function bindingTable(scope: 'roleBinding' | 'clusterRoleBinding', roleDescription: string): TableDefinition<RoleBinding> {
  return {
    columns: [
      nameColumn,
      { name: 'Role', type: 'string', description: roleDescription, cell: (b) => `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}` },
      ageColumn,
      { name: 'Users', type: 'string', priority: 1, description: `Users in the ${scope}`, cell: (b) => subjectsByKind(b.subjects).users.join(', ') },
      { name: 'Groups', type: 'string', priority: 1, description: `Groups in the ${scope}`, cell: (b) => subjectsByKind(b.subjects).groups.join(', ') },
      {
        name: 'ServiceAccounts',
        type: 'string',
        priority: 1,
        description: `ServiceAccounts in the ${scope}`,
        cell: (b) => subjectsByKind(b.subjects).serviceAccounts.join(', '),
      },
    ],
  };
}

export const roleBindingTable = bindingTable(
  'roleBinding',
  'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
);

export const clusterRoleBindingTable = bindingTable(
  'clusterRoleBinding',
  'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
);
