import { KubeObject } from '../../apimachinery/types';
import { record, str } from '../../api/validation/shape';
import { storageResource } from '../../apimachinery/store-key';
import { persistentVolumeType } from '../../core/kinds/persistent-volume';
import { isMirrorPod, podType } from '../../core/kinds/pod';
import { persistentVolumeSecretRefs, podClaimNames, podConfigMapNames, podSecretNames } from '../../core/kinds/references';
import { Change } from '../../storage/object-store';
import { NodeGraph, PersistentVolumeRelations, PodRelations } from './graph';

/**
 * Feeds stored pods and persistent volumes into the graph (kube's graph_populator.go).
 * Unlike kube, where a bound pod's references never change, a pod here may be updated in
 * any way, so every write of a pod replaces what it contributed.
 */

/** The store keys of the kinds the graph follows. */
export const PODS_RESOURCE = storageResource(podType);
export const PERSISTENT_VOLUMES_RESOURCE = storageResource(persistentVolumeType);

export function podRelations(pod: KubeObject): PodRelations {
  const spec = record(pod.spec);
  return {
    namespace: pod.metadata.namespace ?? '',
    name: pod.metadata.name ?? '',
    nodeName: str(spec.nodeName),
    mirror: isMirrorPod(pod),
    serviceAccountName: str(spec.serviceAccountName),
    secrets: podSecretNames(pod),
    configMaps: podConfigMapNames(pod),
    claims: podClaimNames(pod),
  };
}

export function persistentVolumeRelations(pv: KubeObject): PersistentVolumeRelations {
  const claimRef = record(record(pv.spec).claimRef);
  const bound = str(claimRef.name) !== '';
  return {
    name: pv.metadata.name ?? '',
    ...(bound ? { claim: { namespace: str(claimRef.namespace), name: str(claimRef.name) } } : {}),
    secrets: persistentVolumeSecretRefs(pv)
      .filter((ref) => ref.kubeletVisible)
      .map(({ namespace, name }) => ({ namespace, name })),
  };
}

/** A pod counts once it is bound to a node; one that is not (or no longer) is out of the graph. */
export function applyPod(graph: NodeGraph, pod: KubeObject): void {
  const relations = podRelations(pod);
  if (relations.nodeName) graph.setPod(relations);
  else graph.deletePod(relations.namespace, relations.name);
}

export function applyPersistentVolume(graph: NodeGraph, pv: KubeObject): void {
  graph.setPersistentVolume(persistentVolumeRelations(pv));
}

/** Applies one change of the log; changes to other kinds are ignored. */
export function applyChange(graph: NodeGraph, change: Change): void {
  const { key } = change;
  if (key.resource === PODS_RESOURCE) {
    if (change.type === 'DELETED') graph.deletePod(key.namespace, key.name);
    else applyPod(graph, change.object);
  } else if (key.resource === PERSISTENT_VOLUMES_RESOURCE) {
    if (change.type === 'DELETED') graph.deletePersistentVolume(key.name);
    else applyPersistentVolume(graph, change.object);
  }
}
