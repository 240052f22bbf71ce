import { objectMetaSchema } from '../runtime/schema/meta';
import { ResourceType } from '../runtime/schema/resource-type';
import { atomicList, dateTime, field, kindSchema, string, struct } from '../runtime/schema/schema';
import { nameColumn } from '../runtime/table/columns';
import { ageOf } from '../runtime/table/human-duration';
import { validatePathSegmentName } from '../apimachinery/validation/names';
import { KubeObject } from '../apimachinery/types';
import { Subject } from '../apis/rbac/types';
import { subjectSchema } from '../rbac/kinds/schemas';
import { ACCESS_GROUP, ACCESS_VERSION } from './access-types';
import { historyPermissionSchema } from './policy-change-schemas';
import { PermissionChange } from './policy-change-types';

/**
 * AccessChange (access.platform.io/v1 accesschanges): what one subject gained and lost, in
 * one namespace or cluster-wide, through one committed change of the policy (an RBAC write,
 * or a binding's time window opening or closing), who made that change and when. Recorded by
 * the leader's access-history controller; read-only for clients (get, list, watch), like an
 * Event. Cluster-scoped, with the namespace of the permissions as a field: a cluster-wide
 * change has none, and one list or watch follows every permission change of the cluster.
 */

export type AccessChangeOperation = 'Create' | 'Update' | 'Delete' | 'WindowOpened' | 'WindowClosed';

export interface AccessChangeCause {
  /** Role, ClusterRole, RoleBinding or ClusterRoleBinding. */
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
  /** The revision of the change (for a window, the binding's revision whose window it is). */
  resourceVersion: string;
  operation: AccessChangeOperation;
  /** Who made it: the request's user, or the controller's identity for automatic changes. */
  user: { username: string; groups?: string[] };
}

/** A PermissionChange of PolicyChangeReview, with the verbs of the entries that differ only in their verb together. */
export type HistoryPermission = Omit<PermissionChange, 'subject' | 'namespace' | 'verb'> & { verbs: string[] };

export interface AccessChange extends KubeObject {
  subject: Subject;
  /** Absent: cluster-wide (and in every namespace, but each entry's exceptNamespaces). */
  namespace?: string;
  gained?: HistoryPermission[];
  lost?: HistoryPermission[];
  cause: AccessChangeCause;
  /** When it happened (RFC 3339): the commit of the write, or the moment the window opened or closed. */
  time: string;
}

const causeSchema = struct(
  {
    kind: field(string(), 'Kind of the object whose change this was: Role, ClusterRole, RoleBinding or ClusterRoleBinding.'),
    namespace: field(string(), 'Namespace of the object; empty for a cluster-scoped one.'),
    name: field(string(), 'Name of the object.'),
    uid: field(string(), 'UID of the object.'),
    resourceVersion: field(string(), 'The resourceVersion the change produced (for a time window, the version of the binding whose window it is).'),
    operation: field(string(), 'Create, Update or Delete (a write), WindowOpened or WindowClosed (a time-bound binding reaching its valid-from or valid-until).'),
    user: field(
      struct(
        {
          username: field(string(), 'The user name.'),
          groups: field(atomicList(string()), 'The groups of the user at the time of the write.'),
        },
        { typeName: 'v1.AccessChangeUser', description: 'AccessChangeUser is who made a change.' },
      ),
      'Who made the change: the authenticated user of the write, or the controller identity (system:controller:<name>) for automatic ones (aggregation, access requests, namespace deletion, time windows).',
    ),
  },
  { typeName: 'v1.AccessChangeCause', description: 'AccessChangeCause is the change of an RBAC object that made the permissions change.' },
);

export const accessChangeSchema = kindSchema(
  objectMetaSchema,
  {
    subject: field(subjectSchema, 'The subject whose permissions changed, as bindings name it.'),
    namespace: field(string(), 'The namespace of the permissions; absent: cluster-wide.'),
    gained: field(atomicList(historyPermissionSchema), 'What the subject can do after the change and could not before.'),
    lost: field(atomicList(historyPermissionSchema), 'What the subject could do before the change and cannot after.'),
    cause: field(causeSchema, 'The change that caused it and who made it.'),
    time: field(dateTime(), 'When the change happened (RFC 3339).'),
  },
  {
    typeName: 'v1.AccessChange',
    description:
      'AccessChange is what one subject gained and lost through one committed change of the RBAC policy, who made the change and when. Read-only: recorded by the server, kept for --access-history-retention.',
  },
);

export const subjectOf = (c: AccessChange): string => {
  const s = c.subject;
  if (!s) return '';
  return s.kind === 'ServiceAccount' ? `ServiceAccount:${s.namespace ?? ''}:${s.name}` : `${s.kind}:${s.name}`;
};

const causeOf = (c: AccessChange): string => {
  const o = c.cause;
  if (!o) return '';
  return `${o.operation} ${o.kind}/${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
};

const summary = (entries: HistoryPermission[] | undefined): number => entries?.reduce((n, e) => n + e.verbs.length, 0) ?? 0;

export const accessChangeType: ResourceType<AccessChange> = {
  group: ACCESS_GROUP,
  version: ACCESS_VERSION,
  kind: 'AccessChange',
  listKind: 'AccessChangeList',
  plural: 'accesschanges',
  singular: 'accesschange',
  shortNames: [],
  categories: ['access'],
  namespaced: false,
  // Written by the server only: create, update and delete answer 405, as for kube's read-only resources.
  verbs: ['get', 'list', 'watch'],
  // 90 days of every permission change: read from the store, never held whole in memory.
  watchCache: false,
  nameValidator: validatePathSegmentName,
  schema: accessChangeSchema,
  strategy: { allowCreateOnUpdate: false, allowUnconditionalUpdate: false, validate: () => [], validateUpdate: () => [] },
  selectableFields: [
    { name: 'subject', value: subjectOf },
    { name: 'subject.kind', value: (c) => c.subject?.kind ?? '' },
    { name: 'subject.name', value: (c) => c.subject?.name ?? '' },
    { name: 'subject.namespace', value: (c) => c.subject?.namespace ?? '' },
    { name: 'namespace', value: (c) => c.namespace ?? '' },
    { name: 'cause.kind', value: (c) => c.cause?.kind ?? '' },
    { name: 'cause.user', value: (c) => c.cause?.user?.username ?? '' },
  ],
  table: {
    columns: [
      nameColumn,
      { name: 'Time', type: 'string', description: 'How long ago the change happened.', cell: (c, now) => ageOf(c.time, now) },
      { name: 'Subject', type: 'string', description: 'The subject: User:name, Group:name or ServiceAccount:namespace:name.', cell: subjectOf },
      { name: 'Namespace', type: 'string', description: 'The namespace of the permissions, or <cluster>.', cell: (c) => c.namespace ?? '<cluster>' },
      { name: 'Gained', type: 'integer', description: 'How many permissions (a verb on a resource or URL class) were gained.', cell: (c) => summary(c.gained) },
      { name: 'Lost', type: 'integer', description: 'How many permissions (a verb on a resource or URL class) were lost.', cell: (c) => summary(c.lost) },
      { name: 'Cause', type: 'string', description: 'The change: operation, kind, namespace and name.', cell: causeOf },
      { name: 'By', type: 'string', description: 'Who made the change.', cell: (c) => c.cause?.user?.username ?? '' },
      { name: 'Resource Version', type: 'string', priority: 1, description: 'The resourceVersion of the change.', cell: (c) => c.cause?.resourceVersion ?? '' },
    ],
  },
};
