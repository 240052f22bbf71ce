import 'reflect-metadata';
import * as os from 'node:os';
import { KubeObject } from '../src/apimachinery/types';
import { EscalationPathSearch } from '../src/access/escalation-paths/escalation-path-search';
import { ReverseEscalationSearch } from '../src/access/escalation-paths/escalation-path-reverse';
import { AccessAnalyzer } from '../src/access/access-analyzer';
import { AccessIndex } from '../src/access/access-index';
import { AuthorizerChain } from '../src/authorization/authorizer-chain';
import { CLUSTER_ROLE_BINDINGS_RESOURCE, CLUSTER_ROLES_RESOURCE, PolicyIndex, RbacResource, ROLE_BINDINGS_RESOURCE } from '../src/authorization/rbac/policy-index';
import { RbacAuthorizer } from '../src/authorization/rbac/rbac-authorizer';

/**
 * `npm run bench -- paths`: escalation path search on 120,000 bindings (110,000 RoleBindings in
 * 2,000 namespaces, 10,000 ClusterRoleBindings; 2,000 users), in process through the real
 * chain: p50/p99 of one subject to cluster-admin (a chain of one token minting and one
 * impersonation, searched forward), and p50/p99 of the question without a subject (`--all`,
 * searched backwards from the target), with how many subjects it finds, whether it is complete,
 * and the heap it takes.
 */
const GROUP = 'rbac.authorization.platform.io';
const V = `${GROUP}/v1`;
const NAMESPACES = 2000;
const PER_NAMESPACE = 55;
const CLUSTER_BINDINGS = 10_000;
const USERS = 2000;

const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}), uid: `${namespace ?? ''}/${name}` });
const user = (name: string) => ({ kind: 'User', apiGroup: GROUP, name });

function world(): PolicyIndex {
  const lists = new Map<RbacResource, KubeObject[]>([
    [CLUSTER_ROLES_RESOURCE, []],
    [ROLE_BINDINGS_RESOURCE, []],
    [CLUSTER_ROLE_BINDINGS_RESOURCE, []],
  ]);
  const role = (name: string, rules: object[]) => lists.get(CLUSTER_ROLES_RESOURCE)!.push({ apiVersion: V, kind: 'ClusterRole', metadata: meta(name), rules } as KubeObject);
  role('cluster-admin', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]);
  role('reader', [{ apiGroups: [''], resources: ['pods', 'configmaps'], verbs: ['get', 'list'] }]);
  role('minter', [{ apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] }]);
  role('impersonator', [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] }]);
  const binding = (kind: string, name: string, roleName: string, subjects: object[], namespace?: string) =>
    ({ apiVersion: V, kind, metadata: meta(name, namespace), roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: roleName }, subjects }) as KubeObject;
  for (let n = 0; n < NAMESPACES; n++) {
    for (let b = 0; b < PER_NAMESPACE; b++) {
      const i = n * PER_NAMESPACE + b;
      // In every namespace one service account mints tokens there; every 100th namespace's is powerful.
      const subjects = b === 0 ? [{ kind: 'ServiceAccount', name: 'minter', namespace: `ns-${n}` }] : [user(`user-${i % USERS}`)];
      lists.get(ROLE_BINDINGS_RESOURCE)!.push(binding('RoleBinding', `rb-${b}`, b === 0 ? 'minter' : 'reader', subjects, `ns-${n}`));
    }
  }
  for (let i = 0; i < CLUSTER_BINDINGS; i++) {
    const powerful = i % 1000 === 0;
    const subjects = powerful ? [{ kind: 'ServiceAccount', name: 'admin', namespace: `ns-${i / 10}` }] : [user(`user-${i % USERS}`)];
    lists.get(CLUSTER_ROLE_BINDINGS_RESOURCE)!.push(binding('ClusterRoleBinding', `crb-${i}`, powerful ? 'cluster-admin' : i % 7 === 0 ? 'impersonator' : 'reader', subjects));
  }
  const index = new PolicyIndex();
  index.replaceAll([...lists].map(([resource, items]) => ({ resource, items })));
  return index;
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];

export async function runEscalationPathsBench(): Promise<void> {
  const policy = world();
  const chain = new AuthorizerChain();
  chain.replace([new RbacAuthorizer('rbac', policy)]);
  const limits = { maxSteps: 4, maxIdentities: 2000, maxPaths: 10, maxDecisions: 200_000 };
  const search = () => new EscalationPathSearch({ chain, policy, secrets: () => [], pods: () => [] }, { verb: '*', group: '*', resource: '*' }, limits);
  const one: number[] = [];
  const decisions: number[] = [];
  let found = 0;
  for (let i = 0; i < 40; i++) {
    const started = process.hrtime.bigint();
    // user-(7k) holds impersonate on service accounts: impersonate a minter, mint an admin's token.
    const question = search();
    const { paths } = await question.from({ username: `user-${(i * 7) % USERS}`, groups: ['system:authenticated'] }, 'x');
    one.push(Number(process.hrtime.bigint() - started) / 1e6);
    decisions.push(question.decisionCount);
    if (paths.length) found++;
  }
  console.log(`escalation paths on 120,000 bindings, one subject to cluster-admin: p50 ${percentile(one, 50).toFixed(0)} ms, p99 ${percentile(one, 99).toFixed(0)} ms (${found}/40 with a path; median ${percentile(decisions, 50)} authorizer decisions); load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
  // --all: the reverse search from cluster-admin, with who-can's reverse indexes to find candidates.
  const analyzer = new AccessAnalyzer(chain, policy, new AccessIndex(policy));
  const allLimits = { ...limits, maxDecisions: 2_000_000 };
  const runs: number[] = [];
  let last = { subjects: 0, incomplete: false, decisions: 0, heap: 0 };
  for (let i = 0; i < 10; i++) {
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const started = process.hrtime.bigint();
    const search = new EscalationPathSearch({ chain, policy, secrets: () => [], pods: () => [] }, { verb: '*', group: '*', resource: '*' }, allLimits);
    const { reaching, incomplete } = await new ReverseEscalationSearch(search, chain, (attrs) => analyzer.whoCan(attrs)).run();
    runs.push(Number(process.hrtime.bigint() - started) / 1e6);
    last = { subjects: reaching.filter((r) => r.path.steps.length).length, incomplete, decisions: search.decisionCount, heap: (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20 };
  }
  const rss = process.memoryUsage().rss / 2 ** 20;
  console.log(
    `--all to cluster-admin: p50 ${percentile(runs, 50).toFixed(0)} ms, p99 ${percentile(runs, 99).toFixed(0)} ms (10 runs); ${last.subjects} subjects with a path, ` +
      `${last.incomplete ? 'incomplete' : 'complete'}, ${last.decisions} authorizer decisions, heap +${last.heap.toFixed(0)} MiB during a run; RSS ${rss.toFixed(0)} MiB`,
  );
}

if (require.main === module) {
  runEscalationPathsBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
