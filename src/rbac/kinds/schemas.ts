import { labelSelectorSchema, objectMetaSchema } from '../../runtime/schema/meta';
import { atomicList, atomicStruct, field, kindSchema, string, struct } from '../../runtime/schema/schema';

/**
 * rbac/v1 as kube marks it: rules, subjects and clusterRoleSelectors are atomic lists;
 * roleRef and Subject are atomic structs (so apply owns `f:roleRef` as one field). Type
 * names are the Go types kube's decoder names in type errors.
 */
const strings = () => atomicList(string());

export const policyRuleSchema = struct(
  {
    verbs: field(
      strings(),
      "Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. '*' represents all verbs.",
    ),
    apiGroups: field(
      strings(),
      'APIGroups is the name of the APIGroup that contains the resources. If multiple API groups are specified, any action requested against one of the enumerated resources in any API group will be allowed. "" represents the core API group and "*" represents all API groups.',
    ),
    resources: field(strings(), "Resources is a list of resources this rule applies to. '*' represents all resources."),
    resourceNames: field(
      strings(),
      'ResourceNames is an optional white list of names that the rule applies to. An empty set means that everything is allowed.',
    ),
    nonResourceURLs: field(
      strings(),
      'NonResourceURLs is a set of partial urls that a user should have access to. *s are allowed, but only as the full, final step in the path. Rules can either apply to API resources (such as "pods" or "secrets") or non-resource URL paths (such as "/api"), but not both.',
    ),
  },
  {
    required: ['verbs'],
    typeName: 'v1.PolicyRule',
    description:
      'PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.',
  },
);

export const roleRefSchema = atomicStruct(
  {
    apiGroup: field(string(), 'APIGroup is the group for the resource being referenced.'),
    kind: field(string(), 'Kind is the type of resource being referenced.'),
    name: field(string(), 'Name is the name of resource being referenced.'),
  },
  { required: ['apiGroup', 'kind', 'name'], typeName: 'v1.RoleRef', description: 'RoleRef contains information that points to the role being used.' },
);

export const subjectSchema = atomicStruct(
  {
    kind: field(
      string(),
      'Kind of object being referenced. Values defined by this API group are "User", "Group", and "ServiceAccount". If the Authorizer does not recognize the kind value, it reports an error.',
    ),
    apiGroup: field(
      string(),
      'APIGroup holds the API group of the referenced subject. Defaults to "" for ServiceAccount subjects and to "rbac.authorization.platform.io" for User and Group subjects.',
    ),
    name: field(string(), 'Name of the object being referenced.'),
    namespace: field(
      string(),
      'Namespace of the referenced object. If the object kind is non-namespace, such as "User" or "Group", and this value is not empty the Authorizer reports an error.',
    ),
  },
  {
    required: ['kind', 'name'],
    typeName: 'v1.Subject',
    description:
      'Subject contains a reference to the object or user identities a role binding applies to. This can either hold a direct API object reference, or a value for non-objects such as user and group names.',
  },
);

const ROLE_REF = 'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.';

export const roleSchema = kindSchema(
  objectMetaSchema,
  { rules: field(atomicList(policyRuleSchema), 'Rules holds all the PolicyRules for this Role') },
  { typeName: 'v1.Role', description: 'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.' },
);

export const clusterRoleSchema = kindSchema(
  objectMetaSchema,
  {
    rules: field(atomicList(policyRuleSchema), 'Rules holds all the PolicyRules for this ClusterRole'),
    aggregationRule: field(
      struct(
        {
          clusterRoleSelectors: field(
            atomicList(labelSelectorSchema),
            "ClusterRoleSelectors holds a list of selectors which will be used to find ClusterRoles and create the rules. If any of the selectors match, then the ClusterRole's permissions will be added",
          ),
        },
        { typeName: 'v1.AggregationRule', description: 'AggregationRule describes how to locate ClusterRoles to aggregate into the ClusterRole' },
      ),
      'AggregationRule is an optional field that describes how to build the Rules for this ClusterRole. If AggregationRule is set, then the Rules are controller managed and direct changes to Rules will be stomped by the controller.',
    ),
  },
  {
    typeName: 'v1.ClusterRole',
    description: 'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
  },
);

export const roleBindingSchema = kindSchema(
  objectMetaSchema,
  {
    subjects: field(atomicList(subjectSchema), 'Subjects holds references to the objects the role applies to.'),
    roleRef: field(
      roleRefSchema,
      'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.',
    ),
  },
  {
    typeName: 'v1.RoleBinding',
    description:
      'RoleBinding references a role, but does not contain it. It can reference a Role in the same namespace or a ClusterRole in the global namespace. It adds who information via Subjects and namespace information by which namespace it exists in. RoleBindings in a given namespace only have effect in that namespace.',
  },
);

export const clusterRoleBindingSchema = kindSchema(
  objectMetaSchema,
  {
    subjects: field(atomicList(subjectSchema), 'Subjects holds references to the objects the role applies to.'),
    roleRef: field(roleRefSchema, ROLE_REF),
  },
  {
    typeName: 'v1.ClusterRoleBinding',
    description: 'ClusterRoleBinding references a ClusterRole, but not contain it. It can reference a ClusterRole in the global namespace, and adds who information via Subject.',
  },
);
