import { objectMetaSchema } from '../runtime/schema/meta';
import { atomicList, boolean, field, integer, kindSchema, map, string, struct, StructSchema } from '../runtime/schema/schema';
import { policyRuleSchema, subjectSchema } from '../rbac/kinds/schemas';
import { nonResourceAttributesSchema, resourceAttributesSchema, selfSubjectRulesReviewSchema, subjectAccessReviewSchema } from '../reviews/review-schemas';

/**
 * The kinds of access.platform.io/v1 with their documentation, so the generic body decoding
 * finds unknown and wrongly typed fields and OpenAPI (kubectl explain) describes them.
 */
const strings = () => atomicList(string());

const RESOURCE_ATTRIBUTES = 'The resource action asked about (the same shape and rules as in a SubjectAccessReview). Exactly one of resourceAttributes and nonResourceAttributes.';
const NON_RESOURCE_ATTRIBUTES = 'The non-resource action asked about (a URL path and an HTTP verb). Exactly one of resourceAttributes and nonResourceAttributes.';

const resourceAccessReviewSpecSchema = struct(
  {
    resourceAttributes: field(resourceAttributesSchema, RESOURCE_ATTRIBUTES),
    nonResourceAttributes: field(nonResourceAttributesSchema, NON_RESOURCE_ATTRIBUTES),
  },
  { typeName: 'v1.ResourceAccessReviewSpec', description: 'ResourceAccessReviewSpec is the action whose allowed subjects are asked for.' },
);

export const bindingReferenceSchema = struct(
  {
    kind: field(string(), 'Kind of the binding: RoleBinding or ClusterRoleBinding.'),
    namespace: field(string(), 'Namespace of a RoleBinding; empty for a ClusterRoleBinding.'),
    name: field(string(), 'Name of the binding.'),
  },
  { typeName: 'v1.BindingReference', description: 'BindingReference names a RoleBinding or ClusterRoleBinding.' },
);

export const roleReferenceSchema = struct(
  {
    kind: field(string(), 'Kind of the role the binding references: Role or ClusterRole.'),
    name: field(string(), 'Name of the role.'),
  },
  { typeName: 'v1.RoleReference', description: "RoleReference names the role a binding's roleRef points to." },
);

const accessGrantSchema = struct(
  {
    binding: field(bindingReferenceSchema, 'The binding that grants the action.'),
    role: field(roleReferenceSchema, 'The role whose rules allow the action.'),
    subjects: field(atomicList(subjectSchema), 'The subjects of the binding the action is granted to (malformed subjects left out).'),
  },
  { typeName: 'v1.AccessGrant', description: 'AccessGrant is one binding that grants the action.' },
);

const blockedSubjectSchema = struct(
  {
    kind: field(string(), 'User or Group.'),
    name: field(string(), 'Name of the user (service accounts as system:serviceaccount:<namespace>:<name>) or group.'),
    guardrail: field(string(), 'The AccessGuardrail that denies it the action.'),
    reason: field(string(), 'The reason the guardrail gives (its message).'),
  },
  { typeName: 'v1.BlockedSubject', description: 'BlockedSubject is a subject RBAC grants the action to but an AccessGuardrail denies it.' },
);

const resourceAccessReviewStatusSchema = struct(
  {
    users: field(strings(), 'Users allowed the action, sorted and unique; service accounts as system:serviceaccount:<namespace>:<name>.'),
    groups: field(strings(), 'Groups allowed the action, sorted and unique; always includes system:masters.'),
    grants: field(atomicList(accessGrantSchema), 'One entry per RBAC binding that grants the action.'),
    incomplete: field(boolean(), 'True when an authorizer of the chain cannot enumerate the subjects it allows; evaluationError names each.'),
    evaluationError: field(string(), 'Why the lists may be incomplete.'),
    blocked: field(
      atomicList(blockedSubjectSchema),
      'Subjects RBAC grants the action to but an AccessGuardrail denies it, judged by the subject alone (a user may still be spared as a member of an excepted group); left out of users, groups and grants.',
    ),
  },
  {
    required: ['incomplete'],
    typeName: 'v1.ResourceAccessReviewStatus',
    description: 'ResourceAccessReviewStatus lists the subjects allowed the action, as the RBAC authorizer decides it.',
  },
);

const RAR_DESCRIPTION =
  'ResourceAccessReview asks which users and groups may perform an action. An empty namespace means "in every namespace": only cluster-wide grants count. The answers agree with SubjectAccessReview.';

export const resourceAccessReviewSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(resourceAccessReviewSpecSchema, 'Spec holds the action being asked about.'),
    status: field(resourceAccessReviewStatusSchema, 'Status is filled in by the server with the subjects allowed the action.'),
  },
  { typeName: 'v1.ResourceAccessReview', description: RAR_DESCRIPTION },
);

export const localResourceAccessReviewSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(
      resourceAccessReviewSpecSchema,
      'Spec holds the action being asked about. spec.resourceAttributes.namespace must be equal to the namespace of the request; if empty, it is defaulted.',
    ),
    status: field(resourceAccessReviewStatusSchema, 'Status is filled in by the server with the subjects allowed the action.'),
  },
  {
    typeName: 'v1.LocalResourceAccessReview',
    description: 'LocalResourceAccessReview asks which users and groups may perform an action in one namespace; it can be granted per namespace.',
  },
);

