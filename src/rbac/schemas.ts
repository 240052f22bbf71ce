import { labelSelectorSchema, objectMetaSchema } from '../api/schema/meta';
import { atomicList, atomicStruct, kindSchema, string, struct } from '../api/schema/schema';

/**
 * rbac/v1 as kube marks it: rules, subjects and clusterRoleSelectors are atomic lists;
 * roleRef and Subject are atomic structs (so apply owns `f:roleRef` as one field). Type
 * names are the Go types kube's decoder names in type errors.
 */
const strings = () => atomicList(string());

export const policyRuleSchema = struct(
  { verbs: strings(), apiGroups: strings(), resources: strings(), resourceNames: strings(), nonResourceURLs: strings() },
  { required: ['verbs'], typeName: 'v1.PolicyRule' },
);

export const roleRefSchema = atomicStruct(
  { apiGroup: string(), kind: string(), name: string() },
  { required: ['apiGroup', 'kind', 'name'], typeName: 'v1.RoleRef' },
);

export const subjectSchema = atomicStruct(
  { kind: string(), apiGroup: string(), name: string(), namespace: string() },
  { required: ['kind', 'name'], typeName: 'v1.Subject' },
);

export const roleSchema = kindSchema(objectMetaSchema, { rules: atomicList(policyRuleSchema) }, 'v1.Role');

export const clusterRoleSchema = kindSchema(
  objectMetaSchema,
  {
    rules: atomicList(policyRuleSchema),
    aggregationRule: struct({ clusterRoleSelectors: atomicList(labelSelectorSchema) }, { typeName: 'v1.AggregationRule' }),
  },
  'v1.ClusterRole',
);

export const roleBindingSchema = kindSchema(objectMetaSchema, { subjects: atomicList(subjectSchema), roleRef: roleRefSchema }, 'v1.RoleBinding');

export const clusterRoleBindingSchema = kindSchema(
  objectMetaSchema,
  { subjects: atomicList(subjectSchema), roleRef: roleRefSchema },
  'v1.ClusterRoleBinding',
);
