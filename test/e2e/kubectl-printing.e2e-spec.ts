import { eventually } from '../support/eventually';
import { Kubectl, kubectlFor, spawnKubectl } from '../support/kubectl';
import { startTestServer, TestServer } from '../support/test-server';

const NS = 'printing';
const RBAC = '/apis/rbac.authorization.platform.io/v1';
/** A kubectl AGE (`45s`, `2m3s`, ...). */
const AGE = /\d+[smhdy][0-9smhdy]*/;
const TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A line of kubectl's table: the cells in order (text, or a pattern), separated by column padding. */
function line(...cells: Array<string | RegExp>): RegExp {
  return new RegExp(`^${cells.map((c) => (typeof c === 'string' ? escape(c) : c.source)).join('\\s+')}\\s*$`, 'm');
}

/** The header kubectl prints: column names upper-cased, in order. */
const header = (...names: string[]) => line(...names);

const subjects = [
  { kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: 'alice' },
  { kind: 'Group', apiGroup: 'rbac.authorization.platform.io', name: 'devs' },
  { kind: 'ServiceAccount', name: 'ci', namespace: 'build' },
];
const roleRef = { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' };

/** `kubectl get` and `get -o wide` of every kind show kube's columns (server-side printing in meta.k8s.io). */
describe('kubectl get prints kube columns', () => {
  let server: TestServer;
  let kubectl: Kubectl;

  async function create(path: string, body: Record<string, unknown>): Promise<void> {
    const res = await server.admin.post(path, body);
    expect(res.status).toBe(201);
  }

  beforeAll(async () => {
    server = await startTestServer();
    kubectl = kubectlFor(server);
    await create('/api/v1/namespaces', { metadata: { name: NS } });
    await create(`${RBAC}/namespaces/${NS}/rolebindings`, { metadata: { name: 'readers' }, roleRef, subjects });
    await create(`${RBAC}/clusterrolebindings`, { metadata: { name: 'printing-readers' }, roleRef, subjects });
    await create(`${RBAC}/namespaces/${NS}/roles`, { metadata: { name: 'reader' }, rules: [] });
    await create('/api/v1/nodes', {
      metadata: { name: 'worker-1', labels: { 'node-role.platform.io/worker': '' } },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.7' }],
        nodeInfo: { kubeletVersion: 'v1.32.1', osImage: 'Debian GNU/Linux 12', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.2' },
      },
    });
    await create(`/api/v1/namespaces/${NS}/pods`, { metadata: { name: 'web' }, spec: { nodeName: 'worker-1', containers: [{ name: 'c', image: 'nginx' }] } });
    await create('/api/v1/persistentvolumes', {
      metadata: { name: 'vol-1' },
      spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], hostPath: { path: '/data' }, storageClassName: 'fast', claimRef: { namespace: NS, name: 'data' } },
    });
    await create(`/api/v1/namespaces/${NS}/persistentvolumeclaims`, {
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } }, storageClassName: 'fast' },
    });
    await create(`/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'creds' }, type: 'Opaque', stringData: { user: 'u', password: 'p' } });
    await create(`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'settings' }, data: { a: '1' }, binaryData: { b: 'Yg==' } });
    await create(`/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'builder' }, secrets: [{ name: 'creds' }] });
  });
  afterAll(async () => {
    await server?.close();
  });

  const get = async (...args: string[]) => (await kubectl('get', ...args)).stdout;

  it('prints RoleBindings and ClusterRoleBindings with ROLE, and USERS, GROUPS, SERVICEACCOUNTS wide', async () => {
    const bindings = await get('rolebindings', '-n', NS);
    expect(bindings).toMatch(header('NAME', 'ROLE', 'AGE'));
    expect(bindings).toMatch(line('readers', 'ClusterRole/view', AGE));
    const wide = await get('rolebindings', '-n', NS, '-o', 'wide');
    expect(wide).toMatch(header('NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS'));
    expect(wide).toMatch(line('readers', 'ClusterRole/view', AGE, 'alice', 'devs', 'build/ci'));
    const cluster = await get('clusterrolebindings', 'printing-readers', '-o', 'wide');
    expect(cluster).toMatch(header('NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS'));
    expect(cluster).toMatch(line('printing-readers', 'ClusterRole/view', AGE, 'alice', 'devs', 'build/ci'));
  });

  it('prints Roles and ClusterRoles with CREATED AT, and Namespaces with STATUS', async () => {
    const roles = await get('roles', '-n', NS);
    expect(roles).toMatch(header('NAME', 'CREATED AT'));
    expect(roles).toMatch(line('reader', TIMESTAMP));
    expect(await get('clusterroles', 'view')).toMatch(line('view', TIMESTAMP));
    const namespaces = await get('namespaces', NS);
    expect(namespaces).toMatch(header('NAME', 'STATUS', 'AGE'));
    expect(namespaces).toMatch(line(NS, 'Active', AGE));
  });

  it('prints Nodes with STATUS, ROLES, VERSION, and addresses and system info wide', async () => {
    expect(await get('nodes')).toMatch(line('worker-1', 'Ready', 'worker', AGE, 'v1.32.1'));
    const wide = await get('nodes', '-o', 'wide');
    expect(wide).toMatch(header('NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME'));
    expect(wide).toMatch(line('worker-1', 'Ready', 'worker', AGE, 'v1.32.1', '10.0.0.7', '<none>', 'Debian GNU/Linux 12', '6.1.0', 'containerd://1.7.2'));
  });

  it('prints Pods with READY, STATUS, RESTARTS, and IP, NODE, NOMINATED NODE, READINESS GATES wide', async () => {
    const pods = await get('pods', '-n', NS);
    expect(pods).toMatch(header('NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'));
    expect(pods).toMatch(line('web', '0/1', 'Pending', '0', AGE));
    const wide = await get('pods', '-n', NS, '-o', 'wide');
    expect(wide).toMatch(header('NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'));
    expect(wide).toMatch(line('web', '0/1', 'Pending', '0', AGE, '<none>', 'worker-1', '<none>', '<none>'));
    const everywhere = await get('pods', '-A');
    expect(everywhere).toMatch(header('NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'));
    expect(everywhere).toMatch(line(NS, 'web', '0/1', 'Pending', '0', AGE));
  });

  it('prints PersistentVolumes and claims with capacity, access modes, claim and storage class', async () => {
    const volumes = await get('pv', '-o', 'wide');
    expect(volumes).toMatch(
      header('NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'REASON', 'AGE', 'VOLUMEMODE'),
    );
    expect(volumes).toMatch(line('vol-1', '5Gi', 'RWO,ROX', 'Retain', 'Pending', `${NS}/data`, 'fast', '<unset>', AGE, 'Filesystem'));
    const claims = await get('pvc', '-n', NS, '-o', 'wide');
    expect(claims).toMatch(header('NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'AGE', 'VOLUMEMODE'));
    // Unbound: no volume, capacity or access modes yet.
    expect(claims).toMatch(line('data', 'Pending', 'fast', '<unset>', AGE, 'Filesystem'));
  });

  it('prints Secrets with TYPE and DATA, ConfigMaps with DATA, ServiceAccounts with SECRETS', async () => {
    const secrets = await get('secrets', '-n', NS);
    expect(secrets).toMatch(header('NAME', 'TYPE', 'DATA', 'AGE'));
    expect(secrets).toMatch(line('creds', 'Opaque', '2', AGE));
    const configMaps = await get('configmaps', '-n', NS);
    expect(configMaps).toMatch(header('NAME', 'DATA', 'AGE'));
    expect(configMaps).toMatch(line('settings', '2', AGE));
    const accounts = await get('serviceaccounts', '-n', NS);
    expect(accounts).toMatch(header('NAME', 'SECRETS', 'AGE'));
    expect(accounts).toMatch(line('builder', '1', AGE));
  });

  it('follows changes with get -w, each row in the kind columns', async () => {
    const watch = spawnKubectl(server, 'get', 'configmaps', '-n', NS, '-w');
    try {
      await eventually(() => expect(watch.output()).toMatch(line('settings', '2', AGE)), 10000);
      expect(watch.output()).toMatch(header('NAME', 'DATA', 'AGE'));
      await create(`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'watched' }, data: { a: '1', b: '2', c: '3' } });
      await eventually(() => expect(watch.output()).toMatch(line('watched', '3', AGE)), 10000);
    } finally {
      watch.stop();
    }
  });
});
