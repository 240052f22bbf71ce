import { createHash } from 'node:crypto';
import { objectMetaSchema } from '../../runtime/schema/meta';
import { ResourceType } from '../../runtime/schema/resource-type';
import { atomicList, boolean, dateTime, field, int64, integer, kindSchema, string, struct } from '../../runtime/schema/schema';
import { ageOf } from '../../runtime/table/human-duration';
import { KubeObject } from '../../apimachinery/types';
import { PolicyRule } from '../../apis/rbac/types';
import { policyRuleSchema } from '../../rbac/kinds/schemas';
import { GrantingBinding } from '../../authorization/authorizer';
import { bindingUsageName } from '../binding-usage-names';
import { ACCESS_GROUP, ACCESS_VERSION } from '../access-types';
import { Counted, UsedAttributes } from './usage-memory';

/**
 * RuleUsage and AccessDenial (access.platform.io/v1, read-only): which rule of which role
 * through which binding allowed what, and what the authorizer chain refused whom. Computed
 * at each read from the usage tables and this replica's unflushed records.
 */

/** One set of concrete attributes, how often and when. */
export interface RecordedAttributes {
  verb: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  nonResourceURL?: string;
  /** The user allowed, when the binding names a Group or several subjects. */
  user?: string;
  count: number;
  first: string;
  last: string;
}

export interface RuleUsage extends KubeObject {
  bindingRef: { kind: GrantingBinding['kind']; namespace?: string; name: string; uid: string };
  roleRef: { kind: string; name: string };
  ruleIndex: number;
  ruleHash: string;
  rule: PolicyRule;
  /** Whether the role still holds this rule (an edited rule is a new one). */
  current: boolean;
  uses: number;
  firstUsed: string;
  lastUsed: string;
  attributes: RecordedAttributes[];
}

export interface DenialSubject {
  kind: 'User' | 'ServiceAccount';
  name: string;
  namespace?: string;
}

export interface AccessDenial extends KubeObject {
  user: string;
  subject: DenialSubject;
  denials: number;
  lastDenied: string;
  attributes: RecordedAttributes[];
}

/** RFC 3339 to the second, as kube writes metav1.Time. */
export const rfc3339 = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** The attributes as served: empty parts left out. */
export function recordedAttributes(a: UsedAttributes & Counted & { user?: string }): RecordedAttributes {
  return {
    verb: a.verb,
    ...(a.apiGroup || a.resource ? { apiGroup: a.apiGroup } : {}),
    ...(a.resource ? { resource: a.resource } : {}),
    ...(a.subresource ? { subresource: a.subresource } : {}),
    ...(a.namespace ? { namespace: a.namespace } : {}),
    ...(a.nonResourceURL ? { nonResourceURL: a.nonResourceURL } : {}),
    ...(a.user ? { user: a.user } : {}),
    count: a.count,
    first: rfc3339(a.first),
    last: rfc3339(a.last),
  };
}

/** Attributes in a stable order: non-resource last, then by resource, namespace, verb. */
export const attributeOrder = (a: RecordedAttributes) =>
  [a.nonResourceURL ? 1 : 0, a.apiGroup ?? '', a.resource ?? '', a.subresource ?? '', a.namespace ?? '', a.verb, a.nonResourceURL ?? '', a.user ?? ''].join('\u0000');
export const sortAttributes = (list: RecordedAttributes[]) => list.sort((x, y) => (attributeOrder(x) < attributeOrder(y) ? -1 : attributeOrder(x) > attributeOrder(y) ? 1 : 0));

