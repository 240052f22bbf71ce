import { createHash } from 'node:crypto';
import { objectMetaSchema } from '../../runtime/schema/meta';
import { ResourceType } from '../../runtime/schema/resource-type';
import { atomicList, boolean, dateTime, field, integer, kindSchema, string, struct } from '../../runtime/schema/schema';
import { KubeObject } from '../../apimachinery/types';
import { PolicyRule, Subject } from '../../apis/rbac/types';
import { policyRuleSchema, subjectSchema } from '../../rbac/kinds/schemas';
import { ACCESS_GROUP, ACCESS_VERSION } from '../access-types';

/** The kinds of finding, as `type` names them. */
export const FINDING_TYPES = ['UnusedBinding', 'UnusedRule', 'PartlyUsedWildcard', 'UnusedSensitivePermission', 'MissingServiceAccount', 'PathToClusterAdmin'] as const;
export type FindingType = (typeof FINDING_TYPES)[number];

export interface SuggestedFix {
  /** What to do, in words. */
  description: string;
  /** A command that does it (kubectl), when one does. */
  command?: string;
  /** The rule to put in place of the finding's rule (absent: remove it). */
  replacementRule?: PolicyRule;
}

export interface AccessFinding extends KubeObject {
  type: FindingType;
  bindingRef: { kind: 'RoleBinding' | 'ClusterRoleBinding'; namespace?: string; name: string };
  roleRef: { kind: string; name: string };
  /** The subject of the binding the finding is about (a binding with several has one finding per subject). */
  subject: Subject;
  ruleIndex?: number;
  rule?: PolicyRule;
  message: string;
  /** The concrete verbs, API groups and resources used through a wildcard rule. */
  usedVerbs?: string[];
  usedAPIGroups?: string[];
  usedResources?: string[];
  /** Sensitive permissions the rule grants that were not used. */
  unusedPermissions?: string[];
  /** PathToClusterAdmin: the subject's shortest escalation path, in words. */
  escalationPath?: string;
  /** Start of the window the finding is about (RFC 3339). */
  windowStart: string;
  /** The window as the list selected it (field selector `since`, default 720h). */
  since?: string;
  /** True when use in the window may be missing from the records the finding was computed from (see evaluationError). */
  incomplete?: boolean;
  evaluationError?: string;
  lastUsed?: string;
  suggestedFix: SuggestedFix;
}

const strings = () => atomicList(string());

export const accessFindingSchema = kindSchema(
  objectMetaSchema,
  {
    type: field(string(), `The kind of finding: ${FINDING_TYPES.join(', ')}.`),
    bindingRef: field(
      struct(
        { kind: field(string(), 'RoleBinding or ClusterRoleBinding.'), namespace: field(string(), 'Namespace of a RoleBinding.'), name: field(string(), 'Name of the binding.') },
        { typeName: 'v1.AccessFindingBindingReference', description: 'The binding the finding is about.' },
      ),
      'The binding.',
    ),
    roleRef: field(
      struct({ kind: field(string(), 'Role or ClusterRole.'), name: field(string(), 'Name of the role.') }, { typeName: 'v1.AccessFindingRoleReference', description: 'The role the binding references.' }),
      'The role the binding references.',
    ),
    subject: field(subjectSchema, 'The subject of the binding the finding is about (one finding per subject).'),
    ruleIndex: field(integer(), 'Index of the rule in the role (findings about one rule).'),
    rule: field(policyRuleSchema, 'The rule (findings about one rule).'),
    message: field(string(), 'What was found, in words.'),
    usedVerbs: field(strings(), 'PartlyUsedWildcard: the verbs used through the rule, when it names "*" verbs.'),
    usedAPIGroups: field(strings(), 'PartlyUsedWildcard: the API groups used, when it names "*" groups.'),
    usedResources: field(strings(), 'PartlyUsedWildcard: the resources (resource/subresource) used, when it names "*" resources.'),
    unusedPermissions: field(strings(), 'UnusedSensitivePermission: the sensitive permissions the rule grants and that were not used.'),
    escalationPath: field(string(), 'PathToClusterAdmin: the subject\'s shortest escalation path to cluster-admin, step by step (EscalationPathReview gives it in full); the binding is the one that grants its first step.'),
    windowStart: field(dateTime(), 'Start of the window the finding is about: use before it does not count (RFC 3339).'),
    lastUsed: field(dateTime(), 'When the binding last granted anything, if ever (RFC 3339).'),
    since: field(string(), 'The window, a duration ending now: select it with the field selector since=DURATION (default 720h, at most the usage retention of 2160h).'),
    incomplete: field(boolean(), 'True when use in the window may be missing from the records (a replica killed before it flushed, recording off, or a window older than the records): a permission the finding calls unused may have been used.'),
    evaluationError: field(string(), 'Why the finding may be incomplete.'),
    suggestedFix: field(
      struct(
        {
          description: field(string(), 'What to do.'),
          command: field(string(), 'A command that does it, when one does.'),
          replacementRule: field(policyRuleSchema, 'The rule to put in place of the finding\'s rule; absent when the rule should go.'),
        },
        { typeName: 'v1.SuggestedFix', description: 'SuggestedFix is how to resolve a finding.' },
      ),
      'How to resolve it.',
    ),
  },
  {
    typeName: 'v1.AccessFinding',
    description:
      'AccessFinding is a permission held but not used in the window (or a binding to a ServiceAccount that does not exist, or a subject with an escalation path to cluster-admin), computed from the usage recorded at decision time, with a suggested fix. Read-only.',
  },
);

