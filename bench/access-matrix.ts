import 'reflect-metadata';
import { cpus, loadavg } from 'node:os';
import { AccessAnalyzer } from '../src/access/access-analyzer';
import { AccessIndex } from '../src/access/access-index';
import { accessMatrix } from '../src/access/access-matrix';
import { DEFAULT_MATRIX_VERBS } from '../src/access/access-matrix-types';
import { AuthorizerChain } from '../src/authorization/authorizer-chain';
import { RbacAuthorizer } from '../src/authorization/rbac/rbac-authorizer';
import { percentile } from './client';
import { latencies, policyOfWorld, RESOURCES } from './access';

/**
 * `npm run bench -- matrix`: an AccessMatrixReview (the access explorer's namespace matrix) in
 * process, on the access bench's policy of 100,000 RoleBindings and 10,000 ClusterRoleBindings:
 * 10 resources × 8 verbs in one namespace, p50 and p99, and the size of the answer, whole and
 * with a subject filter (the 10,000 ClusterRoleBindings name 10,000 users, all in every namespace's matrix).
 */
export async function runAccessMatrixBench(): Promise<void> {
  const policy = policyOfWorld();
  const index = new AccessIndex(policy);
  const chain = new AuthorizerChain();
  chain.replace([new RbacAuthorizer('rbac', policy)]);
  const analyzer = new AccessAnalyzer(chain, policy, index);
  const spec = { resources: RESOURCES.map((resource, i) => ({ group: i >= 5 ? 'apps' : '', resource })), verbs: DEFAULT_MATRIX_VERBS };
  const sample = accessMatrix(analyzer, 'ns-7', spec);
  const subjects = new Set(sample.grants.flatMap((g) => g.subjects.map((s) => `${s.kind}/${s.namespace ?? ''}/${s.name}`)));
  console.log(`AccessMatrixReview of ns-7 (${spec.resources.length} resources x ${spec.verbs.length} verbs): ${sample.grants.length} grants, ${subjects.size} subjects, ${Buffer.byteLength(JSON.stringify(sample))} bytes of status`);
  const runs = await latencies(200, (i) => accessMatrix(analyzer, `ns-${i % 1000}`, spec));
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  console.log(`in process: p50 ${ms(percentile(runs.wall, 50))}, p99 ${ms(percentile(runs.wall, 99))}; CPU time p50 ${ms(percentile(runs.cpu, 50))}`);
  const filtered = { ...spec, subjectFilter: { kind: 'User', nameContains: 'user-7' } };
  const narrow = accessMatrix(analyzer, 'ns-7', filtered);
  console.log(`with subjectFilter {kind: User, nameContains: user-7}: ${narrow.grants.length} grants, ${Buffer.byteLength(JSON.stringify(narrow))} bytes of status`);
  const narrowRuns = await latencies(200, (i) => accessMatrix(analyzer, `ns-${i % 1000}`, filtered));
  console.log(`in process, filtered: p50 ${ms(percentile(narrowRuns.wall, 50))}, p99 ${ms(percentile(narrowRuns.wall, 99))}`);
  console.log(`load average while measuring: ${loadavg().map((l) => l.toFixed(1)).join(', ')} on ${cpus().length} CPUs`);
  index.close();
}
