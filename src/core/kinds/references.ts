import { isPlainObject, KubeObject } from '../../apimachinery/types';
import { list, record, str } from '../../apimachinery/validation/shape';

/**
 * The objects a pod or a persistent volume names, as kube's pkg/api/v1/pod
 * (VisitPodSecretNames, VisitPodConfigmapNames) and pkg/api/v1/persistentvolume
 * (VisitPVSecretNames) find them. The Node authorizer's graph and NodeRestriction both
 * read references through these, so they agree on what a pod "uses". Empty names are
 * skipped; malformed values read as absent.
 */

type Obj = Record<string, unknown>;

const field = (value: unknown, name: string): Obj | undefined => {
  if (!isPlainObject(value)) return undefined;
  const child = value[name];
  return isPlainObject(child) ? child : undefined;
};

function podSpec(pod: KubeObject): Obj {
  return record(pod.spec);
}

/** Containers, init containers and ephemeral containers (kube's AllContainers mask). */
function allContainers(pod: KubeObject): Obj[] {
  const spec = podSpec(pod);
  return [...list<unknown>(spec.initContainers), ...list<unknown>(spec.containers), ...list<unknown>(spec.ephemeralContainers)].filter(isPlainObject);
}

function volumes(pod: KubeObject): Obj[] {
  return list<unknown>(podSpec(pod).volumes).filter(isPlainObject);
}

/**
 * The order kube's VolumeSource switch tests sources in: a volume has one source, and when
 * a malformed one names several, the first in this order is the one kube would see.
 */
const POD_SECRET_VOLUME_SOURCES: Array<[source: string, read: (s: Obj) => string | undefined]> = [
  ['azureFile', (s) => str(s.secretName)],
  ['cephfs', (s) => str(field(s, 'secretRef')?.name)],
  ['cinder', (s) => str(field(s, 'secretRef')?.name)],
  ['flexVolume', (s) => str(field(s, 'secretRef')?.name)],
  ['projected', () => undefined],
  ['rbd', (s) => str(field(s, 'secretRef')?.name)],
  ['secret', (s) => str(s.secretName)],
  ['scaleIO', (s) => str(field(s, 'secretRef')?.name)],
  ['iscsi', (s) => str(field(s, 'secretRef')?.name)],
  ['storageos', (s) => str(field(s, 'secretRef')?.name)],
  ['csi', (s) => str(field(s, 'nodePublishSecretRef')?.name)],
];

function uniqueNonEmpty(names: Array<string | undefined>): string[] {
  return [...new Set(names.filter((n): n is string => !!n))];
}

function projectedSources(volume: Obj): Obj[] {
  return list<unknown>(field(volume, 'projected')?.sources).filter(isPlainObject);
}

/** Every secret a pod names: image pull secrets, env and envFrom of every container, volumes. */
export function podSecretNames(pod: KubeObject): string[] {
  const names: Array<string | undefined> = [];
  for (const ref of list<unknown>(podSpec(pod).imagePullSecrets)) names.push(str(record(ref).name));
  for (const c of allContainers(pod)) {
    for (const envFrom of list<unknown>(c.envFrom)) names.push(str(field(envFrom, 'secretRef')?.name));
    for (const env of list<unknown>(c.env)) names.push(str(field(field(env, 'valueFrom'), 'secretKeyRef')?.name));
  }
  for (const volume of volumes(pod)) {
    const found = POD_SECRET_VOLUME_SOURCES.find(([source]) => isPlainObject(volume[source]));
    if (!found) continue;
    const [source, read] = found;
    if (source === 'projected') {
      for (const s of projectedSources(volume)) names.push(str(field(s, 'secret')?.name));
    } else {
      names.push(read(volume[source] as Obj));
    }
  }
  return uniqueNonEmpty(names);
}

/** Every config map a pod names: env and envFrom of every container, configMap and projected volumes. */
export function podConfigMapNames(pod: KubeObject): string[] {
  const names: Array<string | undefined> = [];
  for (const c of allContainers(pod)) {
    for (const envFrom of list<unknown>(c.envFrom)) names.push(str(field(envFrom, 'configMapRef')?.name));
    for (const env of list<unknown>(c.env)) names.push(str(field(field(env, 'valueFrom'), 'configMapKeyRef')?.name));
  }
  for (const volume of volumes(pod)) {
    if (isPlainObject(volume.projected)) {
      for (const s of projectedSources(volume)) names.push(str(field(s, 'configMap')?.name));
    } else if (isPlainObject(volume.configMap)) {
      names.push(str(volume.configMap.name));
    }
  }
  return uniqueNonEmpty(names);
}

