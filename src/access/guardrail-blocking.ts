import { ALL_AUTHENTICATED, SYSTEM_MASTERS, UserInfo } from '../apimachinery/user-info';
import { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../authorization/authorizer';
import { groupKey, userKey } from '../authorization/rbac/subjects';
import { fileSubject } from '../authorization/rbac/subjects';
import { AccessGrant, BlockedSubject } from './access-types';

/**
 * Who-can with guardrails: the subjects RBAC grants an action to, less those the chain's
 * Guardrail authorizers (asked as they are for a real request by that subject) deny. A
 * subject is judged by itself: a user as a user with no group but system:authenticated (and
 * a service account's groups), a group as a member of it with no other group.
 */

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

function identityOfUser(name: string): UserInfo {
  if (!name.startsWith(SERVICE_ACCOUNT_PREFIX)) return { username: name, groups: [ALL_AUTHENTICATED] };
  const namespace = name.slice(SERVICE_ACCOUNT_PREFIX.length).split(':')[0];
  return { username: name, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, ALL_AUTHENTICATED] };
}

const identityOfGroup = (name: string): UserInfo => ({ username: '', groups: name === ALL_AUTHENTICATED ? [name] : [name, ALL_AUTHENTICATED] });

/** The guardrail authorizers a decision asks before RBAC (only those can take away what RBAC grants). */
export function guardrailsBeforeRbac(authorizers: readonly Authorizer[]): Authorizer[] {
  const out: Authorizer[] = [];
  for (const a of authorizers) {
    if (a.type === 'RBAC') break;
    if (a.type === 'Guardrail') out.push(a);
  }
  return out;
}

/** The identity a subject key (`u:name`, `g:name`) is judged as, as who-can judges it. */
export function identityOfSubjectKey(key: string): UserInfo {
  return key.startsWith('g:') ? identityOfGroup(key.slice(2)) : identityOfUser(key.slice(2));
}

/** The first guardrail's Deny of `attrs` asked as `user`, if any. */
export function guardrailDenial(guardrails: readonly Authorizer[], attrs: AuthorizationAttributes, user: UserInfo): AuthorizationResult | undefined {
  for (const g of guardrails) {
    const result = g.authorize({ ...attrs, user });
    // Guardrails answer at once; an authorizer that would need awaiting is not a guardrail.
    if (!(result instanceof Promise) && result.decision === 'Deny') return result;
  }
  return undefined;
}

/**
 * The subjects the guardrails do not deny, of `users`, `groups` and the grants' subjects (grants
 * left with no subject go), and those they deny, users then groups, in the lists' order.
 */
export function removeBlockedSubjects(
  guardrails: readonly Authorizer[],
  attrs: AuthorizationAttributes,
  users: string[],
  groups: string[],
  grants: AccessGrant[],
): { users: string[]; groups: string[]; blocked: BlockedSubject[]; grants: AccessGrant[] } {
  // A guardrail that matches the action for nobody denies it to nobody: subjects are only asked about when one may.
  const asked = guardrails.filter((g) => g.mayDenySomeone?.(attrs) ?? true);
  if (!asked.length) return { users, groups, blocked: [], grants };
  const blocked: BlockedSubject[] = [];
  const blockedKeys = new Set<string>();
  const unblocked = (kind: 'User' | 'Group', names: string[], identity: (name: string) => UserInfo, key: (name: string) => string) =>
    names.filter((name) => {
      if (kind === 'Group' && name === SYSTEM_MASTERS) return true; // asked before any guardrail
      const denied = guardrailDenial(asked, attrs, identity(name));
      if (!denied) return true;
      blockedKeys.add(key(name));
      blocked.push({ kind, name, guardrail: denied.guardrail ?? '', reason: denied.reason ?? '' });
      return false;
    });
  const keptUsers = unblocked('User', users, identityOfUser, userKey);
  const keptGroups = unblocked('Group', groups, identityOfGroup, groupKey);
  if (!blocked.length) return { users, groups, blocked, grants };
  const kept: AccessGrant[] = [];
  for (const grant of grants) {
    const namespace = grant.binding.namespace ?? '';
    const subjects = grant.subjects.filter((s) => !fileSubject(s, namespace).some((f) => blockedKeys.has(f.key)));
    if (subjects.length) kept.push({ ...grant, subjects });
  }
  return { users: keptUsers, groups: keptGroups, blocked, grants: kept };
}