const subjectOf = (f: AccessFinding) => f.subject;

export const accessFindingType: ResourceType<AccessFinding> = {
  group: ACCESS_GROUP,
  version: ACCESS_VERSION,
  kind: 'AccessFinding',
  listKind: 'AccessFindingList',
  plural: 'accessfindings',
  singular: 'accessfinding',
  namespaced: false,
  verbs: ['get', 'list'],
  nameValidator: () => [],
  schema: accessFindingSchema,
  strategy: { allowCreateOnUpdate: false, allowUnconditionalUpdate: false, validate: () => [], validateUpdate: () => [] },
  selectableFields: [
    { name: 'type', value: (f) => f.type },
    { name: 'bindingRef.namespace', value: (f) => f.bindingRef.namespace ?? '' },
    { name: 'bindingRef.name', value: (f) => f.bindingRef.name },
    { name: 'subject.kind', value: (f) => subjectOf(f).kind },
    { name: 'subject.name', value: (f) => subjectOf(f).name },
    { name: 'subject.namespace', value: (f) => subjectOf(f).namespace ?? '' },
    { name: 'since', value: (f) => f.since ?? '' },
  ],
  table: {
    columns: [
      { name: 'Type', type: 'string', description: 'The kind of finding.', cell: (f) => f.type },
      {
        name: 'Binding',
        type: 'string',
        description: 'The binding.',
        cell: (f) => (f.bindingRef.namespace ? `${f.bindingRef.kind}/${f.bindingRef.namespace}/${f.bindingRef.name}` : `${f.bindingRef.kind}/${f.bindingRef.name}`),
      },
      { name: 'Subject', type: 'string', description: 'The subject.', cell: (f) => describe(f.subject) },
      { name: 'Message', type: 'string', description: 'What was found.', cell: (f) => f.message },
    ],
  },
};

export function describe(s: Subject): string {
  return s.kind === 'ServiceAccount' ? `ServiceAccount/${s.namespace ?? ''}/${s.name}` : `${s.kind}/${s.name}`;
}

/** `<type>.<binding usage name>[.rule-<index>].s<hash of the subject>`: stable, one per finding. */
export function findingName(type: FindingType, bindingName: string, subject: Subject, ruleIndex?: number): string {
  const hash = createHash('sha256').update(`${subject.kind}\0${subject.namespace ?? ''}\0${subject.name}`).digest('hex').slice(0, 8);
  return `${type.toLowerCase()}.${bindingName}${ruleIndex !== undefined ? `.rule-${ruleIndex}` : ''}.s${hash}`;
}
