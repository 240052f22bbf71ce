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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accessChangesOf, diffOfCommittedChange, revisionPrefix, takeEntryChunk } from '../src/access/access-history';
import { AccessChange, accessChangeType } from '../src/access/access-change-kind';
import { fillCreateMetadata } from '../src/apimachinery/system-metadata';
import { storageResource } from '../src/apimachinery/store-key';
import { openDatabase } from '../src/storage/engine/database';
import { serverStore } from '../src/storage/mvcc/mvcc-store';

/**
 * `npm run bench -- policy-change`: how long a PolicyChangeReview takes in process when the
 * change touches many subjects. The default roles (view, edit and admin aggregated as the
 * controller leaves them), ClusterRole view bound in 2,000 namespaces (a user and a group
 * each) among 110,000 RoleBindings and 10,000 ClusterRoleBindings; the changes: a rule added
 * to view (through the role aggregated into it), and a new ClusterRole labelled aggregate-to-view (which changes view, edit and
 * admin and everyone bound to them). The target is 1 s.
 * Then the history side of the first: the access-history recorder's diff of view as the
 * aggregation controller commits it, its AccessChange entries, and their writes to a new
 * embedded store as the recorder makes them (statements of many entries): how long from the
 * commit until every entry is stored.
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
  await measureHistory(policy, viewPart);
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

/** The recorder's work for the committed edit of view (a rule added through system:aggregate-to-view): diff, entries, store. */
async function measureHistory(policy: PolicyIndex, viewPart: ClusterRole): Promise<void> {
  const access = new AccessIndex(policy);
  const view = policy.clusterRole('view')!;
  const added = { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] };
  const committed = { ...view, rules: [...(view.rules ?? []), added] } as KubeObject;
  const dir = mkdtempSync(join(tmpdir(), 'bench-history-view-'));
  const db = await openDatabase({ dataDir: dir });
  try {
    const store = serverStore(db);
    const started = performance.now();
    const diff = diffOfCommittedChange(policy, access, { kind: 'ClusterRole', namespace: '', name: 'view', object: committed });
    const diffed = performance.now();
    const cause = { kind: 'ClusterRole', name: 'view', resourceVersion: '1000', operation: 'Update' as const, user: { username: 'system:controller:clusterrole-aggregation-controller' } };
    const queued: AccessChange[] = accessChangesOf(diff, cause, new Date().toISOString(), revisionPrefix('1000'));
    const entries = queued.length;
    const resource = storageResource(accessChangeType);
    while (queued.length > 0) {
      const chunk = takeEntryChunk(queued);
      for (const entry of chunk) fillCreateMetadata(entry);
      await store.createMissing(resource, chunk.map((entry) => ({ namespace: '', name: entry.metadata.name!, object: entry })), { author: { username: cause.user.username } });
    }
    const stored = performance.now();
    console.log(
      `  history of the view edit (${viewPart.metadata.name} feeding view): diff ${(diffed - started).toFixed(0)} ms (${diff.gained.length + diff.lost.length} gained/lost entries), ${entries} AccessChanges stored ${(stored - started).toFixed(0)} ms after the commit (load ${loadavg()[0].toFixed(2)})`,
    );
  } finally {
    access.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