/** `<binding usage name>.rule-<hash>`: the same on every replica, new for an edited rule. */
export const ruleUsageName = (kind: GrantingBinding['kind'], namespace: string, name: string, hash: string) => `${bindingUsageName(kind, namespace, name)}.rule-${hash}`;

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The subject a user name is (a service account's user name names its namespace and name). */
export function subjectOfUser(user: string): DenialSubject {
  if (user.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const [namespace, name, ...rest] = user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
    if (namespace && name && !rest.length) return { kind: 'ServiceAccount', namespace, name };
  }
  return { kind: 'User', name: user };
}

/**
 * The name of a user's AccessDenial: `serviceaccount.<ns>.<name>` or `user.<name>` when those
 * are DNS labels; otherwise the name is made one and a last label `h<hash>` keeps it apart.
 */
export function accessDenialName(user: string): string {
  const subject = subjectOfUser(user);
  const parts = subject.kind === 'ServiceAccount' ? ['serviceaccount', subject.namespace!, subject.name] : ['user', subject.name];
  if (parts.slice(1).every((p) => p.length <= 63 && DNS_LABEL.test(p))) return parts.join('.');
  const label =
    user
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, 63)
      .replace(/^-+|-+$/g, '') || 'x';
  return `${parts[0]}.${label}.h${createHash('sha256').update(user).digest('hex').slice(0, 10)}`;
}

const recordedAttributesSchema = struct(
  {
    verb: field(string(), 'The verb.'),
    apiGroup: field(string(), 'The API group ("" is the core group); absent for a non-resource URL.'),
    resource: field(string(), 'The resource; absent for a non-resource URL.'),
    subresource: field(string(), 'The subresource, if any.'),
    namespace: field(string(), 'The namespace; absent for a cluster-wide request or a non-resource URL.'),
    nonResourceURL: field(string(), 'The path of a non-resource request.'),
    user: field(string(), 'RuleUsage: the user the rule allowed, when the binding names a Group or several subjects (absent when it names only that user, and for the default policy\'s bindings).'),
    count: field(int64(), 'How many times, summed over every replica.'),
    first: field(dateTime(), 'When first (RFC 3339).'),
    last: field(dateTime(), 'When last (RFC 3339).'),
  },
  {
    typeName: 'v1.RecordedAttributes',
    description: 'RecordedAttributes are the concrete attributes of requests and access reviews (resource names are not recorded), how often and when.',
  },
);

export const ruleUsageSchema = kindSchema(
  objectMetaSchema,
  {
    bindingRef: field(
      struct(
        {
          kind: field(string(), 'RoleBinding or ClusterRoleBinding.'),
          namespace: field(string(), 'Namespace of a RoleBinding.'),
          name: field(string(), 'Name of the binding.'),
          uid: field(string(), 'UID of the binding.'),
        },
        { typeName: 'v1.RuleUsageBindingReference', description: 'The binding through which the rule allowed.' },
      ),
      'The binding.',
    ),
    roleRef: field(
      struct({ kind: field(string(), 'Role or ClusterRole.'), name: field(string(), 'Name of the role.') }, { typeName: 'v1.RuleUsageRoleReference', description: 'The role the binding references.' }),
      'The role the binding references.',
    ),
    ruleIndex: field(integer(), 'Index of the rule in the role when it was first recorded.'),
    ruleHash: field(string(), 'Content hash of the rule: an edited rule is a new rule, with its own usage.'),
    rule: field(policyRuleSchema, 'The rule.'),
    current: field(boolean(), 'Whether the role still holds this rule.'),
    uses: field(int64(), 'How many requests and access reviews the rule allowed through the binding, summed over every replica.'),
    firstUsed: field(dateTime(), 'When the rule first allowed one (RFC 3339).'),
    lastUsed: field(dateTime(), 'When the rule last allowed one (RFC 3339).'),
    attributes: field(atomicList(recordedAttributesSchema), 'The concrete attributes the rule allowed.'),
  },
  {
    typeName: 'v1.RuleUsage',
    description: 'RuleUsage is what one rule of a role allowed through one binding: the concrete verbs, groups, resources and namespaces, how often and when. Read-only.',
  },
);

