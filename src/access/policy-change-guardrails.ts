import { PolicyRule } from '../apis/rbac/types';
import { AuthorizationAttributes, Authorizer } from '../authorization/authorizer';
import { UserInfo } from '../apimachinery/user-info';
import { guardrailDenial, identityOfSubjectKey } from './guardrail-blocking';
import { keyOfSubject } from './policy-change-assertions';
import { BlockedPermissionChange, PermissionChange } from './policy-change-types';

/**
 * Guardrails in a PolicyChangeReview: an entry the chain's guardrails (those before RBAC)
 * deny its subject is no access gained or lost, so it moves to blockedByGuardrails. An entry
 * is one request when its values are concrete; otherwise it is decided on representative
 * requests (the collection and a name no guardrail names; the cluster scope and a namespace
 * no guardrail names), and a guardrail denying only part of it is noted in
 * restrictedByGuardrails, as the guardrail authorizer's own grant check finds it.
 */

/** A value no real namespace or object name has: stands for "any other". */
const OTHER = '\u0000other';

interface PartialDenier {
  denyingGrant(user: UserInfo, rules: readonly PolicyRule[], namespace: string | null, only?: (attrs: AuthorizationAttributes) => boolean): { guardrail: string } | undefined;
}

/**
 * An entry's resource "every subresource" (written star-slash-star): RBAC's `*` narrowed to
 * subresources, since in an RBAC rule that text names only the subresource `*`.
 */
const EVERY_SUBRESOURCE = '*/*';
const subresourcesOnly = (attrs: AuthorizationAttributes) => attrs.subresource !== '';

const isPartialDenier = (a: Authorizer): a is Authorizer & PartialDenier => typeof (a as Partial<PartialDenier>).denyingGrant === 'function';

const wild = (v: string | undefined) => v !== undefined && v.includes('*');

function requestsOf(entry: PermissionChange, user: UserInfo): AuthorizationAttributes[] {
  const base = { user, verb: entry.verb, apiVersion: '*', path: '', apiGroup: '', resource: '', subresource: '', namespace: '', name: '' };
  if (entry.nonResourceURL !== undefined) return [{ ...base, isResourceRequest: false, path: entry.nonResourceURL }];
  const [resource, subresource = ''] = (entry.resource ?? '').split('/', 2);
  const names = entry.resourceName !== undefined ? [entry.resourceName] : ['', OTHER];
  const namespaces = entry.namespace !== undefined ? [entry.namespace] : ['', OTHER];
  const out: AuthorizationAttributes[] = [];
  for (const namespace of namespaces) for (const name of names) out.push({ ...base, isResourceRequest: true, apiGroup: entry.apiGroup ?? '', resource, subresource, namespace, name });
  return out;
}

function ruleOf(entry: PermissionChange): PolicyRule {
  if (entry.nonResourceURL !== undefined) return { verbs: [entry.verb], nonResourceURLs: [entry.nonResourceURL] };
  const resource = entry.resource === EVERY_SUBRESOURCE ? '*' : (entry.resource ?? '');
  return { verbs: [entry.verb], apiGroups: [entry.apiGroup ?? ''], resources: [resource], ...(entry.resourceName !== undefined ? { resourceNames: [entry.resourceName] } : {}) };
}

/** Splits gained (or lost) entries into those that stand and those the guardrails deny. */
export function applyGuardrails(
  guardrails: readonly Authorizer[],
  entries: PermissionChange[],
  direction: BlockedPermissionChange['direction'],
): { kept: PermissionChange[]; blocked: BlockedPermissionChange[] } {
  if (!guardrails.length) return { kept: entries, blocked: [] };
  const kept: PermissionChange[] = [];
  const blocked: BlockedPermissionChange[] = [];
  for (const entry of entries) {
    const user = identityOfSubjectKey(keyOfSubject(entry.subject));
    const wildcard = wild(entry.verb) || wild(entry.apiGroup) || wild(entry.resource) || wild(entry.nonResourceURL) || wild(entry.resourceName);
    if (!wildcard) {
      const denials = requestsOf(entry, user).map((attrs) => guardrailDenial(guardrails, attrs, user));
      // Denied on every representative request: the whole entry is denied (the first denier names it).
      if (denials.every((d) => d)) {
        blocked.push({ direction, entry, guardrail: denials[0]!.guardrail ?? '', reason: denials[0]!.reason ?? '' });
        continue;
      }
    }
    const restricting = new Set<string>();
    for (const g of guardrails) {
      if (!isPartialDenier(g)) continue;
      const conflict = g.denyingGrant(user, [ruleOf(entry)], entry.namespace ?? null, entry.resource === EVERY_SUBRESOURCE ? subresourcesOnly : undefined);
      if (conflict) restricting.add(conflict.guardrail);
    }
    kept.push(restricting.size ? { ...entry, restrictedByGuardrails: [...restricting].sort() } : entry);
  }
  return { kept, blocked };
}
