import { labelSelectorRequirementSchema, objectMetaSchema } from '../api/schema/meta';
import { atomicList, boolean, kindSchema, map, named, string, struct } from '../api/schema/schema';

/**
 * authorization/v1 and authentication/v1 review kinds as kube's Go types declare them, so
 * the generic body decoding finds unknown fields and wrongly typed values in them. Type
 * names are the Go types kube's decoder names in type errors.
 */
const strings = () => atomicList(string());

export const fieldSelectorRequirementSchema = struct(
  { key: string(), operator: named(string(), 'v1.FieldSelectorOperator'), values: strings() },
  { required: ['key', 'operator'], typeName: 'v1.FieldSelectorRequirement' },
);

const fieldSelectorAttributesSchema = struct(
  { rawSelector: string(), requirements: atomicList(fieldSelectorRequirementSchema) },
  { typeName: 'v1.FieldSelectorAttributes' },
);

const labelSelectorAttributesSchema = struct(
  { rawSelector: string(), requirements: atomicList(labelSelectorRequirementSchema) },
  { typeName: 'v1.LabelSelectorAttributes' },
);

export const resourceAttributesSchema = struct(
  {
    namespace: string(),
    verb: string(),
    group: string(),
    version: string(),
    resource: string(),
    subresource: string(),
    name: string(),
    fieldSelector: fieldSelectorAttributesSchema,
    labelSelector: labelSelectorAttributesSchema,
  },
  { typeName: 'v1.ResourceAttributes' },
);

export const nonResourceAttributesSchema = struct({ path: string(), verb: string() }, { typeName: 'v1.NonResourceAttributes' });

/** map[string]ExtraValue, where ExtraValue is a []string. */
const extraSchema = () => map(strings());

const subjectAccessReviewSpecSchema = struct(
  {
    resourceAttributes: resourceAttributesSchema,
    nonResourceAttributes: nonResourceAttributesSchema,
    user: string(),
    groups: strings(),
    extra: extraSchema(),
    uid: string(),
  },
  { typeName: 'v1.SubjectAccessReviewSpec' },
);

const subjectAccessReviewStatusSchema = struct(
  { allowed: boolean(), denied: boolean(), reason: string(), evaluationError: string() },
  { required: ['allowed'], typeName: 'v1.SubjectAccessReviewStatus' },
);

export const subjectAccessReviewSchema = kindSchema(
  objectMetaSchema,
  { spec: subjectAccessReviewSpecSchema, status: subjectAccessReviewStatusSchema },
  'v1.SubjectAccessReview',
);

export const localSubjectAccessReviewSchema = kindSchema(
  objectMetaSchema,
  { spec: subjectAccessReviewSpecSchema, status: subjectAccessReviewStatusSchema },
  'v1.LocalSubjectAccessReview',
);

export const selfSubjectAccessReviewSchema = kindSchema(
  objectMetaSchema,
  {
    spec: struct(
      { resourceAttributes: resourceAttributesSchema, nonResourceAttributes: nonResourceAttributesSchema },
      { typeName: 'v1.SelfSubjectAccessReviewSpec' },
    ),
    status: subjectAccessReviewStatusSchema,
  },
  'v1.SelfSubjectAccessReview',
);

const resourceRuleSchema = struct(
  { verbs: strings(), apiGroups: strings(), resources: strings(), resourceNames: strings() },
  { required: ['verbs'], typeName: 'v1.ResourceRule' },
);

const nonResourceRuleSchema = struct({ verbs: strings(), nonResourceURLs: strings() }, { required: ['verbs'], typeName: 'v1.NonResourceRule' });

export const selfSubjectRulesReviewSchema = kindSchema(
  objectMetaSchema,
  {
    spec: struct({ namespace: string() }, { typeName: 'v1.SelfSubjectRulesReviewSpec' }),
    status: struct(
      {
        resourceRules: atomicList(resourceRuleSchema),
        nonResourceRules: atomicList(nonResourceRuleSchema),
        incomplete: boolean(),
        evaluationError: string(),
      },
      { required: ['resourceRules', 'nonResourceRules', 'incomplete'], typeName: 'v1.SubjectRulesReviewStatus' },
    ),
  },
  'v1.SelfSubjectRulesReview',
);

const userInfoSchema = struct(
  { username: string(), uid: string(), groups: strings(), extra: extraSchema() },
  { typeName: 'v1.UserInfo' },
);

export const selfSubjectReviewSchema = kindSchema(
  objectMetaSchema,
  { status: struct({ userInfo: userInfoSchema }, { typeName: 'v1.SelfSubjectReviewStatus' }) },
  'v1.SelfSubjectReview',
);
