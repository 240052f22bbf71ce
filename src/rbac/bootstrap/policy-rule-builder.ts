import { PolicyRule } from '../../apis/rbac/types';

/** Verb sets kube's bootstrap policy names. */
export const READ = ['get', 'list', 'watch'] as const;
export const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'] as const;
export const READ_WRITE = [...READ, ...WRITE] as const;

/** A rule on resources (kube's `NewRule(verbs).Groups(groups).Resources(resources)`). */
export function resourceRule(verbs: readonly string[], apiGroups: readonly string[], resources: readonly string[]): PolicyRule {
  return { verbs: [...verbs], apiGroups: [...apiGroups], resources: [...resources] };
}

/** A rule on non-resource URLs (kube's `NewRule(verbs).URLs(urls)`). */
export function urlRule(verbs: readonly string[], nonResourceURLs: readonly string[]): PolicyRule {
  return { verbs: [...verbs], nonResourceURLs: [...nonResourceURLs] };
}
