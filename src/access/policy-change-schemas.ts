import { objectMetaSchema } from '../runtime/schema/meta';
import { any, atomicList, boolean, field, integer, kindSchema, string, struct } from '../runtime/schema/schema';
import { subjectSchema } from '../rbac/kinds/schemas';
import { bindingReferenceSchema, roleReferenceSchema } from './access-schemas';


/** PolicyChangeReview with its documentation (kubectl explain), so decoding finds unknown and mistyped fields. */
const strings = () => atomicList(string());

const changeSchema = struct(
  {
    object: field(
      any(),
      'A whole Role, ClusterRole, RoleBinding or ClusterRoleBinding (apiVersion rbac.authorization.platform.io/v1; rbac.authorization.k8s.io/v1 is read as the same), created or replacing the object of the same kind, namespace and name.',
    ),
    delete: field(boolean(), 'True: the object is deleted instead; only its apiVersion, kind, namespace and name are read.'),
  },
  { typeName: 'v1.PolicyChange', description: 'PolicyChange is one RBAC object created, replaced or deleted.' },
);

const scopeSchema = struct(
  {
    namespaces: field(strings(), 'Only these namespaces are compared (cluster-wide changes are always reported). Empty: every namespace the changes touch.'),
    subjects: field(atomicList(subjectSchema), 'Only these subjects are compared. Empty: every subject the changes touch.'),
  },
  { typeName: 'v1.PolicyChangeScope', description: 'PolicyChangeScope bounds the answer.' },
);

const questionFields = {
  verb: field(string(), 'The verb (get, list, create, ..., or a custom verb such as escalate or bind).'),
  apiGroup: field(string(), 'API group of the resource; empty for the core group.'),
  resource: field(string(), 'The resource (plural). One of resource and nonResourceURL.'),
  subresource: field(string(), 'The subresource, if any.'),
  name: field(string(), 'The name of the object, if one is asked about.'),
  namespace: field(string(), 'The namespace; empty: cluster-wide.'),
  nonResourceURL: field(string(), 'A non-resource URL path such as /healthz. One of resource and nonResourceURL.'),
};

const subjectQuestionSchema = struct(
  { subject: field(subjectSchema, 'The subject (User, Group or ServiceAccount) asked about, as bindings name it.'), ...questionFields },
  { typeName: 'v1.SubjectActionQuestion', description: 'SubjectActionQuestion is one subject and one action.' },
);

const onlySubjectsSchema = struct(
  { subjects: field(atomicList(subjectSchema), 'Exactly the subjects RBAC must allow the action; any other allowed subject fails the assertion.'), ...questionFields },
  { typeName: 'v1.OnlySubjectsQuestion', description: 'OnlySubjectsQuestion is an action and the exact set of subjects that may perform it.' },
);

const assertionSchema = struct(
  {
    name: field(string(), 'A name for the assertion, echoed in its result.'),
    can: field(subjectQuestionSchema, 'The subject must be allowed the action.'),
    cannot: field(subjectQuestionSchema, 'The subject must not be allowed the action.'),
    onlySubjects: field(onlySubjectsSchema, 'Exactly these subjects may perform the action.'),
  },
  { typeName: 'v1.PolicyAssertion', description: 'PolicyAssertion is a statement about the policy after the changes: exactly one of can, cannot and onlySubjects.' },
);

const causeSchema = struct(
  { binding: field(bindingReferenceSchema, 'The binding.'), role: field(roleReferenceSchema, 'The role it references.') },
  { typeName: 'v1.PermissionCause', description: 'PermissionCause is the binding and role that make a permission change.' },
);

const exceptSchema = struct(
  {
    verbs: field(strings(), 'Verbs a `*` verb leaves out.'),
    apiGroups: field(strings(), 'API groups a `*` apiGroup leaves out.'),
    resources: field(strings(), 'Resources a `*`, `*/*` or `*/sub` resource leaves out.'),
    resourceNames: field(strings(), 'Names an absent resourceName (any name) leaves out.'),
    nonResourceURLs: field(strings(), 'URLs a `*` or `prefix*` nonResourceURL leaves out.'),
  },
  { typeName: 'v1.PermissionExceptions', description: 'PermissionExceptions lists the values a wildcard of the entry does not cover.' },
);

/** What a gained or lost class of actions names besides its subject, namespace and verb (a PermissionChange and an access-history entry alike). */
const permissionClassFields = {
  apiGroup: field(string(), 'The API group; `*`: every group but except.apiGroups.'),
  resource: field(string(), '`resource`, `resource/subresource`; `*`: every resource (no subresource), `*/sub`: that subresource of every resource, `*/*`: every subresource; each but except.resources.'),
  resourceName: field(string(), 'The object name; absent: every name but except.resourceNames.'),
  nonResourceURL: field(string(), 'The URL; `*` or `prefix*`: every URL (under the prefix) but except.nonResourceURLs.'),
  exceptNamespaces: field(strings(), 'For a cluster-wide entry: namespaces where the subject already had (or keeps) it through its own RoleBindings.'),
  except: field(exceptSchema, 'Values the wildcards of this entry leave out.'),
  via: field(atomicList(causeSchema), 'The bindings and roles that grant it (after the change for a gain, before it for a loss).'),
};

