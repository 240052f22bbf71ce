import { labelSelectorSchema, objectMetaSchema } from '../../runtime/schema/meta';
import { atomicList, atomicStruct, boolean, dateTime, field, int64, integer, kindSchema, map, mapList, string, struct } from '../../runtime/schema/schema';
import { roleRefSchema, subjectSchema } from '../../rbac/kinds/schemas';

/** The OpenAPI of the access request kinds: what `kubectl explain` prints, field validation and apply read. */

const strings = () => atomicList(string());

const roleSelectorSchema = struct(
  {
    kind: field(string(), 'Kind of the roles: "ClusterRole", or "Role" (a Role of the namespace the request is made in).'),
    names: field(strings(), 'Names of the roles that may be requested. Either names or selector is required.'),
    selector: field(labelSelectorSchema, 'Roles whose labels match may be requested. An empty selector matches every role of the kind.'),
  },
  { required: ['kind'], typeName: 'v1.AccessRequestPolicyRole', description: 'AccessRequestPolicyRole selects the roles a policy lets people request.' },
);

const autoApproveSchema = struct(
  {
    expression: field(
      string(),
      'A CEL expression over `request` (requester, groups, roleKind, roleName, namespace, durationSeconds, justification) that must evaluate to a bool. Cost-limited like every CEL expression of the server.',
    ),
  },
  { required: ['expression'], typeName: 'v1.AutoApproveCondition', description: 'AutoApproveCondition is one condition of automatic approval.' },
);

export const accessRequestPolicySchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(
      struct(
        {
          roles: field(atomicList(roleSelectorSchema), 'The roles that may be requested. At least one entry.'),
          namespaces: field(strings(), 'Namespaces where AccessRequests are allowed, by name.'),
          namespaceSelector: field(labelSelectorSchema, 'Namespaces where AccessRequests are allowed, by label. Together with namespaces: either matches.'),
          clusterWide: field(boolean(), 'Whether ClusterAccessRequests (a ClusterRole granted cluster-wide) are allowed.'),
          requesters: field(atomicList(subjectSchema), 'Who may request: Users, Groups and ServiceAccounts. At least one.'),
          approvers: field(
            atomicList(subjectSchema),
            'Who may approve, deny and revoke: Users and Groups. A requester never counts as an approver of their own request. An approver must also be able to grant the role (hold its permissions in the scope, or bind on it).',
          ),
          requiredApprovals: field(integer(), 'How many distinct approvers must approve. Defaults to 1.'),
          maxDuration: field(string(), 'The longest duration a request may ask for, as a Go duration (e.g. "2h"). Defaults to "1h".'),
          requireJustification: field(boolean(), 'Whether a request must give spec.justification.'),
          autoApprove: field(atomicList(autoApproveSchema), 'When every condition holds, a matching request is approved at once without approvers.'),
        },
        { required: ['roles', 'requesters'], typeName: 'v1.AccessRequestPolicySpec', description: 'AccessRequestPolicySpec is what a policy allows.' },
      ),
      'What may be requested, by whom, approved by whom and for how long.',
    ),
  },
  {
    typeName: 'v1.AccessRequestPolicy',
    description: 'AccessRequestPolicy allows a set of people to request a set of roles for a limited time, approved by another set of people.',
  },
);

const requesterSchema = struct(
  {
    username: field(string(), 'The name of the user who made the request.'),
    uid: field(string(), 'The uid of the user who made the request.'),
    groups: field(strings(), 'The groups of the user who made the request.'),
    extra: field(map(strings()), 'The extra attributes of the user who made the request.'),
  },
  { typeName: 'v1.AccessRequester', description: 'AccessRequester is the authenticated user who made a request, recorded by the server.' },
);

const decisionSchema = struct(
  {
    user: field(string(), 'Who decided; set by the server from the authenticated user.'),
    time: field(dateTime(), 'When; set by the server.'),
    comment: field(string(), 'Why, in the decider\'s words.'),
  },
  { typeName: 'v1.AccessRequestDecision', description: 'AccessRequestDecision is one approval, denial or revocation.' },
);

