import { labelSelectorSchema, objectMetaSchema } from '../../runtime/schema/meta';
import { atomicList, boolean, field, kindSchema, string, struct } from '../../runtime/schema/schema';
import { subjectSchema } from '../../rbac/kinds/schemas';

/** AccessGuardrail as field validation, apply, `kubectl explain` and OpenAPI read it. */

const strings = () => atomicList(string());

const guardrailMatchSchema = struct(
  {
    verbs: field(strings(), "The verbs it matches ('*': every verb), as in a PolicyRule."),
    apiGroups: field(strings(), 'The API groups of the resources it matches ("" is the core group, "*" every group).'),
    resources: field(strings(), "The resources it matches, `resource/subresource` for a subresource, `*/subresource` for that subresource of every resource, '*' for all."),
    resourceNames: field(strings(), 'Object names it is limited to; empty: any name. As in RBAC, a request that names no object (create, an unfiltered list) does not match a list of names.'),
    nonResourceURLs: field(strings(), 'Non-resource URLs it matches (exact, or a prefix ending in *). Either resources or nonResourceURLs, not both.'),
    namespaces: field(
      strings(),
      'Namespaces it is limited to, by name. A list, watch or deletecollection across all namespaces reaches them too, so it matches. Empty, with no namespaceSelector: every namespace and cluster-scoped resources.',
    ),
    namespaceSelector: field(labelSelectorSchema, 'Namespaces it is limited to, by their labels; a namespace matching either this or namespaces is enough.'),
  },
  {
    required: ['verbs'],
    typeName: 'v1.GuardrailMatch',
    description: 'GuardrailMatch selects requests with the rules RBAC matches PolicyRules with, plus the namespaces they are in.',
  },
);

export const accessGuardrailSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(
      struct(
        {
          match: field(guardrailMatchSchema, 'The requests the guardrail denies.'),
          subjects: field(atomicList(subjectSchema), 'To whom it applies (users, groups, service accounts); empty: everyone. system:masters is never denied (the break-glass path).'),
          exceptions: field(atomicList(subjectSchema), 'Users, groups and service accounts exempt from it, even when subjects names them.'),
          condition: field(
            string(),
            'A CEL expression over `request` (a v1 SubjectAccessReview spec: user, groups, uid, extra, resourceAttributes, nonResourceAttributes), as the authorization webhook match conditions see it. The guardrail denies only when it is true. Compiled when written; evaluated within a cost budget.',
          ),
          message: field(string(), 'Why: shown in the 403 and in access reviews.'),
          failurePolicy: field(string(), 'What an expression that fails to evaluate does: Deny (the default) or NoOpinion (the guardrail is skipped). Never Allow.'),
          allowLockout: field(
            boolean(),
            'Write the guardrail even though it denies every RBAC administrator (every subject bound cluster-wide to delete accessguardrails) the update or removal of guardrails. Members of system:masters can always remove it.',
          ),
        },
        { required: ['match'], typeName: 'v1.AccessGuardrailSpec', description: 'AccessGuardrailSpec is what a guardrail denies, to whom, and why.' },
      ),
      'What the guardrail denies.',
    ),
  },
  {
    typeName: 'v1.AccessGuardrail',
    description:
      'AccessGuardrail is a deny rule no RBAC binding can override: the Guardrail authorizer, asked before RBAC, webhooks and every other authorizer but system:masters, denies the requests it matches, and every access review, who-can answer and explanation says so.',
  },
);
