import { nameIsDNSSubdomain, isDNS1123Subdomain, regexError } from '../../apimachinery/validation/names';
import { aggregateErrors } from '../../apimachinery/aggregate-errors';
import { errors, StatusError } from '../../apimachinery/errors';
import { fieldErrorMessage, fieldErrors } from '../../apimachinery/field-errors';
import { goQuote, goQuoteList, goStringSlice } from '../../apimachinery/go-text';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, SYSTEM_MASTERS, UserInfo } from '../../apimachinery/user-info';
import { AuthorizationAttributes, AuthorizationResult } from '../../authorization/authorizer';
import { forbiddenError } from '../../authorization/forbidden';
import { resourceAttributes } from '../../authorization/request-attributes';
import {
  IMPERSONATE_EXTRA_PREFIX,
  IMPERSONATE_GROUP,
  IMPERSONATE_UID,
  IMPERSONATE_USER,
  ImpersonationRequestError,
  serviceAccountGroups,
  splitServiceAccountUsername,
} from './impersonation';
import { NODE_USER_PREFIX, NODES_GROUP } from '../../apimachinery/node-identity';

/**
 * Constrained impersonation (KEP-5284, kube 1.36's `ConstrainedImpersonation` gate), as
 * kube's endpoints/filters/impersonation (constrained_impersonation.go, mode.go) decides
 * it. The impersonation modes are tried in a fixed order; each that applies to the wanted
 * identity asks two things of the authorizer:
 *
 *   impersonate-on:<mode>:<verb>   the request itself, its verb replaced: may the caller do
 *                                  this while impersonating in this mode?
 *   impersonate:<mode>             each part of the identity, in `authentication.platform.io`:
 *                                  users, groups, uids, userextras/<key>, serviceaccounts
 *                                  (in their namespace) or nodes
 *
 * The legacy `impersonate` verb comes last, so what worked before keeps working. The
 * first mode to allow wins; when none does, the error of the first mode that refused is
 * the 403. The mode that last succeeded for a caller is tried first next time.
 */

export const LEGACY_IMPERSONATE_VERB = 'impersonate';
const IMPERSONATE_PREFIX = 'impersonate:';
const IMPERSONATE_ON_PREFIX = 'impersonate-on:';

/** The constrained modes, in the order kube tries them (legacy impersonation follows). */
export const CONSTRAINED_MODES = ['associated-node', 'arbitrary-node', 'serviceaccount', 'user-info'] as const;
export type ConstrainedMode = (typeof CONSTRAINED_MODES)[number];

/** `impersonate:<mode>`: the permission to impersonate an identity in a mode. */
export function impersonateVerb(mode: ConstrainedMode): string {
  return `${IMPERSONATE_PREFIX}${mode}`;
}

/** `impersonate-on:<mode>:<verb>`: the permission to do `verb` while impersonating in a mode. */
export function impersonateOnVerb(mode: ConstrainedMode, verb: string): string {
  return `${IMPERSONATE_ON_PREFIX}${mode}:${verb}`;
}

/** What an impersonation verb says; kube only builds them, RBAC matches them as opaque strings. */
export type ImpersonationVerb =
  | { kind: 'legacy' }
  | { kind: 'identity'; mode: ConstrainedMode }
  | { kind: 'action'; mode: ConstrainedMode; verb: string };

const isMode = (text: string): text is ConstrainedMode => (CONSTRAINED_MODES as readonly string[]).includes(text);

/** The parts of an impersonation verb; undefined for any other verb, or one naming no known mode. */
export function parseImpersonationVerb(verb: string): ImpersonationVerb | undefined {
  if (verb === LEGACY_IMPERSONATE_VERB) return { kind: 'legacy' };
  if (verb.startsWith(IMPERSONATE_PREFIX)) {
    const mode = verb.slice(IMPERSONATE_PREFIX.length);
    return isMode(mode) ? { kind: 'identity', mode } : undefined;
  }
  if (verb.startsWith(IMPERSONATE_ON_PREFIX)) {
    const rest = verb.slice(IMPERSONATE_ON_PREFIX.length);
    const colon = rest.indexOf(':');
    if (colon < 0) return undefined;
    const mode = rest.slice(0, colon);
    const action = rest.slice(colon + 1);
    return isMode(mode) && action ? { kind: 'action', mode, verb: action } : undefined;
  }
  return undefined;
}

