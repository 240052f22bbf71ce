import { FieldError, fieldErrorBody } from '../apimachinery/field-errors';
import { KubeObject } from '../apimachinery/types';
import { ClusterRole } from '../apis/rbac/types';
import { AuthorizerChain } from '../authorization/authorizer-chain';
import { CLUSTER_ROLE_BINDINGS_RESOURCE, CLUSTER_ROLES_RESOURCE, PolicyIndex, ROLE_BINDINGS_RESOURCE, ROLES_RESOURCE } from '../authorization/rbac/policy-index';
import { RbacAuthorizer } from '../authorization/rbac/rbac-authorizer';
import { aggregateRules } from '../rbac/aggregation/aggregate-rules';
import { defaultClusterRoleBindings, defaultClusterRoles } from '../rbac/bootstrap/default-policy';
import { AccessIndex } from './access-index';
import { objectChangesOf, PolicyChangeAnalyzer } from './policy-change-analyzer';
import { PolicyChangeReview, PolicyChangeSpec, PolicyChangeStatus } from './policy-change-types';
import { defaultPolicyChangeReview, validatePolicyChangeReview } from './policy-change-validation';

/**
 * A PolicyChangeReview answered without a server (`kubectl access diff|test --offline`): the
 * policy is read from manifests (plus the server's default roles and bindings, as a new
 * cluster has them, unless the manifests replace them), validated as the server validates
 * RBAC objects, aggregated as the aggregation controller would, and put in the same index;
 * the answer comes from the same analyzer as the server's.
 */

const OFFLINE_CALLER = { username: 'offline', groups: ['system:masters'] };
const AGGREGATION_PASSES = 10;

/** The aggregating ClusterRoles' rules as the aggregation controller leaves them. */
export function aggregated(roles: readonly ClusterRole[]): ClusterRole[] {
  const byName = new Map(roles.map((r) => [r.metadata.name ?? '', r]));
  for (let pass = 0; pass < AGGREGATION_PASSES; pass++) {
    let changed = false;
    for (const role of byName.values()) {
      if (!role.aggregationRule?.clusterRoleSelectors?.length) continue;
      const rules = aggregateRules(role, byName.values());
      if (rules && JSON.stringify(rules) !== JSON.stringify(role.rules ?? [])) {
        byName.set(role.metadata.name ?? '', { ...role, rules });
        changed = true;
      }
    }
    if (!changed) break;
  }
  return [...byName.values()];
}

function describeErrors(errs: FieldError[], rename: (field: string) => string): string[] {
  return errs.map((e) => `${rename(e.field)}: ${fieldErrorBody(e)}`);
}

export type OfflineAnswer = { status: PolicyChangeStatus; errors?: undefined } | { status?: undefined; errors: string[] };

export async function answerOffline(policyObjects: readonly KubeObject[], spec: PolicyChangeSpec, options: { defaultPolicy?: boolean } = {}): Promise<OfflineAnswer> {
  // The policy goes through the same defaulting and validation as the changes of a review.
  const policyReview = { metadata: {}, spec: { changes: policyObjects.map((object) => ({ object: structuredClone(object) })) } } as unknown as PolicyChangeReview;
  defaultPolicyChangeReview(policyReview as unknown as KubeObject);
  const policyErrors = validatePolicyChangeReview(policyReview);
  if (policyErrors.length) return { errors: describeErrors(policyErrors, (f) => f.replace(/^spec\.changes\[(\d+)\]\.object/, 'policy[$1]')) };
  const review = { metadata: {}, spec: structuredClone(spec) } as PolicyChangeReview;
  defaultPolicyChangeReview(review as unknown as KubeObject);
  const errors = validatePolicyChangeReview(review);
  if (errors.length) return { errors: describeErrors(errors, (f) => f) };

  const objects = new Map<string, KubeObject>();
  const add = (kind: string, object: KubeObject) => objects.set(`${kind}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`, object);
  if (options.defaultPolicy !== false) {
    for (const role of defaultClusterRoles()) add('ClusterRole', role);
    for (const binding of defaultClusterRoleBindings()) add('ClusterRoleBinding', binding);
  }
  for (const change of objectChangesOf(policyReview.spec ?? {})) if (change.object) add(change.kind, change.object);
  const ofKind = (kind: string) => [...objects].filter(([key]) => key.startsWith(`${kind}/`)).map(([, o]) => o);
  const policy = new PolicyIndex();
  policy.replaceAll([
    { resource: ROLES_RESOURCE, items: ofKind('Role') },
    { resource: CLUSTER_ROLES_RESOURCE, items: aggregated(ofKind('ClusterRole') as ClusterRole[]) },
    { resource: ROLE_BINDINGS_RESOURCE, items: ofKind('RoleBinding') },
    { resource: CLUSTER_ROLE_BINDINGS_RESOURCE, items: ofKind('ClusterRoleBinding') },
  ]);
  const chain = new AuthorizerChain();
  chain.replace([new RbacAuthorizer('rbac', policy)]);
  const access = new AccessIndex(policy);
  try {
    return { status: await new PolicyChangeAnalyzer(policy, access, chain).answer(review.spec ?? {}, OFFLINE_CALLER) };
  } finally {
    access.close();
  }
}
