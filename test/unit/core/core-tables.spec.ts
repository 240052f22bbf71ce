import { transformBody } from '../../../src/runtime/serializer/transform';
import { ResourceType } from '../../../src/runtime/schema/resource-type';
import { configMapType } from '../../../src/core/kinds/config-map';
import { nodeType } from '../../../src/core/kinds/node';
import { persistentVolumeClaimType } from '../../../src/core/kinds/persistent-volume-claim';
import { persistentVolumeType } from '../../../src/core/kinds/persistent-volume';
import { podType } from '../../../src/core/kinds/pod';
import { secretType } from '../../../src/core/kinds/secret';
import { serviceAccountType } from '../../../src/core/kinds/service-account';

const NOW = new Date('2024-06-01T12:00:00Z');
const TABLE = { kind: 'Table' as const, group: 'meta.k8s.io' as const, version: 'v1' as const };
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

type Obj = Record<string, any>;

function table(type: ResourceType, obj: Obj): { columns: Array<[string, number]>; cells: unknown[]; row: Obj } {
  const body = { metadata: { name: 'x', creationTimestamp: ago(60) }, ...obj };
  const t = transformBody(TABLE, body, { type, query: {}, now: NOW }) as any;
  return { columns: t.columnDefinitions.map((c: any) => [c.name, c.priority]), cells: t.rows[0].cells, row: t.rows[0] };
}

const podCells = (pod: Obj) => table(podType, pod).cells;
/** READY, STATUS, RESTARTS of a pod. */
const summary = (pod: Obj) => podCells(pod).slice(1, 4);
const running = { running: { startedAt: ago(600) } };

