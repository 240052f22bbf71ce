import { UserInfo } from '../apimachinery/user-info';
import { FieldRequirement } from '../apimachinery/selectors/field-selector';
import { LabelRequirement } from '../apimachinery/selectors/label-selector';
import type { StoreFollowingState } from './decision-consistency';
import type { PolicyRule } from '../apis/rbac/types';

/**
 * What an authorizer is asked: kube's authorizer.Attributes. The guard builds it from a
 * request; access reviews build it from a review's spec.
 */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  /** Request path, for non-resource requests. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /**
   * Parsed selectors of a list/watch/deletecollection (or of a review), only with the
   * AuthorizeWithSelectors gate. `error` says why a selector could not be used; authorizers
   * must then treat the request as unrestricted by it.
   */
  fieldSelector?: SelectorAttribute<FieldRequirement>;
  labelSelector?: SelectorAttribute<LabelRequirement>;
}

export interface SelectorAttribute<R> {
  requirements: R[];
  error?: string;
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  reason?: string;
  evaluationError?: string;
  /** The binding whose rule allowed (RBAC allows only): binding usage counts it. */
  grantedBy?: GrantingBinding;
  /** The rule of that binding's role that matched (the index's own object): rule-level usage counts it. */
  grantedByRule?: PolicyRule;
  /** The AccessGuardrail that denied (Guardrail denies only): audit annotations and explanations name it. */
  guardrail?: string;
}

/** A RoleBinding or ClusterRoleBinding as the decisions it grants name it. */
export interface GrantingBinding {
  readonly kind: 'RoleBinding' | 'ClusterRoleBinding';
  /** '' for a ClusterRoleBinding. */
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** A rule as SelfSubjectRulesReview reports it (authorization/v1 ResourceRule). */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** authorization/v1 NonResourceRule. */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

/** What a rule resolver knows about a user in a namespace (kube's authorizer.RuleResolver). */
export interface RuleResolution {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** True when the lists may miss rules (an authorizer cannot list its rules, or errors). */
  incomplete: boolean;
  evaluationError?: string;
}

/** One link of the authorizer chain. */
export interface Authorizer {
  /** The authorizer's type (`RBAC`, `Node`, `Webhook`, ...), for metrics and messages. */
  readonly type: string;
  /** Unique name in the chain (the configuration file's `name`; lower-case type for modes). */
  readonly name: string;
  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> | AuthorizationResult;
  /** Authorizers that can list what a user may do implement this (RBAC, ABAC). */
  rulesFor?(user: UserInfo, namespace: string): Promise<RuleResolution> | RuleResolution;
  /**
   * Whether it may deny the action to someone, whoever asks (a Guardrail's match without its
   * subjects): who-can asks it about each subject only then. Without it, assumed so.
   */
  mayDenySomeone?(attrs: AuthorizationAttributes): boolean;
  /** Releases resources (watches, timers) when the chain is replaced or the server stops. */
  close?(): Promise<void> | void;
  /**
   * The state it decides from when that state follows the store's changes (the RBAC index,
   * the Node graph): decisions wait until it has applied the store's revision as of their
   * arrival (DecisionConsistency).
   */
  readonly followsStore?: StoreFollowingState;
}