export const permissionChangeSchema = struct(
  {
    subject: field(subjectSchema, 'The subject, as bindings name it; a user is compared on its own bindings, a group on the bindings naming the group.'),
    namespace: field(string(), 'The namespace; absent: cluster-wide and in every namespace except exceptNamespaces.'),
    verb: field(string(), 'The verb; `*`: every verb but except.verbs.'),
    ...permissionClassFields,
    restrictedByGuardrails: field(strings(), 'Access guardrails that deny the subject part of this wildcard or cluster-wide entry: that part is neither gained nor lost.'),
  },
  {
    typeName: 'v1.PermissionChange',
    description: 'PermissionChange is one class of actions a subject gains or loses: every request in it is allowed after and not before (or the reverse).',
  },
);

/** An entry of access history: a PermissionChange with the verbs of the entries that differ only in their verb together. */
export const historyPermissionSchema = struct(
  {
    verbs: field(strings(), 'The verbs; `*`: every verb but except.verbs.'),
    ...permissionClassFields,
  },
  {
    typeName: 'v1.AccessChangePermission',
    description: 'AccessChangePermission is a class of actions gained or lost, as a PolicyChangeReview entry, with its verbs together: every request in it is allowed after and not before (or the reverse).',
  },
);

const blockedSchema = struct(
  {
    direction: field(string(), '`Gained` or `Lost`: the list RBAC alone would put the entry in.'),
    entry: field(permissionChangeSchema, 'The entry RBAC grants (or takes away).'),
    guardrail: field(string(), 'Name of the AccessGuardrail that denies it to the subject.'),
    reason: field(string(), "The guardrail's reason, as a SubjectAccessReview gives it."),
  },
  {
    required: ['direction', 'entry', 'guardrail'],
    typeName: 'v1.GuardrailBlockedPermissionChange',
    description: 'GuardrailBlockedPermissionChange is an entry RBAC would grant or take away that an access guardrail denies the subject, so its access does not change.',
  },
);

const deniedSchema = struct(
  {
    change: field(integer(), 'Index of the change in spec.changes.'),
    kind: field(string(), 'Kind of the object.'),
    namespace: field(string(), 'Namespace of the object.'),
    name: field(string(), 'Name of the object.'),
    reason: field(string(), 'Why the write would be refused (authorization, escalation prevention, a roleRef that cannot change).'),
  },
  { typeName: 'v1.DeniedPolicyChange', description: 'DeniedPolicyChange is a change the caller could not make.' },
);

const counterexampleSchema = struct(
  {
    subject: field(subjectSchema, 'The subject.'),
    binding: field(bindingReferenceSchema, 'The binding that grants it, when the failure is an allowed subject.'),
    role: field(roleReferenceSchema, 'The role of that binding.'),
    guardrail: field(string(), 'The access guardrail that denies the subject what RBAC grants it.'),
  },
  { typeName: 'v1.AssertionCounterexample', description: 'AssertionCounterexample is a subject (and binding) that makes an assertion fail.' },
);

const assertionResultSchema = struct(
  {
    index: field(integer(), 'Index of the assertion in spec.assertions.'),
    name: field(string(), 'Name of the assertion.'),
    passed: field(boolean(), 'Whether the assertion holds.'),
    message: field(string(), 'What was found.'),
    counterexamples: field(atomicList(counterexampleSchema), 'For a failure: the subjects (and bindings) that make it fail.'),
  },
  { required: ['index', 'passed'], typeName: 'v1.AssertionResult', description: 'AssertionResult says whether an assertion holds.' },
);

const statusSchema = struct(
  {
    gained: field(atomicList(permissionChangeSchema), 'What subjects may do after the changes and not before.'),
    lost: field(atomicList(permissionChangeSchema), 'What subjects may do before the changes and not after.'),
    blockedByGuardrails: field(atomicList(blockedSchema), 'Entries RBAC would add to gained or lost that an access guardrail denies the subject: not access it gains or loses.'),
    denied: field(atomicList(deniedSchema), 'Changes the caller could not make, with the reason.'),
    assertions: field(atomicList(assertionResultSchema), 'The result of each assertion, in order.'),
    incomplete: field(boolean(), 'True when authorizers outside RBAC take part in decisions: their grants are not in the answer.'),
    evaluationError: field(string(), 'Why the answer is incomplete.'),
  },
  { required: ['incomplete'], typeName: 'v1.PolicyChangeReviewStatus', description: 'PolicyChangeReviewStatus is what the changes grant and take away, and whether the assertions hold.' },
);

export const policyChangeReviewSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(
      struct(
        {
          changes: field(atomicList(changeSchema), 'RBAC objects to create, replace or delete; nothing is stored.'),
          scope: field(scopeSchema, 'Bounds the answer to some namespaces or subjects.'),
          assertions: field(atomicList(assertionSchema), 'Statements checked against the policy after the changes (the current policy without changes).'),
        },
        { typeName: 'v1.PolicyChangeReviewSpec', description: 'PolicyChangeReviewSpec is a proposed set of RBAC changes and statements to check.' },
      ),
      'Spec holds the proposed changes and the assertions.',
    ),
    status: field(statusSchema, 'Status is filled in by the server.'),
  },
  {
    typeName: 'v1.PolicyChangeReview',
    description:
      'PolicyChangeReview answers what a proposed set of RBAC changes would grant and take away, per subject, exactly, without storing anything; and whether assertions about the policy hold.',
  },
);
