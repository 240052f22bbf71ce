import { KubeObject } from '../../apimachinery/types';
import { list, record, str } from '../../apimachinery/validation/shape';

/** What kube's PersistentVolume and PersistentVolumeClaim printers compute (pkg/apis/core/helper). */

/** kube's beta storage-class annotation (`volume.beta.kubernetes.io/storage-class`), which wins over the spec field. */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.platform.io/storage-class';

const ACCESS_MODE_ABBREVIATIONS: Array<[string, string]> = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

/** GetAccessModesAsString: the modes present, abbreviated, in kube's fixed order. */
export function accessModesText(modes: unknown): string {
  const present = new Set(list<unknown>(modes).map(str));
  return ACCESS_MODE_ABBREVIATIONS.filter(([mode]) => present.has(mode))
    .map(([, short]) => short)
    .join(',');
}

/** The storage class: the beta annotation when set, else the spec's storageClassName. */
export function storageClassOf(obj: KubeObject & { spec?: unknown }): string {
  const annotations = record(obj.metadata.annotations);
  if (Object.hasOwn(annotations, BETA_STORAGE_CLASS_ANNOTATION)) return str(annotations[BETA_STORAGE_CLASS_ANNOTATION]);
  return str(record(obj.spec).storageClassName);
}

/** The `storage` entry of a resource list as printed; an absent quantity is Go's zero, `0`. */
export function storageQuantity(resources: unknown): string {
  const value = record(resources).storage;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '0';
}

/** The phase, or Terminating once deletion has begun. */
export function phaseOf(obj: KubeObject & { status?: unknown }): string {
  return obj.metadata.deletionTimestamp ? 'Terminating' : str(record(obj.status).phase);
}

/** A spec field printed as `<unset>` when absent (volumeMode, volumeAttributesClassName). */
export function unsetOr(value: unknown): string {
  return typeof value === 'string' ? value : '<unset>';
}
