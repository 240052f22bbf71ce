import { UserInfo } from '../../apimachinery/user-info';

/**
 * The claims of service-account tokens, as kube's pkg/serviceaccount writes them with the
 * `kubernetes.io` names renamed `platform.io`.
 */

/** kube's private claim key (`kubernetes.io`). */
export const PRIVATE_CLAIM = 'platform.io';

/** The issuer of legacy Secret-based tokens (kube's `kubernetes/serviceaccount`). */
export const LEGACY_ISSUER = 'platform.io/serviceaccount';
export const LEGACY_NAMESPACE_CLAIM = 'platform.io/serviceaccount/namespace';
export const LEGACY_SECRET_NAME_CLAIM = 'platform.io/serviceaccount/secret.name';
export const LEGACY_SERVICE_ACCOUNT_NAME_CLAIM = 'platform.io/serviceaccount/service-account.name';
export const LEGACY_SERVICE_ACCOUNT_UID_CLAIM = 'platform.io/serviceaccount/service-account.uid';

/** kube's user extra keys for service-account tokens. */
export const CREDENTIAL_ID_EXTRA = 'authentication.platform.io/credential-id';
export const POD_NAME_EXTRA = 'authentication.platform.io/pod-name';
export const POD_UID_EXTRA = 'authentication.platform.io/pod-uid';
export const NODE_NAME_EXTRA = 'authentication.platform.io/node-name';
export const NODE_UID_EXTRA = 'authentication.platform.io/node-uid';

export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';

export interface ObjectRef {
  name: string;
  uid: string;
}

/** What kube's `kubernetes.io` claim holds. */
export interface PrivateClaims {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
}

/** What a verified token says, whichever its kind (bound or legacy). */
export interface ServiceAccountClaims {
  namespace: string;
  serviceAccount: ObjectRef;
  /** The object the token is bound to (TokenRequest's boundObjectRef), if any. */
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  /** A legacy token: the Secret that holds it (it is valid only while that Secret holds it). */
  legacySecret?: string;
  jti?: string;
  /** exp, in seconds since the epoch (bound tokens). */
  expiresAt?: number;
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

/** kube's ServiceAccountInfo.UserInfo: the account's user, uid, groups and extras. */
export function serviceAccountUser(claims: ServiceAccountClaims): UserInfo {
  const extra: Record<string, string[]> = {};
  if (claims.pod) {
    extra[POD_NAME_EXTRA] = [claims.pod.name];
    extra[POD_UID_EXTRA] = [claims.pod.uid];
  }
  if (claims.node) {
    extra[NODE_NAME_EXTRA] = [claims.node.name];
    if (claims.node.uid) extra[NODE_UID_EXTRA] = [claims.node.uid];
  }
  if (claims.jti) extra[CREDENTIAL_ID_EXTRA] = [`JTI=${claims.jti}`];
  const user: UserInfo = {
    username: serviceAccountUsername(claims.namespace, claims.serviceAccount.name),
    groups: ['system:serviceaccounts', `system:serviceaccounts:${claims.namespace}`],
  };
  if (claims.serviceAccount.uid) user.uid = claims.serviceAccount.uid;
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}
