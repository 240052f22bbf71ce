import { KubeObject } from '../../apimachinery/types';
import { record, str } from '../../apimachinery/validation/shape';
import { storageResource } from '../../apimachinery/store-key';
import { persistentVolumeType } from '../../core/kinds/persistent-volume';
import { isMirrorPod, podType } from '../../core/kinds/pod';
import { persistentVolumeSecretRefs, podClaimNames, podConfigMapNames, podSecretNames } from '../../core/kinds/references';
import type { InformerEventHandler } from '../../storage/informer/informer';
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

/** What the pods informer delivers, applied to the graph. */
export function podEventHandler(graph: NodeGraph): InformerEventHandler {
  return {
    onAdd: (pod) => applyPod(graph, pod),
    onUpdate: (_old, pod) => applyPod(graph, pod),
    onDelete: (pod) => graph.deletePod(pod.metadata.namespace ?? '', pod.metadata.name ?? ''),
  };
}

/** What the persistent volumes informer delivers, applied to the graph. */
export function persistentVolumeEventHandler(graph: NodeGraph): InformerEventHandler {
  return {
    onAdd: (pv) => applyPersistentVolume(graph, pv),
    onUpdate: (_old, pv) => applyPersistentVolume(graph, pv),
    onDelete: (pv) => graph.deletePersistentVolume(pv.metadata.name ?? ''),
  };
}
