import { UserInfo } from '../authentication/user-info';

/** What an authorizer is asked: kube's authorizer.Attributes. */
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
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  reason?: string;
  evaluationError?: string;
}

/** One link of the authorizer chain. */
export interface Authorizer {
  readonly name: string;
  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> | AuthorizationResult;
}
