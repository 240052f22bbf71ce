import { UserInfo } from './user-info';

/** The group every node's credential carries. */
export const NODES_GROUP = 'system:nodes';
/** Node user names are `system:node:<nodeName>`. */
export const NODE_USER_PREFIX = 'system:node:';

export interface NodeIdentity {
  /** The node the caller speaks for; '' when the user name names none (`system:node:`). */
  nodeName: string;
}

/**
 * kube's default node identifier: a caller is a node when its user name starts with
 * `system:node:` and it is in group `system:nodes`. Anyone else is not a node (undefined).
 */
export function nodeIdentity(user: UserInfo | undefined): NodeIdentity | undefined {
  if (!user || !user.username.startsWith(NODE_USER_PREFIX)) return undefined;
  if (!user.groups.includes(NODES_GROUP)) return undefined;
  return { nodeName: user.username.slice(NODE_USER_PREFIX.length) };
}
