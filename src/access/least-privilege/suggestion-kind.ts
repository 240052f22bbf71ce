import { FieldError, fieldErrors } from '../../apimachinery/field-errors';
import { KubeObject } from '../../apimachinery/types';
import { DurationSyntaxError, parseGoDuration } from '../../config/go-duration';
import { objectMetaSchema } from '../../runtime/schema/meta';
import { ResourceType } from '../../runtime/schema/resource-type';
import { any, atomicList, boolean, dateTime, field, int64, integer, kindSchema, string, struct } from '../../runtime/schema/schema';
import { policyRuleSchema } from '../../rbac/kinds/schemas';
import { createOnlyType, reviewStrategy } from '../../reviews/review-kinds';
import { ACCESS_GROUP, ACCESS_VERSION } from '../access-types';
import { SuggestionSubject } from './role-generation';
import { DEFAULT_USAGE_WINDOW } from './usage-window';

/** The window when `since` is not given. */
export const DEFAULT_SUGGESTION_WINDOW = DEFAULT_USAGE_WINDOW;

export interface AccessSuggestionSpec {
  subject?: SuggestionSubject;
  /** A Go duration: the window ends now. */
  since?: string;
}

export type AccessSuggestion = KubeObject & { spec?: AccessSuggestionSpec };

const bindingRefSchema = struct(
  { kind: field(string(), 'RoleBinding or ClusterRoleBinding.'), namespace: field(string(), 'Namespace of a RoleBinding.'), name: field(string(), 'Name of the binding.') },
  { typeName: 'v1.SuggestionBindingReference', description: 'A binding.' },
);

export const accessSuggestionSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(
      struct(
        {
          subject: field(
            struct(
              {
                kind: field(string(), 'User, Group or ServiceAccount.'),
                name: field(string(), 'Name of the subject.'),
                namespace: field(string(), 'Namespace of a ServiceAccount.'),
              },
              { typeName: 'v1.SuggestionSubject', description: 'The subject roles are generated for.' },
            ),
            'The subject roles are generated for.',
          ),
          since: field(string(), `How far back the window reaches, as a duration (default ${DEFAULT_SUGGESTION_WINDOW}); no more than the usage retention.`),
        },
        { typeName: 'v1.AccessSuggestionSpec', description: 'AccessSuggestionSpec names the subject and the window.' },
      ),
      'Spec names the subject and the window.',
    ),
    status: field(
      struct(
        {
          windowStart: field(dateTime(), 'Start of the window (RFC 3339).'),
          roles: field(atomicList(any()), 'The generated Roles and ClusterRoles, ready to apply: only what the subject used, never more than it holds.'),
          bindings: field(atomicList(any()), 'The generated RoleBindings and ClusterRoleBindings to the subject.'),
          replaces: field(atomicList(bindingRefSchema), 'The bindings naming the subject today, which the generated ones replace.'),
          throughGroups: field(
            atomicList(bindingRefSchema),
            'Bindings naming a group of the subject (or several subjects) through which it used part of what the generated roles allow; they are not replaced, since others hold them.',
          ),
          removedRules: field(
            atomicList(
              struct(
                {
                  binding: field(bindingRefSchema, 'The binding.'),
                  role: field(
                    struct({ kind: field(string(), 'Role or ClusterRole.'), name: field(string(), 'Name.') }, { typeName: 'v1.SuggestionRoleReference', description: 'A role.' }),
                    'The role.',
                  ),
                  ruleIndex: field(integer(), 'Index of the rule in the role.'),
                  rule: field(policyRuleSchema, 'The rule.'),
                },
                { typeName: 'v1.RemovedRule', description: 'RemovedRule is a rule the subject holds and did not use in the window.' },
              ),
            ),
            'The diff against the current grants: rules held through those bindings that allowed nothing in the window.',
          ),
          coveredUses: field(int64(), 'How many recorded requests and access reviews the generated roles allow.'),
          incomplete: field(boolean(), 'True when the answer may miss uses (see evaluationError).'),
          evaluationError: field(string(), 'Why the answer is incomplete.'),
        },
        { typeName: 'v1.AccessSuggestionStatus', description: 'AccessSuggestionStatus is the generated roles and bindings and the diff.' },
      ),
      'Status is filled in by the server.',
    ),
  },
  {
    typeName: 'v1.AccessSuggestion',
    description:
      'AccessSuggestion generates, for a subject and a window, the smallest Roles, ClusterRoles and bindings that allow what it used through the bindings naming it (recorded at decision time), and the rules it holds and did not use. Create only; nothing is stored.',
  },
);

const SUBJECT_KINDS = ['User', 'Group', 'ServiceAccount'];

/** The window of a spec in milliseconds (the syntax is checked by validation). */
export function windowOf(spec: AccessSuggestionSpec): number {
  return parseGoDuration(spec.since ?? DEFAULT_SUGGESTION_WINDOW);
}

export function validateAccessSuggestion(obj: KubeObject): FieldError[] {
  const spec = (obj as AccessSuggestion).spec ?? {};
  const errs: FieldError[] = [];
  const subject = spec.subject;
  if (!subject) errs.push(fieldErrors.required('spec.subject'));
  else {
    if (!SUBJECT_KINDS.includes(subject.kind)) errs.push(fieldErrors.notSupported('spec.subject.kind', subject.kind ?? '', SUBJECT_KINDS));
    if (!subject.name) errs.push(fieldErrors.required('spec.subject.name'));
    if (subject.kind === 'ServiceAccount' && !subject.namespace) errs.push(fieldErrors.required('spec.subject.namespace', 'a ServiceAccount is namespaced'));
    if (subject.kind !== 'ServiceAccount' && subject.namespace) errs.push(fieldErrors.invalid('spec.subject.namespace', subject.namespace, `a ${subject.kind} has no namespace`));
  }
  if (spec.since !== undefined) {
    try {
      if (windowOf(spec) <= 0) errs.push(fieldErrors.invalid('spec.since', spec.since, 'must be positive'));
    } catch (err) {
      if (!(err instanceof DurationSyntaxError)) throw err;
      errs.push(fieldErrors.invalid('spec.since', spec.since, err.message));
    }
  }
  return errs;
}

export const accessSuggestionType: ResourceType = createOnlyType(
  ACCESS_GROUP,
  ACCESS_VERSION,
  'AccessSuggestion',
  'accesssuggestions',
  false,
  accessSuggestionSchema,
  reviewStrategy(validateAccessSuggestion),
);
