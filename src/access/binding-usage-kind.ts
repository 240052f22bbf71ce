import { objectMetaSchema } from '../runtime/schema/meta';
import { ResourceType } from '../runtime/schema/resource-type';
import { dateTime, field, int64, kindSchema, string, struct } from '../runtime/schema/schema';
import { ageColumn } from '../runtime/table/columns';
import { ageOf } from '../runtime/table/human-duration';
import { KubeObject } from '../apimachinery/types';
import { GrantingBinding } from '../authorization/authorizer';
import { ACCESS_GROUP, ACCESS_VERSION } from './access-types';

/**
 * BindingUsage (access.platform.io/v1 bindingusages): how often each RoleBinding and
 * ClusterRoleBinding allowed a request or an access review, and when it last did. A
 * read-only view computed from the RBAC index and the usage table: list and get only.
 */
export interface BindingUsage extends KubeObject {
  bindingRef: { kind: GrantingBinding['kind']; namespace?: string; name: string; uid: string };
  grants: number;
  /** RFC 3339; absent when the binding never granted. */
  lastGranted?: string;
  bindingCreated?: string;
}

const bindingUsageRefSchema = struct(
  {
    kind: field(string(), 'Kind of the binding: RoleBinding or ClusterRoleBinding.'),
    namespace: field(string(), 'Namespace of a RoleBinding; empty for a ClusterRoleBinding.'),
    name: field(string(), 'Name of the binding.'),
    uid: field(string(), 'UID of the binding: a binding deleted and made again under the same name starts from zero.'),
  },
  { typeName: 'v1.BindingUsageReference', description: 'BindingUsageReference names the binding a BindingUsage counts.' },
);

export const bindingUsageSchema = kindSchema(
  objectMetaSchema,
  {
    bindingRef: field(bindingUsageRefSchema, 'The binding.'),
    grants: field(int64(), 'How many requests and access reviews the binding allowed, summed over every replica (counts reach the database at most every flush interval).'),
    lastGranted: field(dateTime(), 'When the binding last allowed one (RFC 3339); absent if it never did.'),
    bindingCreated: field(dateTime(), 'When the binding was created.'),
  },
  {
    typeName: 'v1.BindingUsage',
    description: 'BindingUsage is how often a RoleBinding or ClusterRoleBinding granted access and when it last did. Read-only: one per binding, named after it.',
  },
);

const bindingOf = (u: BindingUsage) =>
  u.bindingRef.namespace ? `${u.bindingRef.kind}/${u.bindingRef.namespace}/${u.bindingRef.name}` : `${u.bindingRef.kind}/${u.bindingRef.name}`;

export const bindingUsageType: ResourceType<BindingUsage> = {
  group: ACCESS_GROUP,
  version: ACCESS_VERSION,
  kind: 'BindingUsage',
  listKind: 'BindingUsageList',
  plural: 'bindingusages',
  singular: 'bindingusage',
  namespaced: false,
  verbs: ['get', 'list'],
  // Names are derived, never given: a get of any other name is simply not found.
  nameValidator: () => [],
  schema: bindingUsageSchema,
  // Nothing is ever written; the hooks exist because every kind has a strategy.
  strategy: { allowCreateOnUpdate: false, allowUnconditionalUpdate: false, validate: () => [], validateUpdate: () => [] },
  selectableFields: [
    { name: 'bindingRef.kind', value: (u) => u.bindingRef.kind },
    { name: 'bindingRef.namespace', value: (u) => u.bindingRef.namespace ?? '' },
  ],
  table: {
    columns: [
      { name: 'Binding', type: 'string', description: 'The binding: kind, namespace (RoleBinding) and name.', cell: bindingOf },
      { name: 'Grants', type: 'integer', description: 'How many requests and access reviews the binding allowed.', cell: (u) => u.grants },
      {
        name: 'Last Granted',
        type: 'string',
        description: 'How long ago the binding last allowed one.',
        cell: (u, now) => (u.lastGranted ? ageOf(u.lastGranted, now) : '<none>'),
      },
      ageColumn,
    ],
  },
};
