/** The identity of a caller, as authentication produces it and authorization reads it. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const SYSTEM_MASTERS = 'system:masters';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ANONYMOUS_USER = 'system:anonymous';

export function anonymousUser(): UserInfo {
  return { username: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] };
}

/** Adds system:authenticated the way kube's authenticated-group adder does. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS_USER || user.groups.includes(ALL_AUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}

/** The server's own identity for work it does itself (bootstrap objects, controllers). */
export const SYSTEM_USER: UserInfo = { username: 'system:apiserver', groups: [SYSTEM_MASTERS] };

/** kube's controllers act as `system:controller:<name>`; ours run inside the server. */
export const CONTROLLER_ROLE_PREFIX = 'system:controller:';

/** kube's controller names: each is the controller's identity, field manager and role suffix. */
export const AGGREGATION_CONTROLLER_NAME = 'clusterrole-aggregation-controller';
export const NAMESPACE_CONTROLLER_NAME = 'namespace-controller';

/** The identity a controller of this server writes with. */
export function controllerUser(controller: string): UserInfo {
  return { username: `${CONTROLLER_ROLE_PREFIX}${controller}`, groups: [ALL_AUTHENTICATED] };
}
