import { ReviewObject } from '../../reviews/review-types';

/**
 * EscalationPathReview (access.platform.io/v1, create-only): how a subject can reach a
 * permission (or cluster-admin) through capabilities that yield other identities or roles.
 */

export interface PathSubject {
  /** A user (with groups), or a service account. */
  user?: string;
  groups?: string[];
  serviceAccount?: { namespace?: string; name?: string };
}

export interface PathTarget {
  /** Shorthand for `*` on `*` in every API group, everywhere (cluster-admin). */
  clusterAdmin?: boolean;
  verb?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  /** Empty: cluster-wide. */
  namespace?: string;
  name?: string;
}

export interface EscalationPathReviewSpec {
  subject?: PathSubject;
  target?: PathTarget;
  /** Steps searched at most (default 4, at most 6). */
  maxSteps?: number;
}

export type Capability = 'impersonate' | 'constrained-impersonate' | 'create-pod' | 'create-token' | 'read-token-secret' | 'nodes-proxy' | 'bind' | 'escalate';

/** A permission as a step uses it. */
export interface StepPermission {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** What grants a step's permission: the authorizer, and for RBAC the binding and role. */
export interface StepGrant {
  authorizer: { type: string; name: string };
  binding?: { kind: string; namespace?: string; name: string };
  role?: { kind: string; name: string };
}

export interface PathStep {
  capability: Capability;
  /** Who takes the step. */
  actor: string;
  /** The permissions it uses (all needed), each with what grants it. */
  uses: Array<{ permission: StepPermission; grantedBy: StepGrant }>;
  /**
   * The identity it yields (user and groups), or the role it binds. With `impersonationMode`
   * (constrained impersonation) the identity acts only where the actor holds
   * `impersonate-on:<mode>:<verb>`: the next steps list those permissions too.
   */
  yields: { user?: string; groups?: string[]; clusterRole?: string; impersonationMode?: string };
}

export interface EscalationPath {
  /** The subject the path starts from. */
  subject: string;
  steps: PathStep[];
}

export interface EscalationPathReviewStatus {
  /** Whether the subject reaches the target (with no step when it already holds it). */
  reachable: boolean;
  /** Shortest first. */
  paths: EscalationPath[];
  /** A bound (steps, identities searched, paths) was hit: longer paths may exist. */
  incomplete: boolean;
  evaluationError?: string;
}

export type EscalationPathReview = ReviewObject<EscalationPathReviewSpec>;