/**
 * The claims a pod's volumes use: persistentVolumeClaim.claimName, and for a generic
 * ephemeral volume the claim kube creates for it, named `<pod>-<volume>`.
 */
export function podClaimNames(pod: KubeObject): string[] {
  const names: Array<string | undefined> = [];
  for (const volume of volumes(pod)) {
    if (isPlainObject(volume.persistentVolumeClaim)) names.push(str(volume.persistentVolumeClaim.claimName));
    else if (isPlainObject(volume.ephemeral)) names.push(`${pod.metadata.name ?? ''}-${str(volume.name)}`);
  }
  return uniqueNonEmpty(names);
}

/** Whether a pod names any persistent volume claim directly (NodeRestriction forbids it on mirror pods). */
export function podUsesClaimVolumes(pod: KubeObject): boolean {
  return volumes(pod).some((v) => isPlainObject(v.persistentVolumeClaim));
}

export interface SecretRef {
  namespace: string;
  name: string;
  /** False for secrets only the control plane reads (CSI controller secrets): no node gets them. */
  kubeletVisible: boolean;
}

/** The namespace kube falls back to for PV secret references without one: the bound claim's. */
function claimRefNamespace(pv: KubeObject): string {
  return str(field(pv.spec, 'claimRef')?.namespace);
}

function refWithFallback(pv: KubeObject, ref: Obj | undefined): SecretRef[] {
  if (!ref) return [];
  return [{ namespace: str(ref.namespace) || claimRefNamespace(pv), name: str(ref.name), kubeletVisible: true }];
}

/** Every secret a persistent volume's source names, with the namespace kube resolves it in. */
export function persistentVolumeSecretRefs(pv: KubeObject): SecretRef[] {
  const spec = record(pv.spec);
  const refs = ((): SecretRef[] => {
    if (isPlainObject(spec.azureFile)) {
      const namespace = str(spec.azureFile.secretNamespace) || claimRefNamespace(pv);
      return [{ namespace, name: str(spec.azureFile.secretName), kubeletVisible: true }];
    }
    if (isPlainObject(spec.cephfs)) return refWithFallback(pv, field(spec.cephfs, 'secretRef'));
    if (isPlainObject(spec.cinder)) {
      const ref = field(spec.cinder, 'secretRef');
      return ref ? [{ namespace: str(ref.namespace), name: str(ref.name), kubeletVisible: true }] : [];
    }
    if (isPlainObject(spec.flexVolume)) return refWithFallback(pv, field(spec.flexVolume, 'secretRef'));
    if (isPlainObject(spec.rbd)) return refWithFallback(pv, field(spec.rbd, 'secretRef'));
    if (isPlainObject(spec.scaleIO)) return refWithFallback(pv, field(spec.scaleIO, 'secretRef'));
    if (isPlainObject(spec.iscsi)) return refWithFallback(pv, field(spec.iscsi, 'secretRef'));
    if (isPlainObject(spec.storageos)) {
      const ref = field(spec.storageos, 'secretRef');
      return ref ? [{ namespace: str(ref.namespace), name: str(ref.name), kubeletVisible: true }] : [];
    }
    if (isPlainObject(spec.csi)) {
      const csi = spec.csi;
      const ref = (name: string, kubeletVisible: boolean): SecretRef[] => {
        const r = field(csi, name);
        return r ? [{ namespace: str(r.namespace), name: str(r.name), kubeletVisible }] : [];
      };
      return [
        ...ref('controllerPublishSecretRef', false),
        ...ref('controllerExpandSecretRef', false),
        ...ref('nodePublishSecretRef', true),
        ...ref('nodeStageSecretRef', true),
        ...ref('nodeExpandSecretRef', true),
      ];
    }
    return [];
  })();
  return refs.filter((r) => r.name);
}
