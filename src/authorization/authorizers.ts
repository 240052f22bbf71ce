import { SYSTEM_MASTERS } from '../apimachinery/user-info';
import { AuthorizationAttributes, AuthorizationResult, Authorizer } from './authorizer';

/** kube's privileged-group authorizer: members of system:masters may do anything. */
export const privilegedGroupAuthorizer: Authorizer = {
  type: 'Privileged',
  name: 'system:masters',
  authorize: (attrs: AuthorizationAttributes): AuthorizationResult =>
    attrs.user.groups.includes(SYSTEM_MASTERS) ? { decision: 'Allow' } : { decision: 'NoOpinion' },
};

/** AlwaysAllow: can list rules too: everything. */
export const alwaysAllowAuthorizer: Authorizer = {
  type: 'AlwaysAllow',
  name: 'alwaysallow',
  authorize: () => ({ decision: 'Allow' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

export const alwaysDenyAuthorizer: Authorizer = {
  type: 'AlwaysDeny',
  name: 'alwaysdeny',
  authorize: () => ({ decision: 'Deny', reason: 'Everything is forbidden.' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};
