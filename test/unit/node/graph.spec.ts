import { NodeGraph } from '../../../src/authorization/node/graph';
import { applyPersistentVolume, applyPod, persistentVolumeEventHandler, podEventHandler } from '../../../src/authorization/node/graph-populator';
import { claimVolume, configMapVolume, pod, pv, secretVolume } from './fixtures';

describe('node authorizer graph', () => {
  let graph: NodeGraph;
  beforeEach(() => {
    graph = new NodeGraph();
  });

  it('relates a secret to the node of the bound pod using it, not to other nodes', () => {
    applyPod(graph, pod('ns', 'web', { nodeName: 'n1', volumes: [secretVolume('v', 's1')] }));
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 's1')).toBe(true);
    expect(graph.hasPathFrom('n2', 'secret', 'ns', 's1')).toBe(false);
    expect(graph.hasPathFrom('n1', 'secret', 'other', 's1')).toBe(false);
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 's2')).toBe(false);
    expect(graph.hasPathFrom('n1', 'pod', 'ns', 'web')).toBe(true);
  });

  it('ignores pods not bound to a node', () => {
    applyPod(graph, pod('ns', 'pending', { volumes: [secretVolume('v', 's1')] }));
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 's1')).toBe(false);
    expect(graph.size).toBe(0);
  });

  it('follows a pod that moves to another node', () => {
    applyPod(graph, pod('ns', 'web', { nodeName: 'n1', volumes: [secretVolume('v', 's1')] }));
    applyPod(graph, pod('ns', 'web', { nodeName: 'n2', volumes: [secretVolume('v', 's1')] }));
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 's1')).toBe(false);
    expect(graph.hasPathFrom('n2', 'secret', 'ns', 's1')).toBe(true);
  });

  it('drops access when a reference is removed, and when the pod is unbound or deleted', () => {
    applyPod(graph, pod('ns', 'web', { nodeName: 'n1', volumes: [secretVolume('a', 's1'), secretVolume('b', 's2')] }));
    applyPod(graph, pod('ns', 'web', { nodeName: 'n1', volumes: [secretVolume('b', 's2')] }));
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 's1')).toBe(false);
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 's2')).toBe(true);
    applyPod(graph, pod('ns', 'web', { volumes: [secretVolume('b', 's2')] }));
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 's2')).toBe(false);
    applyPod(graph, pod('ns', 'web', { nodeName: 'n1', volumes: [secretVolume('b', 's2')] }));
    podEventHandler(graph).onDelete!(pod('ns', 'web', {}));
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 's2')).toBe(false);
    // Nothing is left behind once the last pod is gone.
    expect(graph.size).toBe(0);
  });

  it('keeps a secret shared by two pods related to both nodes until each pod goes', () => {
    applyPod(graph, pod('ns', 'a', { nodeName: 'n1', volumes: [secretVolume('v', 'shared')] }));
    applyPod(graph, pod('ns', 'b', { nodeName: 'n2', volumes: [secretVolume('v', 'shared')] }));
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 'shared')).toBe(true);
    expect(graph.hasPathFrom('n2', 'secret', 'ns', 'shared')).toBe(true);
    graph.deletePod('ns', 'a');
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 'shared')).toBe(false);
    expect(graph.hasPathFrom('n2', 'secret', 'ns', 'shared')).toBe(true);
  });

  it('relates pvc -> pv -> secret through the pod using the claim', () => {
    applyPersistentVolume(
      graph,
      pv('vol', { claimRef: { namespace: 'ns', name: 'data' }, csi: { driver: 'd', volumeHandle: 'h', nodeStageSecretRef: { name: 'stage', namespace: 'ns' } } }),
    );
    // No pod uses the claim yet: nothing reaches a node.
    expect(graph.hasPathFrom('n1', 'pv', '', 'vol')).toBe(false);
    applyPod(graph, pod('ns', 'db', { nodeName: 'n1', volumes: [claimVolume('v', 'data')] }));
    expect(graph.hasPathFrom('n1', 'pvc', 'ns', 'data')).toBe(true);
    expect(graph.hasPathFrom('n1', 'pv', '', 'vol')).toBe(true);
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 'stage')).toBe(true);
    expect(graph.hasPathFrom('n2', 'pv', '', 'vol')).toBe(false);
    expect(graph.hasPathFrom('n2', 'secret', 'ns', 'stage')).toBe(false);
    // The volume is released: the claim no longer leads to it.
    applyPersistentVolume(graph, pv('vol', { csi: { driver: 'd', volumeHandle: 'h', nodeStageSecretRef: { name: 'stage', namespace: 'ns' } } }));
    expect(graph.hasPathFrom('n1', 'pv', '', 'vol')).toBe(false);
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 'stage')).toBe(false);
    expect(graph.hasPathFrom('n1', 'pvc', 'ns', 'data')).toBe(true);
  });

  it('never relates CSI controller secrets to a node', () => {
    applyPersistentVolume(
      graph,
      pv('vol', { claimRef: { namespace: 'ns', name: 'data' }, csi: { driver: 'd', volumeHandle: 'h', controllerPublishSecretRef: { name: 'ctl', namespace: 'ns' } } }),
    );
    applyPod(graph, pod('ns', 'db', { nodeName: 'n1', volumes: [claimVolume('v', 'data')] }));
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 'ctl')).toBe(false);
  });

  it('relates a config map used through a projected volume, and the pod service account', () => {
    applyPod(
      graph,
      pod('ns', 'web', {
        nodeName: 'n1',
        serviceAccountName: 'builder',
        volumes: [{ name: 'p', projected: { sources: [{ configMap: { name: 'settings' } }, { serviceAccountToken: { path: 'token' } }] } }, configMapVolume('c', 'other')],
      }),
    );
    expect(graph.hasPathFrom('n1', 'configmap', 'ns', 'settings')).toBe(true);
    expect(graph.hasPathFrom('n1', 'configmap', 'ns', 'other')).toBe(true);
    expect(graph.hasPathFrom('n1', 'serviceAccount', 'ns', 'builder')).toBe(true);
    expect(graph.hasPathFrom('n2', 'serviceAccount', 'ns', 'builder')).toBe(false);
  });

  it('gives a mirror pod its node edge only', () => {
    applyPod(
      graph,
      pod('ns', 'static', { nodeName: 'n1', serviceAccountName: 'sa', volumes: [secretVolume('v', 's1')] }, { annotations: { 'platform.io/config.mirror': 'hash' } }),
    );
    expect(graph.hasPathFrom('n1', 'pod', 'ns', 'static')).toBe(true);
    expect(graph.hasPathFrom('n1', 'secret', 'ns', 's1')).toBe(false);
    expect(graph.hasPathFrom('n1', 'serviceAccount', 'ns', 'sa')).toBe(false);
  });

  it('applies informer events for pods and persistent volumes', () => {
    const pods = podEventHandler(graph);
    const volumes = persistentVolumeEventHandler(graph);
    pods.onAdd!(pod('ns', 'web', { nodeName: 'n1', volumes: [claimVolume('v', 'data')] }));
    volumes.onAdd!(pv('vol', { claimRef: { namespace: 'ns', name: 'data' }, hostPath: { path: '/x' } }));
    expect(graph.hasPathFrom('n1', 'pv', '', 'vol')).toBe(true);
    volumes.onUpdate!(pv('vol', { claimRef: { namespace: 'ns', name: 'data' }, hostPath: { path: '/x' } }), pv('vol', { hostPath: { path: '/x' } }));
    expect(graph.hasPathFrom('n1', 'pv', '', 'vol')).toBe(false);
    volumes.onUpdate!(pv('vol', { hostPath: { path: '/x' } }), pv('vol', { claimRef: { namespace: 'ns', name: 'data' }, hostPath: { path: '/x' } }));
    expect(graph.hasPathFrom('n1', 'pv', '', 'vol')).toBe(true);
    volumes.onDelete!(pv('vol', {}));
    expect(graph.hasPathFrom('n1', 'pv', '', 'vol')).toBe(false);
    pods.onDelete!(pod('ns', 'web', {}));
    expect(graph.size).toBe(0);
  });

  it('answers a reference shared by many pods on other nodes without walking them', () => {
    for (let i = 0; i < 2000; i++) applyPod(graph, pod('ns', `p${i}`, { nodeName: `n${i % 50}`, imagePullSecrets: [{ name: 'registry' }] }));
    const started = process.hrtime.bigint();
    for (let i = 0; i < 1000; i++) expect(graph.hasPathFrom('n7', 'secret', 'ns', 'registry')).toBe(true);
    expect(graph.hasPathFrom('n99', 'secret', 'ns', 'registry')).toBe(false);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(500);
  });
});
