import { KubeObject } from '../../apimachinery/types';
import { LabelSelector } from '../../apimachinery/validation/labels';
import { Subject } from '../../apis/rbac/types';

/**
 * AccessGuardrail (access.platform.io/v1, cluster-scoped): a deny rule no RBAC binding can
 * override. The Guardrail authorizer, asked before RBAC, denies a request it matches.
 */

export const GUARDRAIL_FAILURE_POLICIES = ['Deny', 'NoOpinion'] as const;
export type GuardrailFailurePolicy = (typeof GUARDRAIL_FAILURE_POLICIES)[number];

/** What a guardrail matches: a PolicyRule, read with RBAC's matchers, plus where. */
export interface GuardrailMatch {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  /** Namespaces by name; with namespaceSelector, either matching is enough. */
  namespaces?: string[];
  namespaceSelector?: LabelSelector;
}

export interface AccessGuardrailSpec {
  match?: GuardrailMatch;
  /** To whom it applies; empty: everyone (but system:masters, asked before every authorizer). */
  subjects?: Subject[];
  /** Who is exempt, even when named by subjects. */
  exceptions?: Subject[];
  /** CEL over `request` (a v1 SubjectAccessReview spec); the guardrail denies only when it is true. */
  condition?: string;
  /** Shown in the 403 and in reviews. */
  message?: string;
  /** What an expression that fails to evaluate does: Deny (default) or NoOpinion. */
  failurePolicy?: GuardrailFailurePolicy;
  /** Written even though it would deny every RBAC administrator the removal of guardrails. */
  allowLockout?: boolean;
}

export interface AccessGuardrail extends KubeObject {
  spec: AccessGuardrailSpec;
}