const AUTHENTICATION_GROUP = 'authentication.platform.io';
const VERSION = 'v1';
/**
 * The extra a service-account token bound to a node carries (the service-account tokens'
 * NODE_NAME_EXTRA; the identity folder cannot import that one).
 */
export const NODE_NAME_EXTRA = 'authentication.platform.io/node-name';
/** What associated-node checks see instead of the caller's extra values: only their keys. */
export const ASSOCIATED_NODE_KEYS_EXTRA = 'authentication.platform.io/associated-node-keys';
/** From this many groups or extra values on, one wildcard check is tried before one check each. */
const MANY_CHECKS = 4;

/** The identity the Impersonate-* headers ask for, as sent: no defaults applied. */
export interface WantedUser {
  name: string;
  uid: string;
  groups: string[];
  /** A Map: extra keys are caller-chosen, `__proto__` must stay an ordinary key. */
  extra: Map<string, string[]>;
}

/** Go's url.PathUnescape; a malformed key is kept as it was sent. */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** Go's `%#v` of the wanted user.DefaultInfo, as kube's 400 prints it. */
function describeWantedUser(wanted: WantedUser): string {
  const groups = wanted.groups.length ? goStringSlice(wanted.groups) : '[]string(nil)';
  const keys = [...wanted.extra.keys()].sort();
  const extra = keys.length ? `map[string][]string{${keys.map((k) => `${goQuote(k)}:${goStringSlice(wanted.extra.get(k)!)}`).join(', ')}}` : 'map[string][]string(nil)';
  return `&user.DefaultInfo{Name:${goQuote(wanted.name)}, UID:${goQuote(wanted.uid)}, Groups:${groups}, Extra:${extra}}`;
}

/**
 * The wanted identity of the headers (names lower-case or not, one pair per header line);
 * undefined when no user is asked for and nothing else is either.
 */
