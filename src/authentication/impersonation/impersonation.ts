import { validateNamespaceName, validateServiceAccountName } from '../../apimachinery/validation/names';
import { AuthorizationAttributes } from '../../authorization/authorizer';
import { resourceAttributes } from '../../authorization/request-attributes';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, UserInfo } from '../../apimachinery/user-info';

/**
 * kube's impersonation filter, as pure functions: which identity the Impersonate-* headers
 * ask for, and which permission (verb `impersonate`) each part of it needs.
 *
 *   Impersonate-User          users (core), or serviceaccounts (core, in its namespace) for
 *                             `system:serviceaccount:<namespace>:<name>`
 *   Impersonate-Group         groups (core), repeatable
 *   Impersonate-Extra-<key>   userextras/<key> (authentication.platform.io), repeatable; the
 *                             key is lower-cased and percent-decoded
 *   Impersonate-Uid           uids (authentication.platform.io)
 *
 * Resource names are the requested values. Groups, extras or a uid without a user are refused.
 * This is the filter without the ConstrainedImpersonation gate; constrained-impersonation.ts
 * has the one with it.
 */

export const IMPERSONATE_USER = 'impersonate-user';
export const IMPERSONATE_GROUP = 'impersonate-group';
export const IMPERSONATE_UID = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

const AUTHENTICATION_GROUP = 'authentication.platform.io';
const AUTHENTICATION_VERSION = 'v1';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
const ALL_SERVICE_ACCOUNTS = 'system:serviceaccounts';

/** One thing to impersonate, as kube's ObjectReference names it. */
export interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  /** `authentication.platform.io/v1` for extras and uids, empty for the core kinds. */
  apiVersion: string;
  /** The extra's key (kube keeps it in the reference's fieldPath). */
  fieldPath: string;
}

export interface Impersonation {
  requests: ImpersonationRequest[];
  /** The identity the request runs as once every request is allowed. */
  user: UserInfo;
}

/** Groups, extras or a uid were asked for without a user. */
export class ImpersonationRequestError extends Error {}

/** kube's serviceaccount.SplitUsername: namespace and name of a service account's user name. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts;
  if (validateNamespaceName(namespace, false).length || validateServiceAccountName(name, false).length) return undefined;
  return { namespace, name };
}

/** The groups every service account of a namespace is in. */
export function serviceAccountGroups(namespace: string): string[] {
  return [ALL_SERVICE_ACCOUNTS, `${ALL_SERVICE_ACCOUNTS}:${namespace}`];
}

/** Go's url.PathUnescape; a malformed key is kept as it was sent. */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** Go's `%v` of the requests (a []ObjectReference), as kube's error message prints them. */
function describeRequests(requests: ImpersonationRequest[]): string {
  const ref = (r: ImpersonationRequest) => `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`;
  return `[${requests.map(ref).join(' ')}]`;
}

/**
 * kube adds system:authenticated to an impersonated user unless the groups already say
 * authenticated or unauthenticated; system:anonymous gets system:unauthenticated instead.
 */
function withAuthenticationGroup(username: string, groups: string[]): string[] {
  if (username === ANONYMOUS_USER) return groups.includes(ALL_UNAUTHENTICATED) ? groups : [...groups, ALL_UNAUTHENTICATED];
  if (groups.includes(ALL_AUTHENTICATED) || groups.includes(ALL_UNAUTHENTICATED)) return groups;
  return [...groups, ALL_AUTHENTICATED];
}

/**
 * The impersonation the headers ask for (header names lower-case, one pair per header line,
 * as received); undefined when there is none.
 */
export function impersonationFromHeaders(headers: ReadonlyArray<readonly [string, string]>): Impersonation | undefined {
  const values = (name: string) => headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
  const requests: ImpersonationRequest[] = [];
  const reference = (kind: ImpersonationRequest['kind'], name: string, more: Partial<ImpersonationRequest> = {}): ImpersonationRequest => ({
    kind,
    namespace: '',
    name,
    apiVersion: '',
    fieldPath: '',
    ...more,
  });

  const username = values(IMPERSONATE_USER)[0] ?? '';
  const serviceAccount = username ? splitServiceAccountUsername(username) : undefined;
  if (serviceAccount) requests.push(reference('ServiceAccount', serviceAccount.name, { namespace: serviceAccount.namespace }));
  else if (username) requests.push(reference('User', username));

  const groupValues = values(IMPERSONATE_GROUP);
  for (const group of groupValues) requests.push(reference('Group', group));

  // A Map, because extra keys are caller-chosen: `__proto__` or `constructor` must stay ordinary keys.
  const extra = new Map<string, string[]>();
  for (const [name, value] of headers) {
    if (!name.toLowerCase().startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    const key = unescapeExtraKey(name.slice(IMPERSONATE_EXTRA_PREFIX.length).toLowerCase());
    const keyValues = extra.get(key) ?? [];
    keyValues.push(value);
    extra.set(key, keyValues);
    requests.push(reference('UserExtra', value, { apiVersion: `${AUTHENTICATION_GROUP}/${AUTHENTICATION_VERSION}`, fieldPath: key }));
  }

  const uid = values(IMPERSONATE_UID)[0] ?? '';
  if (uid) requests.push(reference('UID', uid, { apiVersion: `${AUTHENTICATION_GROUP}/${AUTHENTICATION_VERSION}` }));

  if (!requests.length) return undefined;
  if (!username) throw new ImpersonationRequestError(`requested ${describeRequests(requests)} without impersonating a user`);

  // Groups that are asked for are the authority; a service account otherwise gets its own.
  const groups = groupValues.length || !serviceAccount ? [...groupValues] : serviceAccountGroups(serviceAccount.namespace);
  const user: UserInfo = { username, groups: withAuthenticationGroup(username, groups) };
  if (extra.size) user.extra = Object.fromEntries(extra);
  if (uid) user.uid = uid;
  return { requests, user };
}

/**
 * What the caller must be allowed to do for one request: `impersonate` on the thing asked
 * for. Like kube, the core kinds are asked without a version (their references carry none).
 */
export function impersonationAttributes(request: ImpersonationRequest, requestor: UserInfo): AuthorizationAttributes {
  const base = { user: requestor, verb: 'impersonate', name: request.name };
  switch (request.kind) {
    case 'ServiceAccount':
      return resourceAttributes({ ...base, apiGroup: '', apiVersion: '', resource: 'serviceaccounts', namespace: request.namespace });
    case 'User':
      return resourceAttributes({ ...base, apiGroup: '', apiVersion: '', resource: 'users' });
    case 'Group':
      return resourceAttributes({ ...base, apiGroup: '', apiVersion: '', resource: 'groups' });
    case 'UserExtra':
      return resourceAttributes({ ...base, apiGroup: AUTHENTICATION_GROUP, apiVersion: AUTHENTICATION_VERSION, resource: 'userextras', subresource: request.fieldPath });
    case 'UID':
      return resourceAttributes({ ...base, apiGroup: AUTHENTICATION_GROUP, apiVersion: AUTHENTICATION_VERSION, resource: 'uids' });
  }
}

/** Whether a header is one of the impersonation headers (they are removed once used). */
export function isImpersonationHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === IMPERSONATE_USER || lower === IMPERSONATE_GROUP || lower === IMPERSONATE_UID || lower.startsWith(IMPERSONATE_EXTRA_PREFIX);
}
