import { KubeObject } from '../apimachinery/types';
import { Subject } from '../apis/rbac/types';
import { ReviewObject } from '../reviews/review-types';
import { BindingReference, RoleReference } from './access-types';

/**
 * PolicyChangeReview as its schema decodes it: RBAC objects to create, replace or delete
 * and statements to check, answered with what each subject would gain and lose, whether
 * the caller could make the change, and whether each statement holds afterwards.
 */

export interface PolicyChangeSpec {
  changes?: PolicyChangeItem[];
  scope?: PolicyChangeScope;
  assertions?: PolicyAssertion[];
}

/** One whole RBAC manifest, created or replaced, or deleted with `delete: true` (only its kind, namespace and name count then). */
export interface PolicyChangeItem {
  object?: KubeObject;
  delete?: boolean;
}

export interface PolicyChangeScope {
  namespaces?: string[];
  subjects?: Subject[];
}

/** An action asked about: a resource action or a non-resource URL. */
export interface AccessQuestion {
  verb?: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  namespace?: string;
  nonResourceURL?: string;
}

export interface SubjectQuestion extends AccessQuestion {
  subject?: Subject;
}

export interface OnlySubjectsQuestion extends AccessQuestion {
  subjects?: Subject[];
}

/** Exactly one of can, cannot and onlySubjects. */
export interface PolicyAssertion {
  name?: string;
  can?: SubjectQuestion;
  cannot?: SubjectQuestion;
  onlySubjects?: OnlySubjectsQuestion;
}

export interface PermissionCause {
  binding: BindingReference;
  role: RoleReference;
}

/** One class of actions a subject gains or loses. `*` stands for every value but those in except. */
export interface PermissionChange {
  subject: Subject;
  /** Absent: cluster-wide, and in every namespace but exceptNamespaces. */
  namespace?: string;
  verb: string;
  apiGroup?: string;
  resource?: string;
  resourceName?: string;
  nonResourceURL?: string;
  exceptNamespaces?: string[];
  except?: { verbs?: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };
  via: PermissionCause[];
  /** Guardrails that deny the subject part of this entry (a wildcard or cluster-wide one): that part is not gained or lost. */
  restrictedByGuardrails?: string[];
}

/** A gained or lost entry a guardrail denies its subject: RBAC's answer changes, the subject's access does not. */
export interface BlockedPermissionChange {
  direction: 'Gained' | 'Lost';
  entry: PermissionChange;
  guardrail: string;
  reason: string;
}

export interface DeniedChange {
  /** Index in spec.changes. */
  change: number;
  kind: string;
  namespace?: string;
  name: string;
  reason: string;
}

export interface AssertionCounterexample {
  subject: Subject;
  binding?: BindingReference;
  role?: RoleReference;
  /** The guardrail that denies the subject what RBAC grants it. */
  guardrail?: string;
}

export interface AssertionResult {
  /** Index in spec.assertions. */
  index: number;
  name?: string;
  passed: boolean;
  message: string;
  counterexamples?: AssertionCounterexample[];
}

export interface PolicyChangeStatus {
  gained: PermissionChange[];
  lost: PermissionChange[];
  blockedByGuardrails?: BlockedPermissionChange[];
  denied?: DeniedChange[];
  assertions?: AssertionResult[];
  incomplete: boolean;
  evaluationError?: string;
}

export type PolicyChangeReview = ReviewObject<PolicyChangeSpec>;
