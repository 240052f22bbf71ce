import { UserInfo } from '../../apimachinery/user-info';
import { GROUP_KIND, SERVICE_ACCOUNT_KIND, Subject, USER_KIND } from '../../apis/rbac/types';

/**
 * How binding subjects are found from a caller: every subject is filed under a key, the
 * user name (`u:`) or a group name (`g:`); a ServiceAccount subject under its user name
 * `system:serviceaccount:<namespace>:<name>`. A caller is looked up under its own name and
 * each of its groups, so a decision never scans bindings that do not name it.
 */
export type SubjectKey = string;

export const BINDING_KINDS = ['ClusterRoleBinding', 'RoleBinding'] as const;
export type BindingKind = (typeof BINDING_KINDS)[number];

export const userKey = (name: string): SubjectKey => `u:${name}`;
export const groupKey = (name: string): SubjectKey => `g:${name}`;

/** A service account's user name, as authentication gives it. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The keys a caller is found under: its user name, then each group once. */
export function subjectKeysOf(user: UserInfo): SubjectKey[] {
  const keys = [userKey(user.username)];
  for (const group of user.groups) {
    const key = groupKey(group);
    if (!keys.includes(key)) keys.push(key);
  }
  return keys;
}

/** A binding as messages name it (kube's describers: `name/namespace` for RoleBindings). */
export function describeBinding(kind: BindingKind, namespace: string, name: string): string {
  return kind === 'RoleBinding' ? `RoleBinding "${name}/${namespace}"` : `ClusterRoleBinding "${name}"`;
}

/** A subject as kube's allow reasons name it; a ServiceAccount as `name/namespace`. */
export function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === SERVICE_ACCOUNT_KIND) return `${subject.kind} "${subject.name}/${subject.namespace || bindingNamespace}"`;
  return `${subject.kind} "${subject.name}"`;
}

/**
 * Where one subject is filed: a key, and an error when the subject is malformed (it then
 * grants nothing; the index prefixes the binding's description).
 */
export interface SubjectFiling {
  key: SubjectKey;
  error?: string;
}

/**
 * The keys a subject of a binding is filed under. Malformed subjects are filed under the
 * names they mention, with the error the authorizer reports to the callers they name:
 * a User or Group with a namespace, or a kind the API does not define. A ServiceAccount
 * without a namespace means the binding's namespace (kube's appliesToUser); in a
 * ClusterRoleBinding it matches nobody.
 */
export function fileSubject(subject: Subject, bindingNamespace: string): SubjectFiling[] {
  const name = typeof subject?.name === 'string' ? subject.name : '';
  switch (subject?.kind) {
    case USER_KIND:
    case GROUP_KIND: {
      const key = subject.kind === USER_KIND ? userKey(name) : groupKey(name);
      if (subject.namespace) {
        return [{ key, error: `${subject.kind} subject "${name}" may not have a namespace, has "${subject.namespace}"` }];
      }
      return [{ key }];
    }
    case SERVICE_ACCOUNT_KIND: {
      const namespace = subject.namespace || bindingNamespace;
      return namespace ? [{ key: userKey(serviceAccountUsername(namespace, name)) }] : [];
    }
    default: {
      const error = `subject "${name}" has an unrecognized kind "${String(subject?.kind ?? '')}"`;
      return [
        { key: userKey(name), error },
        { key: groupKey(name), error },
      ];
    }
  }
}
