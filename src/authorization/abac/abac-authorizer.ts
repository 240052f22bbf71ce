import { Logger } from '@nestjs/common';
import { readConfigFile } from '../../config/config-file';
import { UserInfo } from '../../apimachinery/user-info';
import { AuthorizationAttributes, AuthorizationResult, Authorizer, NonResourceRule, ResourceRule, RuleResolution } from '../authorizer';
import { AbacPolicy, parsePolicyFile, PolicyLoadError } from './abac-policy';

/**
 * kube's ABAC authorizer: the first policy that matches allows; none matching is no
 * opinion with the reason "No policy matched." (policies cannot deny). A policy matches
 * when its subject matches, the request is read-only or the policy is not, and its
 * resource fields (resource requests) or its non-resource path (others) match.
 */

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);
const NO_MATCH = 'No policy matched.';

/** kube's subjectMatches: a set user must be the caller (or `*`), a set group one of its groups (or `*`). */
export function subjectMatches(policy: AbacPolicy, user: UserInfo): boolean {
  let matched = false;
  if (policy.user) {
    if (policy.user === '*') matched = true;
    else if (policy.user === user.username) matched = true;
    else return false;
  }
  if (policy.group) {
    if (policy.group === '*') matched = true;
    else if (user.groups.includes(policy.group)) matched = true;
    else return false;
  }
  return matched;
}

function verbMatches(policy: AbacPolicy, attrs: AuthorizationAttributes): boolean {
  return READ_ONLY_VERBS.has(attrs.verb) || !policy.readonly;
}

function resourceMatches(policy: AbacPolicy, attrs: AuthorizationAttributes): boolean {
  return (
    attrs.isResourceRequest &&
    (policy.namespace === '*' || policy.namespace === attrs.namespace) &&
    (policy.resource === '*' || policy.resource === attrs.resource) &&
    (policy.apiGroup === '*' || policy.apiGroup === attrs.apiGroup)
  );
}

function nonResourceMatches(policy: AbacPolicy, attrs: AuthorizationAttributes): boolean {
  if (attrs.isResourceRequest) return false;
  const p = policy.nonResourcePath;
  if (p === '*' || p === attrs.path) return true;
  return p.endsWith('*') && attrs.path.startsWith(p.replace(/\*+$/, ''));
}

export function policyMatches(policy: AbacPolicy, attrs: AuthorizationAttributes): boolean {
  return subjectMatches(policy, attrs.user) && verbMatches(policy, attrs) && (resourceMatches(policy, attrs) || nonResourceMatches(policy, attrs));
}

const verbsOf = (readonly: boolean) => (readonly ? ['get', 'list', 'watch'] : ['*']);

export class AbacAuthorizer implements Authorizer {
  readonly type = 'ABAC';

  constructor(
    readonly name: string,
    private readonly policies: readonly AbacPolicy[],
  ) {}

  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    for (const policy of this.policies) if (policyMatches(policy, attrs)) return { decision: 'Allow', reason: '' };
    return { decision: 'NoOpinion', reason: NO_MATCH };
  }

  /** kube's ABAC RulesFor: per policy of the caller in the namespace, a resource and/or a non-resource rule. */
  rulesFor(user: UserInfo, namespace: string): RuleResolution {
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const p of this.policies) {
      if (!subjectMatches(p, user) || (p.namespace !== '*' && p.namespace !== namespace)) continue;
      if (p.resource) resourceRules.push({ verbs: verbsOf(p.readonly), apiGroups: [p.apiGroup], resources: [p.resource] });
      if (p.nonResourcePath) nonResourceRules.push({ verbs: verbsOf(p.readonly), nonResourceURLs: [p.nonResourcePath] });
    }
    return { resourceRules, nonResourceRules, incomplete: false };
  }
}

/** Reads and parses `--authorization-policy-file`; a file that cannot be read or parsed is a PolicyLoadError. */
export function loadAbacPolicies(path: string, logger = new Logger('ABAC')): AbacPolicy[] {
  let text: string;
  try {
    text = readConfigFile(path);
  } catch (err) {
    throw new PolicyLoadError(path, undefined, '', (err as Error).message);
  }
  const { policies, unversionedLines } = parsePolicyFile(text, path);
  if (unversionedLines > 0) {
    logger.warn(`Policy file ${path} contained unversioned rules. See the ABAC mode documentation for the policy file format.`);
  }
  return policies;
}
