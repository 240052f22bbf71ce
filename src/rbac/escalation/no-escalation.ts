import { UserInfo } from '../../apimachinery/user-info';
import { goQuote, goQuoteList } from '../../apimachinery/go-text';
import { aggregateErrors } from '../../apimachinery/aggregate-errors';
import { covers } from '../kinds/rule-coverage';
import { PolicyRule } from '../../apis/rbac/types';
import { describeMissingRules } from './rule-description';

/** The caller's own RBAC rules at one scope, and the errors met resolving them (kube's RulesFor). */
export interface OwnerRules {
  rules: readonly PolicyRule[];
  errors: readonly string[];
}

/**
 * kube's ConfirmNoEscalation: null when the caller's rules cover every rule granted,
 * otherwise why not, listing only the permissions the caller lacks. Rules that could not
 * be resolved do not stop the check (rules only add permissions); when it fails they are
 * appended, as kube does.
 */
export function confirmNoEscalation(user: UserInfo, owner: OwnerRules, granted: readonly PolicyRule[]): string | null {
  const { covered, uncovered } = covers(owner.rules, granted);
  if (covered) return null;
  let message =
    `user ${goQuote(user.username)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n` +
    describeMissingRules(uncovered);
  // Go prints the []error holding the resolver's aggregate error as `[<aggregate>]`.
  if (owner.errors.length) message += `; resolution errors: [${aggregateErrors(owner.errors)}]`;
  return message;
}

/** Everything on every resource and URL: what changing an aggregationRule requires (kube's fullAuthority). */
export const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];
