import { KubeObject } from '../../../src/apimachinery/types';

/** Pods and volumes as the store holds them, for the node graph and admission tests. */

export function pod(namespace: string, name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name, uid: `uid-${name}`, ...metadata }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } };
}

export function pv(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec };
}

export const secretVolume = (volume: string, secretName: string) => ({ name: volume, secret: { secretName } });
export const configMapVolume = (volume: string, name: string) => ({ name: volume, configMap: { name } });
export const claimVolume = (volume: string, claimName: string) => ({ name: volume, persistentVolumeClaim: { claimName } });