export function wantedUserFromHeaders(headers: ReadonlyArray<readonly [string, string]>): WantedUser | undefined {
  const values = (name: string) => headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
  const wanted: WantedUser = { name: values(IMPERSONATE_USER)[0] ?? '', uid: values(IMPERSONATE_UID)[0] ?? '', groups: values(IMPERSONATE_GROUP), extra: new Map() };
  let hasExtra = false;
  for (const [name, value] of headers) {
    if (!name.toLowerCase().startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    hasExtra = true;
    const key = unescapeExtraKey(name.slice(IMPERSONATE_EXTRA_PREFIX.length).toLowerCase());
    wanted.extra.set(key, [...(wanted.extra.get(key) ?? []), value]);
  }
  if (!wanted.name && (wanted.uid || wanted.groups.length || hasExtra)) {
    throw new ImpersonationRequestError(`requested ${describeWantedUser(wanted)} without impersonating a user name`);
  }
  return wanted.name ? wanted : undefined;
}

/** kube's isNodeUsername: `system:node:<name>` with a valid node name. */
export function nodeNameOf(username: string): string | undefined {
  if (!username.startsWith(NODE_USER_PREFIX)) return undefined;
  const name = username.slice(NODE_USER_PREFIX.length);
  return nameIsDNSSubdomain(name, false).length ? undefined : name;
}

const onlyUsernameSet = (wanted: WantedUser) => !wanted.uid && !wanted.groups.length && !wanted.extra.size;

/** Whether the caller is a service account whose credential names exactly this node. */
export function associatedWithNode(requestor: UserInfo, nodeName: string): boolean {
  if (!splitServiceAccountUsername(requestor.username)) return false;
  const values = requestor.extra?.[NODE_NAME_EXTRA];
  return values?.length === 1 && values[0] === nodeName;
}

/** The modes' filters: whether a mode can impersonate the wanted identity for this caller at all. */
export function modeApplies(mode: ConstrainedMode, wanted: WantedUser, requestor: UserInfo): boolean {
  const nodeName = nodeNameOf(wanted.name);
  switch (mode) {
    case 'associated-node':
      return onlyUsernameSet(wanted) && nodeName !== undefined && associatedWithNode(requestor, nodeName);
    case 'arbitrary-node':
      return onlyUsernameSet(wanted) && nodeName !== undefined;
    case 'serviceaccount':
      return onlyUsernameSet(wanted) && splitServiceAccountUsername(wanted.name) !== undefined;
    case 'user-info':
      // The "other" users: nodes and service accounts have modes of their own.
      return nodeName === undefined && splitServiceAccountUsername(wanted.name) === undefined;
  }
}

/** kube's IsDomainPrefixedPath, as `extra.key` field errors. */
function domainPrefixedPathErrors(key: string): string[] {
  const field = 'extra.key';
  const slash = key.indexOf('/');
  if (slash <= 0 || slash === key.length - 1) {
    return [fieldErrorMessage(fieldErrors.invalid(field, key, 'must be a domain-prefixed path (such as "acme.io/foo")'))];
  }
  const host = key.slice(0, slash);
  const path = key.slice(slash + 1);
  const errs = isDNS1123Subdomain(host).map((msg) => fieldErrorMessage(fieldErrors.invalid(field, host, msg)));
  const pathFormat = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
  if (!new RegExp(`^${pathFormat}$`).test(path)) errs.push(fieldErrorMessage(fieldErrors.invalid(field, path, regexError('Invalid path', pathFormat))));
  return errs;
}

/** Extras constrained impersonation refuses outright (legacy impersonation takes them). */
function extraError(extra: Map<string, string[]>): string | undefined {
  for (const [key, values] of extra) {
    if (!key) return 'impersonating the empty string key in extra is not allowed';
    const pathErrors = domainPrefixedPathErrors(key);
    if (pathErrors.length) return `impersonating an invalid key in extra is not allowed: ${aggregateErrors(pathErrors)}`;
    if (key !== key.toLowerCase()) return `impersonating a non-lowercase key in extra is not allowed: ${goQuote(key)}`;
    if (!values.length) return 'impersonating empty values in extra is not allowed';
    if (values.includes('')) return 'impersonating the empty string value in extra is not allowed';
  }
  return undefined;
}

function isLargeExtra(extra: Map<string, string[]>): boolean {
  if (extra.size >= MANY_CHECKS) return true;
  let count = 0;
  for (const values of extra.values()) if ((count += values.length) >= MANY_CHECKS) return true;
  return false;
}

function ensureGroup(groups: string[], group: string): string[] {
  return groups.includes(group) ? groups : [...groups, group];
}

/** The authorizer chain's question; `arrivedAt` is the request's arrival (decisions reflect every write before it). */
export type Authorize = (attrs: AuthorizationAttributes, options?: { arrivedAt?: number }) => Promise<AuthorizationResult>;

/** Asks one question: undefined when allowed, else the 403 to answer. */
export type Check = (attrs: AuthorizationAttributes) => Promise<StatusError | undefined>;

/** kube's checkAuthorization: the 403 carries the authorizer's reason (after any evaluation error). */
export function checkWith(authorize: Authorize): Check {
  return async (attrs) => {
    const result = await authorize(attrs);
    if (result.decision === 'Allow') return undefined;
    const failure = result.evaluationError;
    const reason = failure ? (result.reason ? `${failure}: ${result.reason}` : failure) : result.reason;
    return forbiddenError(attrs, reason);
  };
}

/** An impersonation that was allowed: the identity to run as, and the verb that allowed it ('' for legacy). */
export interface ImpersonatedUser {
  user: UserInfo;
  constraint: string;
}

type Outcome = { allowed: ImpersonatedUser } | { denied: StatusError } | { notApplicable: true };

/**
 * kube's impersonationModeState.check: one check per part of the wanted identity with
 * `verb` (user or service account or node, uid, groups, extras, in that order), and the
 * identity the request then runs as. Constrained modes refuse a few things legacy takes
 * (the empty or system:masters group, malformed extras) and try one wildcard check first
 * when many groups or extras are asked for.
 */
export async function authorizeIdentity(
  check: Check,
  verb: string,
  constrained: boolean,
  wanted: WantedUser,
  requestor: UserInfo,
): Promise<ImpersonatedUser | StatusError> {
  // Legacy impersonation names users, groups and service accounts in the core group.
  const userGroup = constrained ? AUTHENTICATION_GROUP : '';
  const attrs = (apiGroup: string, resource: string, name: string, more: { namespace?: string; subresource?: string } = {}) =>
    resourceAttributes({ user: requestor, verb, apiGroup, apiVersion: VERSION, resource, name, ...more });

  let groups = [...wanted.groups];
  let usernameAttrs = attrs(userGroup, 'users', wanted.name);
  const nodeName = constrained ? nodeNameOf(wanted.name) : undefined;
  if (nodeName !== undefined) {
    usernameAttrs = attrs(userGroup, 'nodes', nodeName);
    if (groups.length) return forbiddenError(usernameAttrs, `when impersonating a node, cannot impersonate groups ${goQuoteList(groups)}`);
    // Every node has the same fixed groups.
    groups = [NODES_GROUP];
  }
  const serviceAccount = splitServiceAccountUsername(wanted.name);
  if (serviceAccount) {
    usernameAttrs = attrs(userGroup, 'serviceaccounts', serviceAccount.name, { namespace: serviceAccount.namespace });
    if (constrained && groups.length) {
      return forbiddenError(usernameAttrs, `when impersonating a service account, cannot impersonate groups ${goQuoteList(groups)}`);
    }
    // Groups that are asked for are the authority; a service account otherwise gets its own.
    if (!groups.length) groups = serviceAccountGroups(serviceAccount.namespace);
  }
  const denied = await check(usernameAttrs);
  if (denied) return denied;

  if (wanted.uid) {
    const uidDenied = await check(attrs(AUTHENTICATION_GROUP, 'uids', wanted.uid));
    if (uidDenied) return uidDenied;
  }

  if (wanted.groups.length) {
    if (constrained && wanted.groups.includes('')) return forbiddenError(attrs(userGroup, 'groups', ''), 'impersonating the empty string group is not allowed');
    if (constrained && wanted.groups.includes(SYSTEM_MASTERS)) {
      return forbiddenError(attrs(userGroup, 'groups', SYSTEM_MASTERS), 'impersonating the system:masters group is not allowed');
    }
    const all = constrained && wanted.groups.length >= MANY_CHECKS && !(await check(attrs(userGroup, 'groups', '*')));
    for (const group of all ? [] : wanted.groups) {
      const groupDenied = await check(attrs(userGroup, 'groups', group));
      if (groupDenied) return groupDenied;
    }
  }

  if (wanted.extra.size) {
    if (constrained) {
      const invalid = extraError(wanted.extra);
      if (invalid) return forbiddenError(attrs(AUTHENTICATION_GROUP, 'userextras', ''), invalid);
    }
    const all = constrained && isLargeExtra(wanted.extra) && !(await check(attrs(AUTHENTICATION_GROUP, 'userextras', '*', { subresource: '*' })));
    for (const [key, values] of all ? [] : wanted.extra) {
      for (const value of values) {
        const extraDenied = await check(attrs(AUTHENTICATION_GROUP, 'userextras', value, { subresource: key }));
        if (extraDenied) return extraDenied;
      }
    }
  }

  if (wanted.name === ANONYMOUS_USER) groups = ensureGroup(groups, ALL_UNAUTHENTICATED);
  else if (!groups.includes(ALL_UNAUTHENTICATED)) groups = ensureGroup(groups, ALL_AUTHENTICATED);
  const user: UserInfo = { username: wanted.name, groups };
  if (wanted.uid) user.uid = wanted.uid;
  if (wanted.extra.size) user.extra = Object.fromEntries(wanted.extra);
  return { user, constraint: constrained ? verb : '' };
}

/**
 * What the associated-node mode asks instead of the caller's own attributes: the caller's
 * extra values replaced by their keys, and any node for `impersonate:associated-node`
 * (kube checks it this way so that one answer holds for the caller on every node it runs on;
 * the filter has already tied the caller to the wanted node).
 */
export function associatedNodeView(attrs: AuthorizationAttributes): AuthorizationAttributes {
  const keys = Object.keys(attrs.user.extra ?? {}).sort();
  const user: UserInfo = { ...attrs.user, extra: { [ASSOCIATED_NODE_KEYS_EXTRA]: keys } };
  return { ...attrs, user, name: attrs.verb === impersonateVerb('associated-node') ? '*' : attrs.name };
}

/** One constrained mode: impersonate-on:<mode>:<verb> on the request, then impersonate:<mode> on the identity. */
async function checkConstrainedMode(check: Check, mode: ConstrainedMode, wanted: WantedUser, request: AuthorizationAttributes): Promise<Outcome> {
  if (!modeApplies(mode, wanted, request.user)) return { notApplicable: true };
  // Associated-node questions (and so their 403s) are asked about its view of the attributes.
  const modeCheck: Check = mode === 'associated-node' ? (attrs) => check(associatedNodeView(attrs)) : check;
  const denied = await modeCheck({ ...request, verb: impersonateOnVerb(mode, request.verb) });
  if (denied) return { denied };
  const identity = await authorizeIdentity(modeCheck, impersonateVerb(mode), true, wanted, request.user);
  return identity instanceof StatusError ? { denied: identity } : { allowed: identity };
}

/** The least recently used entries go first (kube's mode index cache holds 10,000 callers). */
class ModeIndexCache {
  private readonly entries = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  get(username: string): number | undefined {
    const index = this.entries.get(username);
    if (index === undefined) return undefined;
    this.entries.delete(username);
    this.entries.set(username, index);
    return index;
  }

  set(username: string, index: number): void {
    this.entries.delete(username);
    this.entries.set(username, index);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

const MODE_INDEX_CACHE_SIZE = 10_000;

/** The names of the modes, in the order they are tried; 'legacy' is the `impersonate` verb. */
export const IMPERSONATION_MODES = [...CONSTRAINED_MODES, 'legacy'] as const;
export type ImpersonationModeName = (typeof IMPERSONATION_MODES)[number];

/**
 * kube's impersonationModesTracker: tries the mode that last worked for the caller first,
 * then the others in order; the first to allow gives the identity, else the first refusal
 * is thrown (a 403 StatusError).
 */
export class ConstrainedImpersonation {
  private readonly lastMode = new ModeIndexCache(MODE_INDEX_CACHE_SIZE);

  constructor(private readonly authorize: Authorize) {}

  /**
   * `request` is the request's own authorization attributes, with the caller as user;
   * `arrivedAt` when the request arrived (performance.now()).
   */
  async impersonate(wanted: WantedUser, request: AuthorizationAttributes, arrivedAt?: number): Promise<ImpersonatedUser> {
    const check = checkWith((attrs) => this.authorize(attrs, { arrivedAt }));
    const username = request.user.username;
    const cached = this.lastMode.get(username);
    let firstDenial: StatusError | undefined;
    if (cached !== undefined) {
      const outcome = await this.checkMode(check, IMPERSONATION_MODES[cached], wanted, request);
      if ('allowed' in outcome) return outcome.allowed;
      firstDenial = 'denied' in outcome ? outcome.denied : undefined;
    }
    for (let i = 0; i < IMPERSONATION_MODES.length; i++) {
      if (i === cached) continue;
      const outcome = await this.checkMode(check, IMPERSONATION_MODES[i], wanted, request);
      if ('denied' in outcome) firstDenial ??= outcome.denied;
      if (!('allowed' in outcome)) continue;
      this.lastMode.set(username, i);
      return outcome.allowed;
    }
    // The legacy mode applies to every identity, so a refusal is always at hand; fail closed regardless.
    throw firstDenial ?? errors.internal('all impersonation modes failed');
  }

  private async checkMode(check: Check, mode: ImpersonationModeName, wanted: WantedUser, request: AuthorizationAttributes): Promise<Outcome> {
    if (mode !== 'legacy') return checkConstrainedMode(check, mode, wanted, request);
    const identity = await authorizeIdentity(check, LEGACY_IMPERSONATE_VERB, false, wanted, request.user);
    return identity instanceof StatusError ? { denied: identity } : { allowed: identity };
  }
}