describe("kube's printer columns of the core kinds", () => {
  it('prints pods as NAME, READY, STATUS, RESTARTS, AGE, and wide IP, NODE, NOMINATED NODE, READINESS GATES', () => {
    const pod = { spec: { containers: [{ name: 'a' }, { name: 'b' }] }, status: { phase: 'Pending' } };
    expect(table(podType, pod).columns).toEqual([
      ['Name', 0],
      ['Ready', 0],
      ['Status', 0],
      ['Restarts', 0],
      ['Age', 0],
      ['IP', 1],
      ['Node', 1],
      ['Nominated Node', 1],
      ['Readiness Gates', 1],
    ]);
    expect(podCells(pod)).toEqual(['x', '0/2', 'Pending', '0', '60s', '<none>', '<none>', '<none>', '<none>']);
    const placed = {
      spec: { nodeName: 'n1', containers: [{ name: 'a' }], readinessGates: [{ conditionType: 'g1' }, { conditionType: 'g2' }] },
      status: { phase: 'Running', podIPs: [{ ip: '10.1.0.7' }, { ip: 'fd00::7' }], nominatedNodeName: 'n2', conditions: [{ type: 'g1', status: 'True' }, { type: 'g2', status: 'False' }] },
    };
    expect(podCells(placed).slice(5)).toEqual(['10.1.0.7', 'n1', 'n2', '1/2']);
  });

  it('counts ready running containers and restarts, with the age of the last restart', () => {
    const pod = {
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 2, state: running, lastState: { terminated: { exitCode: 1, finishedAt: ago(300) } } },
          { name: 'b', ready: true, restartCount: 1, state: running, lastState: { terminated: { exitCode: 1, finishedAt: ago(3600) } } },
        ],
      },
    };
    expect(summary(pod)).toEqual(['2/2', 'Running', '3 (5m ago)']);
  });

  it("shows a waiting or terminated container's reason, else its signal or exit code", () => {
    const crashing = { spec: { containers: [{ name: 'a' }] }, status: { phase: 'Running', containerStatuses: [{ name: 'a', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }] } };
    expect(summary(crashing)).toEqual(['0/1', 'CrashLoopBackOff', '4']);
    const killed = { spec: { containers: [{ name: 'a' }] }, status: { phase: 'Running', containerStatuses: [{ name: 'a', state: { terminated: { signal: 9, exitCode: 137 } } }] } };
    expect(summary(killed)[1]).toBe('Signal:9');
    const exited = { spec: { containers: [{ name: 'a' }] }, status: { phase: 'Failed', containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 3 } } }] } };
    expect(summary(exited)[1]).toBe('ExitCode:3');
    const evicted = { spec: { containers: [{ name: 'a' }] }, status: { phase: 'Failed', reason: 'Evicted' } };
    expect(summary(evicted)[1]).toBe('Evicted');
  });

  it('reports init containers: progress, a failed or waiting one, and running sidecars', () => {
    const spec = { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'a' }] };
    const done = { state: { terminated: { exitCode: 0, reason: 'Completed' } } };
    expect(summary({ spec, status: { phase: 'Pending', initContainerStatuses: [{ name: 'i1', ...done }, { name: 'i2', state: { running: {} } }] } })[1]).toBe('Init:1/2');
    expect(summary({ spec, status: { phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 2, reason: 'Error' } } }] } })[1]).toBe('Init:Error');
    expect(summary({ spec, status: { phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 2 } } }] } })[1]).toBe('Init:ExitCode:2');
    expect(summary({ spec, status: { phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { waiting: { reason: 'ImagePullBackOff' } } }] } })[1]).toBe(
      'Init:ImagePullBackOff',
    );
    // A sidecar (restartPolicy Always) counts among the containers once started.
    const withSidecar = {
      spec: { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }], containers: [{ name: 'a' }] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True' }],
        initContainerStatuses: [{ name: 'proxy', started: true, ready: true, restartCount: 1, state: running }],
        containerStatuses: [{ name: 'a', ready: true, state: running }],
      },
    };
    expect(summary(withSidecar)).toEqual(['2/2', 'Running', '1']);
  });

  it('keeps a pod whose other containers completed Running or NotReady, and marks deletions', () => {
    const status = (ready: boolean) => ({
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      containerStatuses: [
        { name: 'a', ready: true, state: running },
        { name: 'b', state: { terminated: { exitCode: 0, reason: 'Completed' } } },
      ],
    });
    const spec = { containers: [{ name: 'a' }, { name: 'b' }] };
    expect(summary({ spec, status: status(true) })[1]).toBe('Running');
    expect(summary({ spec, status: status(false) })[1]).toBe('NotReady');
    const deleting = { metadata: { name: 'x', deletionTimestamp: ago(5) }, spec, status: { phase: 'Running' } };
    expect(summary(deleting)[1]).toBe('Terminating');
    expect(summary({ ...deleting, status: { phase: 'Running', reason: 'NodeLost' } })[1]).toBe('Unknown');
    expect(summary({ ...deleting, status: { phase: 'Succeeded' } })[1]).toBe('Succeeded');
    const gated = { spec, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] } };
    expect(summary(gated)[1]).toBe('SchedulingGated');
  });

  it('marks finished pods with a Completed row condition, as kube does', () => {
    const spec = { containers: [{ name: 'a' }] };
    expect(table(podType, { spec, status: { phase: 'Succeeded' } }).row.conditions).toEqual([
      { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
    ]);
    expect(table(podType, { spec, status: { phase: 'Failed' } }).row.conditions).toEqual([
      { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
    ]);
    expect(Object.keys(table(podType, { spec, status: { phase: 'Running' } }).row)).toEqual(['cells', 'object']);
  });

  it('prints nodes with their readiness, roles and version, and wide addresses and system info', () => {
    const node = {
      metadata: { name: 'n1', creationTimestamp: ago(60), labels: { 'node-role.platform.io/worker': '', 'node-role.platform.io/control-plane': '', 'platform.io/role': 'edge' } },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True' }],
        addresses: [{ type: 'Hostname', address: 'n1' }, { type: 'InternalIP', address: '10.0.0.1' }],
        nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian GNU/Linux 12', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.0' },
      },
    };
    const printed = table(nodeType, node);
    expect(printed.columns.map(([name]) => name)).toEqual(['Name', 'Status', 'Roles', 'Age', 'Version', 'Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime']);
    expect(printed.cells).toEqual(['n1', 'Ready,SchedulingDisabled', 'control-plane,edge,worker', '60s', 'v1.32.0', '10.0.0.1', '<none>', 'Debian GNU/Linux 12', '6.1.0', 'containerd://1.7.0']);
    expect(table(nodeType, { status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } }).cells.slice(1, 3)).toEqual(['NotReady', '<none>']);
    expect(table(nodeType, {}).cells).toEqual(['x', 'Unknown', '<none>', '60s', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
  });

  it('prints persistent volumes with capacity, abbreviated access modes, claim and class', () => {
    const pv = {
      metadata: { name: 'pv1', creationTimestamp: ago(60), annotations: { 'volume.beta.platform.io/storage-class': 'legacy' } },
      spec: {
        capacity: { storage: '10Gi' },
        accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: 'fast',
        claimRef: { namespace: 'ns', name: 'data' },
        volumeMode: 'Block',
      },
      status: { phase: 'Bound' },
    };
    const printed = table(persistentVolumeType, pv);
    expect(printed.columns).toEqual([
      ['Name', 0],
      ['Capacity', 0],
      ['Access Modes', 0],
      ['Reclaim Policy', 0],
      ['Status', 0],
      ['Claim', 0],
      ['StorageClass', 0],
      ['VolumeAttributesClass', 0],
      ['Reason', 0],
      ['Age', 0],
      ['VolumeMode', 1],
    ]);
    expect(printed.cells).toEqual(['pv1', '10Gi', 'RWO,RWX', 'Retain', 'Bound', 'ns/data', 'legacy', '<unset>', '', '60s', 'Block']);
    const released = { metadata: { name: 'pv2', deletionTimestamp: ago(1) }, spec: { storageClassName: 'fast' }, status: { phase: 'Released', reason: 'Failed' } };
    expect(table(persistentVolumeType, released).cells).toEqual(['pv2', '0', '', '', 'Terminating', '', 'fast', '<unset>', 'Failed', '<unknown>', '<unset>']);
  });

  it('prints claims with their volume, and capacity and access modes only once bound', () => {
    const pending = { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast', volumeMode: 'Filesystem' }, status: { phase: 'Pending' } };
    const printed = table(persistentVolumeClaimType, pending);
    expect(printed.columns.map(([name]) => name)).toEqual(['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode']);
    expect(printed.cells).toEqual(['x', 'Pending', '', '', '', 'fast', '<unset>', '60s', 'Filesystem']);
    const bound = { spec: { ...pending.spec, volumeName: 'pv1', volumeAttributesClassName: 'gold' }, status: { phase: 'Bound', capacity: { storage: '2Gi' }, accessModes: ['ReadWriteOncePod'] } };
    expect(table(persistentVolumeClaimType, bound).cells).toEqual(['x', 'Bound', 'pv1', '2Gi', 'RWOP', 'fast', 'gold', '60s', 'Filesystem']);
  });

  it('prints Secrets, ConfigMaps and ServiceAccounts with the number of their entries', () => {
    expect(table(secretType, { type: 'Opaque', data: { a: 'YQ==', b: 'Yg==' } })).toMatchObject({
      columns: [
        ['Name', 0],
        ['Type', 0],
        ['Data', 0],
        ['Age', 0],
      ],
      cells: ['x', 'Opaque', 2, '60s'],
    });
    expect(table(configMapType, { data: { a: '1' }, binaryData: { b: 'Yg==', c: 'Yw==' } })).toMatchObject({ columns: [['Name', 0], ['Data', 0], ['Age', 0]], cells: ['x', 3, '60s'] });
    expect(table(configMapType, {}).cells).toEqual(['x', 0, '60s']);
    expect(table(serviceAccountType, { secrets: [{ name: 's1' }] })).toMatchObject({ columns: [['Name', 0], ['Secrets', 0], ['Age', 0]], cells: ['x', 1, '60s'] });
  });
});
