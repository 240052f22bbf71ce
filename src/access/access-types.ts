import { NonResourceAttributes, ReviewObject, ResourceAttributes, SubjectAccessReviewSpec } from '../reviews/review-types';
import { PolicyRule, Subject } from '../apis/rbac/types';

/**
 * The kinds of access.platform.io/v1 as their schemas decode them: questions about who may
 * do something, what someone may do, and why a decision came out as it did. All are
 * virtual and create-only, like the access reviews.
 */

export const ACCESS_GROUP = 'access.platform.io';
export const ACCESS_VERSION = 'v1';

/** ResourceAccessReview and LocalResourceAccessReview: exactly one of the attribute kinds. */
export interface ResourceAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
}

export interface SubjectRulesReviewSpec {
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
  namespace?: string;
}

export type ResourceAccessReview = ReviewObject<ResourceAccessReviewSpec>;
export type SubjectRulesReview = ReviewObject<SubjectRulesReviewSpec>;
export type AccessExplanation = ReviewObject<SubjectAccessReviewSpec>;

/** A binding as the answers name it. */
export interface BindingReference {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  namespace?: string;
  name: string;
}

export interface RoleReference {
  kind: string;
  name: string;
}

/** One binding that grants the reviewed action, with the subjects it grants it to. */
export interface AccessGrant {
  binding: BindingReference;
  role: RoleReference;
  subjects: Subject[];
}

export interface ResourceAccessReviewStatus {
  users: string[];
  groups: string[];
  grants: AccessGrant[];
  incomplete: boolean;
  evaluationError?: string;
  /** Subjects RBAC grants the action to but an AccessGuardrail denies it (left out of users, groups and grants). */
  blocked?: BlockedSubject[];
}

/** A subject a guardrail denies the action RBAC grants it. */
export interface BlockedSubject {
  kind: 'User' | 'Group';
  name: string;
  guardrail: string;
  reason: string;
}

/** One authorizer of the chain asked while deciding, in order. */
export interface AuthorizerDecisionRecord {
  authorizer: { type: string; name: string };
  decision: 'Allow' | 'Deny' | 'NoOpinion';
  reason?: string;
}

/** A rule that allows the action, and where it comes from. */
export interface RuleGrant {
  binding: BindingReference;
  role: RoleReference;
  ruleIndex: number;
  rule: PolicyRule;
}

/** A rule of the subject's own bindings that does not allow the action, and why not. */
export interface NearMiss extends RuleGrant {
  missing: string[];
}

/** A binding that names the subject and would grant the action, but cannot. */
export interface UnusableBinding {
  binding: BindingReference;
  role: RoleReference;
  reason: string;
  /** The window of a time-bound binding that is outside it (its annotations' text). */
  validFrom?: string;
  validUntil?: string;
}

export interface AccessExplanationStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
  decisions: AuthorizerDecisionRecord[];
  /** The AccessGuardrail that denied, when one did. */
  deniedByGuardrail?: string;
  grants: RuleGrant[];
  nearMisses?: NearMiss[];
  unusableBindings?: UnusableBinding[];
}