const conditionSchema = struct(
  {
    type: field(string(), 'Type of condition in CamelCase: Approved, Denied, Granted, Expired, Revoked.'),
    status: field(string(), 'Status of the condition, one of True, False, Unknown.'),
    reason: field(string(), 'A programmatic identifier of the reason for the last transition, in CamelCase.'),
    message: field(string(), 'A human readable message about the transition.'),
    lastTransitionTime: field(dateTime(), 'When the condition last changed its status.'),
    observedGeneration: field(int64(), 'The metadata.generation the condition was set for.'),
  },
  { required: ['type', 'status'], typeName: 'v1.Condition', description: 'Condition contains details for one aspect of the current state of this API Resource.' },
);

const bindingRefSchema = atomicStruct(
  {
    kind: field(string(), 'RoleBinding or ClusterRoleBinding.'),
    namespace: field(string(), 'Namespace of a RoleBinding.'),
    name: field(string(), 'Name of the binding.'),
    uid: field(string(), 'UID of the binding.'),
  },
  { typeName: 'v1.AccessRequestBindingReference', description: 'AccessRequestBindingReference names the binding that grants an approved request.' },
);

function requestSchema(kind: 'AccessRequest' | 'ClusterAccessRequest', description: string, roleRefDescription: string) {
  return kindSchema(
    objectMetaSchema,
    {
      spec: field(
        struct(
          {
            roleRef: field(roleRefSchema, roleRefDescription),
            duration: field(string(), 'How long the access lasts once approved, as a Go duration (e.g. "2h"): the clock starts at the final approval.'),
            justification: field(string(), 'Why the access is needed.'),
            requester: field(requesterSchema, 'The user who made the request: set by the server at creation, never by the client, and immutable.'),
          },
          { required: ['roleRef', 'duration'], typeName: `v1.${kind}Spec`, description: `${kind}Spec is what is requested. Immutable after creation.` },
        ),
        'What is requested. Immutable after creation.',
      ),
      status: field(
        struct(
          {
            phase: field(string(), 'Pending, Approved (a binding is being made), Active, Expired, Denied, Revoked or Canceled.'),
            policy: field(string(), 'The AccessRequestPolicy that allowed the request.'),
            approvals: field(atomicList(decisionSchema), 'The approvals, in order. Written through the approval subresource.'),
            denials: field(atomicList(decisionSchema), 'The denials. Written through the approval subresource.'),
            revocation: field(decisionSchema, 'Who revoked the access, when and why.'),
            cancellation: field(decisionSchema, 'When and why the requester canceled the request. Written through the cancellation subresource.'),
            validFrom: field(dateTime(), 'When the access starts: the time of the final approval.'),
            validUntil: field(dateTime(), 'When the access ends: validFrom plus spec.duration.'),
            bindingRef: field(bindingRefSchema, 'The binding that grants the access, owned by the request.'),
            conditions: field(mapList(conditionSchema, ['type'], { patchStrategy: 'merge', patchMergeKey: 'type' }), 'The request\'s conditions.'),
          },
          { typeName: `v1.${kind}Status`, description: `${kind}Status is what has happened to the request.` },
        ),
        'What has happened to the request. Written by the server only.',
      ),
    },
    { typeName: `v1.${kind}`, description },
  );
}

export const accessRequestSchema = requestSchema(
  'AccessRequest',
  'AccessRequest asks for a Role or ClusterRole in the request\'s namespace for a limited time. Once approved as its AccessRequestPolicy requires, a RoleBinding valid from the final approval for spec.duration grants it.',
  'The role requested: a Role of the request\'s namespace or a ClusterRole, granted in the request\'s namespace.',
);

export const clusterAccessRequestSchema = requestSchema(
  'ClusterAccessRequest',
  'ClusterAccessRequest asks for a ClusterRole cluster-wide for a limited time. Once approved as its AccessRequestPolicy requires, a ClusterRoleBinding valid from the final approval for spec.duration grants it.',
  'The ClusterRole requested, granted cluster-wide.',
);