const subjectRulesReviewSpecSchema = struct(
  {
    user: field(string(), 'User whose rules are asked for. Without groups, the user is taken to be in no group.'),
    groups: field(strings(), 'Groups of the subject.'),
    uid: field(string(), 'UID of the subject.'),
    extra: field(map(strings()), 'Extra attributes of the subject, as an authenticator gives them.'),
    namespace: field(string(), 'Namespace to list the rules in. Empty: the cluster-wide rules only.'),
  },
  { typeName: 'v1.SubjectRulesReviewSpec', description: 'SubjectRulesReviewSpec names a subject and a namespace.' },
);

export const subjectRulesReviewSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(subjectRulesReviewSpecSchema, 'Spec holds the subject and namespace being asked about.'),
    status: field(selfSubjectRulesReviewSchema.fields.status, 'Status is filled in by the server with the actions the subject may perform.'),
  },
  {
    typeName: 'v1.SubjectRulesReview',
    description: 'SubjectRulesReview lists the actions any subject may perform in a namespace, as SelfSubjectRulesReview does for the caller.',
  },
);

const ruleGrantFields = {
  binding: field(bindingReferenceSchema, 'The binding.'),
  role: field(roleReferenceSchema, 'The role the binding references.'),
  ruleIndex: field(integer(), 'Index of the rule in the role.'),
  rule: field(policyRuleSchema, 'The rule.'),
};

const ruleGrantSchema = struct(ruleGrantFields, { typeName: 'v1.RuleGrant', description: 'RuleGrant is one rule that allows the action, and where it comes from.' });

const nearMissSchema = struct(
  { ...ruleGrantFields, missing: field(strings(), 'What the rule lacks to allow the action, one line per dimension that fails.') },
  { typeName: 'v1.NearMiss', description: "NearMiss is a rule of the subject's own bindings that comes closest to allowing the action." },
);

const unusableBindingSchema = struct(
  {
    binding: field(bindingReferenceSchema, 'The binding.'),
    role: field(roleReferenceSchema, 'The role the binding references.'),
    reason: field(string(), 'Why the binding grants nothing (role not found, malformed subject, outside its validity window).'),
    validFrom: field(string(), 'For a time-bound binding outside its window: its valid-from annotation.'),
    validUntil: field(string(), 'For a time-bound binding outside its window: its valid-until annotation.'),
  },
  { typeName: 'v1.UnusableBinding', description: 'UnusableBinding is a binding naming the subject that cannot grant anything.' },
);

const authorizerDecisionSchema = struct(
  {
    authorizer: field(
      struct(
        { type: field(string(), 'Type of the authorizer (Privileged, RBAC, Node, ABAC, Webhook, AlwaysAllow, AlwaysDeny).'), name: field(string(), 'Name of the authorizer in the chain.') },
        { typeName: 'v1.AuthorizerReference', description: 'AuthorizerReference names an authorizer of the chain.' },
      ),
      'The authorizer asked.',
    ),
    decision: field(string(), 'Its decision: Allow, Deny or NoOpinion.'),
    reason: field(string(), 'Its reason.'),
  },
  { typeName: 'v1.AuthorizerDecision', description: 'AuthorizerDecision is what one authorizer of the chain answered.' },
);

const accessExplanationStatusSchema = struct(
  {
    allowed: field(boolean(), 'True if the action would be allowed (identical to a SubjectAccessReview for the same spec).'),
    denied: field(boolean(), 'True if the action would be denied.'),
    reason: field(string(), 'The reason, as a SubjectAccessReview gives it.'),
    evaluationError: field(string(), 'Errors met evaluating, as a SubjectAccessReview gives them.'),
    decisions: field(atomicList(authorizerDecisionSchema), 'Each authorizer of the chain that was asked, in order.'),
    deniedByGuardrail: field(string(), 'The AccessGuardrail that denied the action, when one did.'),
    grants: field(atomicList(ruleGrantSchema), 'Every RBAC binding, role and rule that allows the action.'),
    nearMisses: field(atomicList(nearMissSchema), "When RBAC does not allow: up to 10 rules of the subject's own bindings that come closest, fewest missing first."),
    unusableBindings: field(atomicList(unusableBindingSchema), 'When RBAC does not allow: bindings naming the subject that would apply but grant nothing, and why.'),
  },
  { required: ['allowed'], typeName: 'v1.AccessExplanationStatus', description: 'AccessExplanationStatus is the decision and why it came out so.' },
);

export const accessExplanationSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(subjectAccessReviewSchema.fields.spec as StructSchema, 'Spec holds the subject and action, as in a SubjectAccessReview.'),
    status: field(accessExplanationStatusSchema, 'Status is filled in by the server with the decision and its explanation.'),
  },
  {
    typeName: 'v1.AccessExplanation',
    description: "AccessExplanation explains a decision: each authorizer's answer, every rule that grants it, or the rules that come closest.",
  },
);
