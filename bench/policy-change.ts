import { cpus, loadavg } from 'node:os';
import { AccessIndex } from '../src/access/access-index';
import { PolicyChangeAnalyzer } from '../src/access/policy-change-analyzer';
import { PolicyChangeItem } from '../src/access/policy-change-types';
import { ClusterRole } from '../src/apis/rbac/types';
import { KubeObject } from '../src/apimachinery/types';
import { AuthorizerChain } from '../src/authorization/authorizer-chain';
import { CLUSTER_ROLE_BINDINGS_RESOURCE, CLUSTER_ROLES_RESOURCE, PolicyIndex, ROLE_BINDINGS_RESOURCE } from '../src/authorization/rbac/policy-index';
import { RbacAuthorizer } from '../src/authorization/rbac/rbac-authorizer';
import { aggregateRules } from '../src/rbac/aggregation/aggregate-rules';
import { defaultClusterRoles } from '../src/rbac/bootstrap/default-policy';
import { percentile } from './client';

/**
 * `npm run bench -- policy-change`: how long a PolicyChangeReview takes in process when the
 * change touches many subjects. The default roles (view, edit and admin aggregated as the
 * controller leaves them), ClusterRole view bound in 2,000 namespaces (a user and a group
 * each) among 110,000 RoleBindings and 10,000 ClusterRoleBindings; the changes: a rule added
 * to view (through the role aggregated into it), and a new ClusterRole labelled aggregate-to-view (which changes view, edit and
 * admin and everyone bound to them). The target is 1 s.
 */
const GROUP = 'rbac.authorization.platform.io';
const API_VERSION = `${GROUP}/v1`;
const VIEW_NAMESPACES = 2000;
const OTHER_ROLE_BINDINGS = 110_000 - VIEW_NAMESPACES;
const CLUSTER_ROLE_BINDINGS = 10_000;
const ROUNDS = 7;

function aggregatedDefaults(): ClusterRole[] {
  const roles = new Map(defaultClusterRoles().map((r) => [r.metadata.name!, r]));
  // view feeds edit, which feeds admin: three passes settle the chain.
  for (let pass = 0; pass < 3; pass++) {
    for (const role of roles.values()) {
      if (!role.aggregationRule?.clusterRoleSelectors?.length) continue;
      const rules = aggregateRules(role, roles.values());
      if (rules) roles.set(role.metadata.name!, { ...role, rules });
    }
  }
  return [...roles.values()];
}

function world(): PolicyIndex {
  const index = new PolicyIndex();
  const binding = (kind: string, name: string, roleName: string, subjects: object[], namespace?: string) =>
    ({ apiVersion: API_VERSION, kind, metadata: { name, ...(namespace ? { namespace } : {}) }, roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: roleName }, subjects }) as KubeObject;
  const user = (name: string) => ({ kind: 'User', apiGroup: GROUP, name });
  const group = (name: string) => ({ kind: 'Group', apiGroup: GROUP, name });
  const clusterRoles = aggregatedDefaults();
  for (let i = 0; i < 20; i++) {
    clusterRoles.push({ apiVersion: API_VERSION, kind: 'ClusterRole', metadata: { name: `team-${i}` }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] } as ClusterRole);
  }
  const roleBindings: KubeObject[] = [];
  for (let n = 0; n < VIEW_NAMESPACES; n++) roleBindings.push(binding('RoleBinding', 'viewers', 'view', [user(`viewer-${n}`), group(`team-${n % 50}`)], `ns-${n}`));
  for (let i = 0; i < OTHER_ROLE_BINDINGS; i++) roleBindings.push(binding('RoleBinding', `rb-${i}`, `team-${i % 20}`, [user(`user-${i % 5000}`)], `ns-${i % VIEW_NAMESPACES}`));
  const clusterRoleBindings: KubeObject[] = [];
  for (let i = 0; i < CLUSTER_ROLE_BINDINGS; i++) clusterRoleBindings.push(binding('ClusterRoleBinding', `crb-${i}`, `team-${i % 20}`, [user(`user-${i}`)]));
  index.replaceAll([
    { resource: CLUSTER_ROLES_RESOURCE, items: clusterRoles },
    { resource: ROLE_BINDINGS_RESOURCE, items: roleBindings },
    { resource: CLUSTER_ROLE_BINDINGS_RESOURCE, items: clusterRoleBindings },
  ]);
  return index;
}

async function measure(label: string, analyzer: PolicyChangeAnalyzer, changes: PolicyChangeItem[]): Promise<void> {
  const times: number[] = [];
  let entries = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    const status = await analyzer.answer({ changes }, { username: 'admin', groups: ['system:masters'] });
    times.push(performance.now() - start);
    entries = status.gained.length + status.lost.length;
  }
  console.log(`  ${label}: p50 ${percentile([...times].sort((a, b) => a - b), 50).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (${entries} gained/lost entries)`);
}

export async function runPolicyChangeBench(): Promise<void> {
  console.log(`PolicyChangeReview in process (${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}): view bound in ${VIEW_NAMESPACES} namespaces, 110,000 RoleBindings, ${CLUSTER_ROLE_BINDINGS} ClusterRoleBindings`);
  const policy = world();
  const chain = new AuthorizerChain();
  chain.replace([new RbacAuthorizer('rbac', policy)]);
  const analyzer = new PolicyChangeAnalyzer(policy, new AccessIndex(policy), chain);
  // view's own rules are the aggregation controller's: an edit of view is an edit of a role aggregated into it.
  const viewPart = policy.clusterRole('system:aggregate-to-view')!;
  await measure('a rule added to view (through system:aggregate-to-view)', analyzer, [
    { object: { ...viewPart, rules: [...(viewPart.rules ?? []), { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }] } as KubeObject },
  ]);
  await measure('a ClusterRole labelled aggregate-to-view (view, edit, admin change)', analyzer, [
    {
      object: {
        apiVersion: API_VERSION,
        kind: 'ClusterRole',
        metadata: { name: 'widgets-view', labels: { [`${GROUP}/aggregate-to-view`]: 'true' } },
        rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }],
      } as KubeObject,
    },
  ]);
}
