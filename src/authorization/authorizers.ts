import { SYSTEM_MASTERS } from '../authentication/user-info';
import { AuthorizationAttributes, AuthorizationResult, Authorizer } from './authorizer';

/** kube's privileged-group authorizer: members of system:masters may do anything. */
export const privilegedGroupAuthorizer: Authorizer = {
  name: 'system:masters',
  authorize: (attrs: AuthorizationAttributes): AuthorizationResult =>
    attrs.user.groups.includes(SYSTEM_MASTERS) ? { decision: 'Allow' } : { decision: 'NoOpinion' },
};

export const alwaysAllowAuthorizer: Authorizer = { name: 'AlwaysAllow', authorize: () => ({ decision: 'Allow' }) };

export const alwaysDenyAuthorizer: Authorizer = {
  name: 'AlwaysDeny',
  authorize: () => ({ decision: 'Deny', reason: 'Everything is forbidden.' }),
};

/** Builds the authorizer of an --authorization-mode entry; later modes add their factories here. */
export const MODE_AUTHORIZERS: Record<string, () => Authorizer> = {
  AlwaysAllow: () => alwaysAllowAuthorizer,
  AlwaysDeny: () => alwaysDenyAuthorizer,
};