export const accessDenialSchema = kindSchema(
  objectMetaSchema,
  {
    user: field(string(), 'The user name the chain refused.'),
    subject: field(
      struct(
        { kind: field(string(), 'User or ServiceAccount.'), name: field(string(), 'Name.'), namespace: field(string(), 'Namespace of a ServiceAccount.') },
        { typeName: 'v1.DenialSubject', description: 'The subject the user name is.' },
      ),
      'The subject.',
    ),
    denials: field(int64(), 'How many requests and access reviews were refused, summed over every replica.'),
    lastDenied: field(dateTime(), 'When the last one was (RFC 3339).'),
    attributes: field(atomicList(recordedAttributesSchema), 'The concrete attributes refused.'),
  },
  {
    typeName: 'v1.AccessDenial',
    description: 'AccessDenial is what the authorizer chain refused one user (requests and access reviews): the concrete attributes, how often and when. Read-only.',
  },
);

const readOnlyStrategy = { allowCreateOnUpdate: false, allowUnconditionalUpdate: false, validate: () => [], validateUpdate: () => [] };

const bindingOf = (u: RuleUsage) =>
  u.bindingRef.namespace ? `${u.bindingRef.kind}/${u.bindingRef.namespace}/${u.bindingRef.name}` : `${u.bindingRef.kind}/${u.bindingRef.name}`;

export const ruleUsageType: ResourceType<RuleUsage> = {
  group: ACCESS_GROUP,
  version: ACCESS_VERSION,
  kind: 'RuleUsage',
  listKind: 'RuleUsageList',
  plural: 'ruleusages',
  singular: 'ruleusage',
  namespaced: false,
  verbs: ['get', 'list'],
  nameValidator: () => [],
  schema: ruleUsageSchema,
  strategy: readOnlyStrategy,
  selectableFields: [
    { name: 'bindingRef.kind', value: (u) => u.bindingRef.kind },
    { name: 'bindingRef.namespace', value: (u) => u.bindingRef.namespace ?? '' },
    { name: 'bindingRef.name', value: (u) => u.bindingRef.name },
    { name: 'roleRef.name', value: (u) => u.roleRef.name },
  ],
  table: {
    columns: [
      { name: 'Binding', type: 'string', description: 'The binding.', cell: bindingOf },
      { name: 'Role', type: 'string', description: 'The role.', cell: (u) => `${u.roleRef.kind}/${u.roleRef.name}` },
      { name: 'Rule', type: 'integer', description: 'Index of the rule in the role.', cell: (u) => u.ruleIndex },
      { name: 'Uses', type: 'integer', description: 'How many requests and access reviews it allowed.', cell: (u) => u.uses },
      { name: 'Attributes', type: 'integer', description: 'How many distinct attributes it allowed.', cell: (u) => u.attributes.length },
      { name: 'Last Used', type: 'string', description: 'How long ago it last allowed one.', cell: (u, now) => ageOf(u.lastUsed, now) },
    ],
  },
};

export const accessDenialType: ResourceType<AccessDenial> = {
  group: ACCESS_GROUP,
  version: ACCESS_VERSION,
  kind: 'AccessDenial',
  listKind: 'AccessDenialList',
  plural: 'accessdenials',
  singular: 'accessdenial',
  namespaced: false,
  verbs: ['get', 'list'],
  nameValidator: () => [],
  schema: accessDenialSchema,
  strategy: readOnlyStrategy,
  selectableFields: [
    { name: 'user', value: (d) => d.user },
    { name: 'subject.kind', value: (d) => d.subject.kind },
    { name: 'subject.namespace', value: (d) => d.subject.namespace ?? '' },
    { name: 'subject.name', value: (d) => d.subject.name },
  ],
  table: {
    columns: [
      { name: 'User', type: 'string', description: 'The user refused.', cell: (d) => d.user },
      { name: 'Denials', type: 'integer', description: 'How many requests and access reviews were refused.', cell: (d) => d.denials },
      { name: 'Attributes', type: 'integer', description: 'How many distinct attributes were refused.', cell: (d) => d.attributes.length },
      { name: 'Last Denied', type: 'string', description: 'How long ago the last one was.', cell: (d, now) => ageOf(d.lastDenied, now) },
    ],
  },
};
