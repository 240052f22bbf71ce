import { persistentVolumeSecretRefs, podClaimNames, podConfigMapNames, podSecretNames } from '../../../src/core/kinds/references';
import { claimVolume, configMapVolume, pod, pv, secretVolume } from './fixtures';

describe('pod references (kube VisitPodSecretNames / VisitPodConfigmapNames)', () => {
  const everything = pod('ns', 'p', {
    imagePullSecrets: [{ name: 'pull' }, { name: '' }],
    initContainers: [{ name: 'init', image: 'i', envFrom: [{ secretRef: { name: 'init-env' } }, { configMapRef: { name: 'init-cm' } }] }],
    containers: [
      {
        name: 'c',
        image: 'i',
        env: [
          { name: 'A', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } },
          { name: 'B', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } },
          { name: 'C', value: 'plain' },
        ],
      },
    ],
    ephemeralContainers: [{ name: 'debug', image: 'i', env: [{ name: 'D', valueFrom: { secretKeyRef: { name: 'debug-secret', key: 'k' } } }] }],
    volumes: [
      secretVolume('s', 'vol-secret'),
      configMapVolume('c', 'vol-cm'),
      {
        name: 'proj',
        projected: {
          sources: [{ secret: { name: 'proj-secret' } }, { configMap: { name: 'proj-cm' } }, { serviceAccountToken: { path: 't' } }],
        },
      },
      { name: 'csi', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi-secret' } } },
      { name: 'rbd', rbd: { monitors: ['m'], image: 'x', secretRef: { name: 'rbd-secret' } } },
      { name: 'azure', azureFile: { secretName: 'azure-secret', shareName: 's' } },
      { name: 'cephfs', cephfs: { monitors: ['m'], secretRef: { name: 'ceph-secret' } } },
      { name: 'flex', flexVolume: { driver: 'd', secretRef: { name: 'flex-secret' } } },
      { name: 'iscsi', iscsi: { targetPortal: 'p', iqn: 'q', lun: 0, secretRef: { name: 'iscsi-secret' } } },
      { name: 'scaleio', scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'scaleio-secret' } } },
      { name: 'storageos', storageos: { secretRef: { name: 'storageos-secret' } } },
      { name: 'cinder', cinder: { volumeID: 'v', secretRef: { name: 'cinder-secret' } } },
      claimVolume('data', 'claim'),
      { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
    ],
  });

  it('finds secrets in image pull secrets, every container kind and every secret-bearing volume source', () => {
    expect(podSecretNames(everything).sort()).toEqual(
      [
        'pull',
        'init-env',
        'env-secret',
        'debug-secret',
        'vol-secret',
        'proj-secret',
        'csi-secret',
        'rbd-secret',
        'azure-secret',
        'ceph-secret',
        'flex-secret',
        'iscsi-secret',
        'scaleio-secret',
        'storageos-secret',
        'cinder-secret',
      ].sort(),
    );
  });

  it('finds config maps in env, envFrom, configMap and projected volumes', () => {
    expect(podConfigMapNames(everything).sort()).toEqual(['env-cm', 'init-cm', 'proj-cm', 'vol-cm']);
  });

  it('finds claims, including the one kube creates for an ephemeral volume (<pod>-<volume>)', () => {
    expect(podClaimNames(everything).sort()).toEqual(['claim', 'p-scratch']);
  });

  it('reads malformed specs as having no references instead of failing', () => {
    const broken = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { volumes: 'nope', containers: [null, 3], imagePullSecrets: [7] } };
    expect(podSecretNames(broken)).toEqual([]);
    expect(podConfigMapNames(broken)).toEqual([]);
    expect(podClaimNames(broken)).toEqual([]);
  });
});

describe('persistent volume secret references (kube VisitPVSecretNames)', () => {
  it('resolves a reference without namespace in the bound claim namespace', () => {
    const vol = pv('v', { claimRef: { namespace: 'app', name: 'c' }, rbd: { monitors: ['m'], image: 'i', secretRef: { name: 's' } } });
    expect(persistentVolumeSecretRefs(vol)).toEqual([{ namespace: 'app', name: 's', kubeletVisible: true }]);
  });

  it('uses the namespace the reference names', () => {
    const vol = pv('v', { claimRef: { namespace: 'app', name: 'c' }, cephfs: { monitors: ['m'], secretRef: { name: 's', namespace: 'other' } } });
    expect(persistentVolumeSecretRefs(vol)).toEqual([{ namespace: 'other', name: 's', kubeletVisible: true }]);
  });

  it('marks CSI controller secrets as not visible to kubelets', () => {
    const vol = pv('v', {
      csi: {
        driver: 'd',
        volumeHandle: 'h',
        controllerPublishSecretRef: { name: 'cp', namespace: 'ns' },
        controllerExpandSecretRef: { name: 'ce', namespace: 'ns' },
        nodePublishSecretRef: { name: 'np', namespace: 'ns' },
        nodeStageSecretRef: { name: 'ns', namespace: 'ns' },
        nodeExpandSecretRef: { name: 'ne', namespace: 'ns' },
      },
    });
    expect(persistentVolumeSecretRefs(vol).map((r) => `${r.name}:${r.kubeletVisible}`)).toEqual([
      'cp:false',
      'ce:false',
      'np:true',
      'ns:true',
      'ne:true',
    ]);
  });

  it('reads azureFile secretNamespace, defaulting to the claim namespace', () => {
    const withNs = pv('v', { claimRef: { namespace: 'app', name: 'c' }, azureFile: { secretName: 's', shareName: 'x', secretNamespace: 'sec' } });
    const withoutNs = pv('v', { claimRef: { namespace: 'app', name: 'c' }, azureFile: { secretName: 's', shareName: 'x' } });
    expect(persistentVolumeSecretRefs(withNs)).toEqual([{ namespace: 'sec', name: 's', kubeletVisible: true }]);
    expect(persistentVolumeSecretRefs(withoutNs)).toEqual([{ namespace: 'app', name: 's', kubeletVisible: true }]);
  });

  it('finds nothing for sources without secrets', () => {
    expect(persistentVolumeSecretRefs(pv('v', { hostPath: { path: '/x' } }))).toEqual([]);
  });
});
