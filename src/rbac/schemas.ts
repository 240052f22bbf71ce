import { labelSelectorSchema, objectMetaSchema } from '../api/schema/meta';
import { atomicList, atomicStruct, kindSchema, string, struct } from '../api/schema/schema';

/**
 * rbac/v1 as kube marks it: rules, subjects and clusterRoleSelectors are atomic lists;
 * roleRef and Subject are atomic structs (so apply owns `f:roleRef` as one field).
 */
const strings = () => atomicList(string());

export const policyRuleSchema = struct(
  { verbs: strings(), apiGroups: strings(), resources: strings(), resourceNames: strings(), nonResourceURLs: strings() },
  { required: ['verbs'] },
);

export const roleRefSchema = atomicStruct({ apiGroup: string(), kind: string(), name: string() }, { required: ['apiGroup', 'kind', 'name'] });

export const subjectSchema = atomicStruct({ kind: string(), apiGroup: string(), name: string(), namespace: string() }, { required: ['kind', 'name'] });

export const roleSchema = kindSchema(objectMetaSchema, { rules: atomicList(policyRuleSchema) });

export const clusterRoleSchema = kindSchema(objectMetaSchema, {
  rules: atomicList(policyRuleSchema),
  aggregationRule: struct({ clusterRoleSelectors: atomicList(labelSelectorSchema) }),
});

export const roleBindingSchema = kindSchema(objectMetaSchema, { subjects: atomicList(subjectSchema), roleRef: roleRefSchema });

export const clusterRoleBindingSchema = roleBindingSchema;
